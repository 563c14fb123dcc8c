"""memlane: long-term memory engine for LLM assistants and agents."""

from memlane.engine import AsyncMemory, Memory
from memlane.model import (
    DimensionMismatchError,
    EmbedderMismatchError,
    FilterError,
    ForbiddenError,
    HistoryEntry,
    MemlaneError,
    MemoryLink,
    MemoryRecord,
    MemoryState,
    MemoryType,
    NotFoundError,
    SearchHit,
    ValidationError,
)
from memlane.model.config import Settings

__all__ = [
    "AsyncMemory",
    "DimensionMismatchError",
    "EmbedderMismatchError",
    "FilterError",
    "ForbiddenError",
    "HistoryEntry",
    "MemlaneError",
    "Memory",
    "MemoryLink",
    "MemoryRecord",
    "MemoryState",
    "MemoryType",
    "NotFoundError",
    "SearchHit",
    "Settings",
    "ValidationError",
]
__version__ = "0.1.0"
