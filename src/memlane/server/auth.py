"""Bearer API keys and the user a request acts for.

Keys come from ``api_keys`` (``MEMLANE_API_KEYS``, comma-separated). An entry ``KEY`` is an *admin*
key: the request acts for the user named by the ``X-Memlane-User`` header (or, as Open WebUI sends it,
``X-OpenWebUI-User-Id``). An entry ``KEY:USER`` is bound to ``USER``: the request acts for that user
and a header naming anyone else is refused (403). With no keys configured the server serves loopback
clients only (every request is then trusted like an admin key), and ``memlane serve`` refuses to
listen on a non-loopback address.
"""

from __future__ import annotations

import hmac
import ipaddress
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from memlane.model.api_keys import check_api_keys
from memlane.model.ids import is_valid_user_id
from memlane.server.errors import ApiError
from memlane.server.owui_jwt import JWT_HEADER, jwt_user

USER_HEADER = "X-Memlane-User"
OWUI_USER_HEADER = "X-OpenWebUI-User-Id"
USER_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:@\-]{0,127}$"  # memlane.model.ids user id rule

bearer = HTTPBearer(auto_error=False, description="An API key from MEMLANE_API_KEYS.")


@dataclass(frozen=True)
class Principal:
    """Who is calling: an admin key (``user`` None) or a key bound to one user."""

    name: str
    user: str | None = None

    @property
    def is_admin(self) -> bool:
        return self.user is None


class KeyRing:
    def __init__(self, entries: list[str]) -> None:
        self.keys = [
            (key.encode(), Principal(f"key#{n}", user))
            for n, (key, user) in enumerate(check_api_keys(entries), start=1)
        ]

    @property
    def enabled(self) -> bool:
        return bool(self.keys)

    def lookup(self, token: str) -> Principal | None:
        given = token.encode()
        found = None
        for key, who in self.keys:  # compare against every key: no early exit to time
            if hmac.compare_digest(key, given):
                found = who
        return found


def is_loopback(host: str | None) -> bool:
    if host in ("localhost", "testclient"):
        return True
    try:
        return host is not None and ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


async def authenticate(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
) -> Principal:
    ring: KeyRing = request.app.state.memlane.keys
    if not ring.enabled:
        if not is_loopback(request.client.host if request.client else None):
            raise ApiError(
                403,
                "forbidden",
                "this server has no API keys configured and serves loopback "
                "clients only; set MEMLANE_API_KEYS",
            )
        return Principal("loopback")
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise ApiError(
            401,
            "unauthorized",
            "missing API key: send 'Authorization: Bearer <key>'",
            headers={"WWW-Authenticate": "Bearer"},
        )
    who = ring.lookup(credentials.credentials)
    if who is None:
        raise ApiError(401, "unauthorized", "unknown API key", headers={"WWW-Authenticate": "Bearer"})
    return who


async def require_admin(who: Annotated[Principal, Depends(authenticate)]) -> Principal:
    if not who.is_admin:
        raise ApiError(403, "forbidden", "this endpoint needs an admin key (a key not bound to a user)")
    return who


UserHeader = Annotated[
    str | None,
    Header(
        alias=USER_HEADER,
        pattern=USER_PATTERN,
        description=(f"The user to act for (admin keys). {OWUI_USER_HEADER} is accepted too."),
    ),
]
OwuiUserHeader = Annotated[
    str | None,
    Header(
        alias=OWUI_USER_HEADER,
        pattern=USER_PATTERN,
        description=(
            f"Open WebUI's user id: the user to act for (admin keys); without it, anonymous mode. "
            f"{USER_HEADER} is accepted too."
        ),
    ),
]


def _resolve(who: Principal, declared: str | None, other_name: str, other: str | None) -> str | None:
    """The user this request acts for, or None (anonymous). One user never acts for another."""
    if other is not None and not is_valid_user_id(other):
        raise ApiError(400, "validation_error", f"{other_name} is not a valid user id")
    named = {u for u in (declared, other) if u}
    if len(named) > 1:
        raise ApiError(400, "validation_error", f"{USER_HEADER} and {OWUI_USER_HEADER} name different users")
    header_user = named.pop() if named else None
    if who.user is not None:
        if header_user is not None and header_user != who.user:
            raise ApiError(403, "forbidden", f"this API key acts for {who.user!r} only, not {header_user!r}")
        return who.user
    return header_user


async def acting_user(
    request: Request, who: Annotated[Principal, Depends(authenticate)], x_memlane_user: UserHeader = None
) -> str | None:
    """REST: ``X-Memlane-User`` (documented) or ``X-OpenWebUI-User-Id``."""
    return _resolve(who, x_memlane_user, OWUI_USER_HEADER, request.headers.get(OWUI_USER_HEADER))


async def chat_user(
    request: Request,
    who: Annotated[Principal, Depends(authenticate)],
    x_openwebui_user_id: OwuiUserHeader = None,
) -> str | None:
    """Chat proxy: ``X-OpenWebUI-User-Id`` (documented) or ``X-Memlane-User``; or Open WebUI's signed
    ``X-OpenWebUI-User-Jwt``, verified (a plain header naming another user is refused)."""
    token = request.headers.get(JWT_HEADER)
    if token is not None:
        signed = jwt_user(token, request.app.state.memlane.settings.openwebui_jwt_secret)
        if x_openwebui_user_id not in (None, signed):
            raise ApiError(
                400, "validation_error", f"{OWUI_USER_HEADER} and {JWT_HEADER} name different users"
            )
        x_openwebui_user_id = signed
    return _resolve(who, x_openwebui_user_id, USER_HEADER, request.headers.get(USER_HEADER))


async def require_user(user: Annotated[str | None, Depends(acting_user)]) -> str:
    if user is None:
        raise ApiError(
            400,
            "missing_user",
            f"name the user with the {USER_HEADER} header (or use an API key bound to a user)",
        )
    return user


User = Annotated[str, Depends(require_user)]
ChatUser = Annotated[str | None, Depends(chat_user)]
Admin = Annotated[Principal, Depends(require_admin)]
Caller = Annotated[Principal, Depends(authenticate)]
