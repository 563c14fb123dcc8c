"""Open WebUI's signed user: with ``FORWARD_USER_INFO_HEADER_JWT_SECRET`` set, Open WebUI sends an HS256 JWT
in ``X-OpenWebUI-User-Jwt`` (claims ``sub`` = its user id, ``email``, ``name``, ``role``, ``iss`` =
"open-webui", ``iat``, ``exp``) instead of its plain ``X-OpenWebUI-User-*`` headers. The chat proxy verifies
it with the same secret (``MEMLANE_OPENWEBUI_JWT_SECRET``, or Open WebUI's own variable) and acts for ``sub``.
"""

from __future__ import annotations

import jwt

from memlane.model.ids import is_valid_user_id
from memlane.server.errors import ApiError

JWT_HEADER = "X-OpenWebUI-User-Jwt"
ISSUER = "open-webui"
LEEWAY_S = 60  # clock drift between Open WebUI's host and this one
MAX_TOKEN = 4096  # Open WebUI's tokens are a few hundred bytes


def jwt_user(token: str, secret: str | None) -> str:
    """The Open WebUI user id the token is signed for, or a 401 saying what is wrong with it."""
    if secret is None:
        raise ApiError(
            401,
            "unauthorized",
            f"the request carries {JWT_HEADER} but this server has no secret "
            "to verify it: set MEMLANE_OPENWEBUI_JWT_SECRET to the value of Open "
            "WebUI's FORWARD_USER_INFO_HEADER_JWT_SECRET",
        )
    if len(token) > MAX_TOKEN:
        raise ApiError(401, "unauthorized", f"{JWT_HEADER} is longer than {MAX_TOKEN} characters")
    try:  # HS256 only: a verifier that trusts the token's own "alg" can be told "none"
        claims = jwt.decode(
            token,
            secret,
            algorithms=["HS256"],
            issuer=ISSUER,
            leeway=LEEWAY_S,
            options={"require": ["sub", "exp", "iss"]},
        )
    except jwt.ExpiredSignatureError as exc:
        raise ApiError(401, "unauthorized", f"{JWT_HEADER} has expired ({exc})") from exc
    except jwt.InvalidTokenError as exc:
        raise ApiError(
            401,
            "unauthorized",
            f"{JWT_HEADER} is not valid: {exc} (is MEMLANE_OPENWEBUI_JWT_SECRET Open WebUI's secret?)",
        ) from exc
    user = str(claims["sub"])
    if not is_valid_user_id(user):
        raise ApiError(401, "unauthorized", f"{JWT_HEADER} names a user id memlane cannot store: {user!r}")
    return user
