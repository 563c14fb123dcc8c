"""Plain typed data: records, enums, filters, config and errors. No I/O.

Names are imported on first use (PEP 562): ``memlane.model.enums`` alone stays cheap for the CLI."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memlane.model.category import normalise_category
    from memlane.model.enums import HistoryEvent, MemoryState, MemoryType, Source
    from memlane.model.errors import (
        BackendError,
        DimensionMismatchError,
        EmbedderMismatchError,
        FilterError,
        ForbiddenError,
        MemlaneError,
        NotFoundError,
        ProviderError,
        RateLimitError,
        SchemaVersionError,
        ValidationError,
    )
    from memlane.model.link import MemoryLink
    from memlane.model.record import HistoryEntry, MemoryRecord, Relation, ScoreBreakdown, SearchHit

__all__ = [
    "BackendError",
    "DimensionMismatchError",
    "EmbedderMismatchError",
    "FilterError",
    "ForbiddenError",
    "HistoryEntry",
    "HistoryEvent",
    "MemlaneError",
    "MemoryLink",
    "MemoryRecord",
    "MemoryState",
    "MemoryType",
    "NotFoundError",
    "ProviderError",
    "RateLimitError",
    "Relation",
    "SchemaVersionError",
    "ScoreBreakdown",
    "SearchHit",
    "Source",
    "ValidationError",
    "normalise_category",
]

_MODULES = {
    "category": ("normalise_category",),
    "enums": ("HistoryEvent", "MemoryState", "MemoryType", "Source"),
    "errors": (
        "BackendError",
        "DimensionMismatchError",
        "EmbedderMismatchError",
        "FilterError",
        "ForbiddenError",
        "MemlaneError",
        "NotFoundError",
        "ProviderError",
        "RateLimitError",
        "SchemaVersionError",
        "ValidationError",
    ),
    "link": ("MemoryLink",),
    "record": ("HistoryEntry", "MemoryRecord", "Relation", "ScoreBreakdown", "SearchHit"),
}
_HOMES = {name: f"memlane.model.{module}" for module, names in _MODULES.items() for name in names}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = value
    return value
