"""``MEMLANE_API_KEYS`` entries: ``KEY`` (an admin key) or ``KEY:USER`` (a key bound to one user)."""

from __future__ import annotations

from memlane.model.errors import ValidationError
from memlane.model.ids import USER_ID_RULE, is_valid_user_id


def check_api_keys(entries: list[str]) -> list[tuple[str, str | None]]:
    """Each entry as ``(key, user or None)``; refuses an empty key, a bad user id and a key given
    twice (which user would it act for?). Messages number the entries and never show a key."""
    seen: dict[str, int] = {}
    out: list[tuple[str, str | None]] = []
    for n, entry in enumerate(entries, start=1):
        key, sep, user = entry.partition(":")
        if not key.strip() or key != key.strip():
            raise ValidationError(
                f"MEMLANE_API_KEYS entry #{n} has an empty key or spaces around it; write KEY or KEY:USER"
            )
        if sep and not is_valid_user_id(user):
            raise ValidationError(
                f"MEMLANE_API_KEYS entry #{n} binds its key to the user id {user!r}, "
                f"which is not valid: {USER_ID_RULE}"
            )
        if key in seen:
            raise ValidationError(
                f"MEMLANE_API_KEYS entries #{seen[key]} and #{n} have the same key; give every key once"
            )
        seen[key] = n
        out.append((key, user if sep else None))
    return out
