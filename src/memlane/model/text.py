"""Text both stores can keep, and that is safe to print: PostgreSQL refuses NUL characters and UTF-8
cannot encode a lone surrogate, so either is refused up front, with the same message on every backend;
other control characters (C0 but tab and newline, DEL, C1: ESC, BEL, ...) are removed, so no stored
text can move a terminal's cursor or ring its bell. Keys are compared as NFC without zero-width
characters, so two spellings that look the same name one memory."""

from __future__ import annotations

import re
import unicodedata

from memlane.model.errors import ValidationError

CONTROLS = re.compile("[\x01-\x08\x0b-\x1f\x7f-\x9f]")
ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")


def check_text(name: str, value: str) -> str:
    """``value`` without control characters; a ValidationError for NUL or a lone surrogate."""
    if "\x00" in value:
        raise ValidationError(f"{name} contains a NUL character (\\x00); remove it")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError(
            f"{name} is not valid Unicode (it holds a lone surrogate); send UTF-8 text"
        ) from None
    return strip_controls(value)


def strip_controls(value: str) -> str:
    return CONTROLS.sub("", value)


def check_id(name: str, value: str) -> str:
    """An id or name as given, refused when it holds a control character (removing one would silently
    turn it into another id)."""
    check_text(name, value)
    found = CONTROLS.search(value)
    if found:
        raise ValidationError(f"{name} contains a control character ({found.group()!r}); remove it")
    return value


def normal_key(value: str) -> str:
    """A key as memlane compares and stores it: NFC, without zero-width characters."""
    return ZERO_WIDTH.sub("", unicodedata.normalize("NFC", value))


def printable(value: str) -> str:
    """``value`` with control characters shown escaped (``\\x1b``), for a terminal."""
    return CONTROLS.sub(lambda m: repr(m.group())[1:-1], value)
