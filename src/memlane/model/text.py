"""Text both stores can keep: PostgreSQL refuses NUL characters and UTF-8 cannot encode a lone
surrogate, so either is refused up front, with the same message on every backend."""

from __future__ import annotations

from memlane.model.errors import ValidationError


def check_text(name: str, value: str) -> str:
    if "\x00" in value:
        raise ValidationError(f"{name} contains a NUL character (\\x00); remove it")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError(f"{name} is not valid Unicode (it holds a lone surrogate); send UTF-8 text") from None
    return value
