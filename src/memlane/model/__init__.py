"""Plain typed data: records, enums, filters, config and errors. No I/O."""

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
