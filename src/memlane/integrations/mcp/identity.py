"""Who an MCP tool call acts for. Never a tool argument (a model could set it): over stdio, the user the
server was started for; over HTTP, that user too when one was given, else the caller's API key, as on the
REST API (:mod:`memlane.server.auth`): a key bound to a user acts for that user, an admin key for the user
named by the ``X-Memlane-User`` header; with no keys configured only loopback clients are served."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from memlane.model.errors import MemlaneError, ValidationError
from memlane.model.ids import is_valid_user_id
from memlane.server.auth import USER_HEADER, KeyRing, is_loopback


class AccessDeniedError(MemlaneError):
    """The MCP caller is not allowed to act for any user (no key, an unknown key, another user's key)."""


@dataclass(frozen=True)
class Identity:
    user: str | None  # the one user this server acts for, if it was started for one
    keys: KeyRing

    def resolve(self, headers: Mapping[str, str] | None, client_host: str | None) -> str:
        """``headers`` and ``client_host``: the HTTP request's, or None over stdio."""
        if headers is None:
            if self.user is None:
                raise AccessDeniedError(
                    "this MCP server was started without a user: run `memlane mcp --user ID`"
                )
            return self.user
        lower = {k.lower(): v for k, v in headers.items()}
        named = lower.get(USER_HEADER.lower())
        if named is not None and not is_valid_user_id(named):
            raise ValidationError(f"{USER_HEADER} is not a valid user id")
        bound = self._key_user(lower.get("authorization"), client_host)
        users = list(dict.fromkeys(u for u in (bound, self.user, named) if u is not None))
        if not users:
            raise AccessDeniedError(
                f"name the user with the {USER_HEADER} header (or use a key bound to a user)"
            )
        if len(users) > 1:  # a key, the server and a header that disagree: one user never acts for another
            raise AccessDeniedError(f"this connection acts for {users[0]!r} only, not {users[1]!r}")
        return users[0]

    def _key_user(self, authorization: str | None, client_host: str | None) -> str | None:
        """The user the caller's key is bound to (None for an admin key or a trusted loopback caller)."""
        if not self.keys.enabled:
            if not is_loopback(client_host):
                raise AccessDeniedError(
                    "no API keys are configured: this MCP server serves loopback clients only; "
                    "set MEMLANE_API_KEYS"
                )
            return None
        scheme, _, token = (authorization or "").partition(" ")
        who = self.keys.lookup(token.strip()) if scheme.lower() == "bearer" else None
        if who is None:
            raise AccessDeniedError("missing or unknown API key: send 'Authorization: Bearer <key>'")
        return who.user
