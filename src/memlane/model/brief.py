"""Short, readable reprs for the records a user prints (``print(mem.history(...))``): the few fields that
matter, long text cut, times to the second. Only ``repr``/``str`` change: the fields, ``model_dump`` and
equality are the full data."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any

TEXT_CHARS = 80  # a summary or a reason longer than this is cut, ending in "…"


def cut(text: str | None, limit: int = TEXT_CHARS) -> str | None:
    if text is None or len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + "…"


def brief(**fields: Any) -> list[tuple[str, Any]]:
    """The ``(name, value)`` pairs pydantic's ``__repr_args__`` returns: None left out, an enum as its
    value, a datetime as ISO 8601 UTC to the second, a float to 3 decimals."""
    return [(name, _plain(value)) for name, value in fields.items() if value is not None]


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, float):
        return round(value, 3)
    return value
