"""memlane: long-term memory engine for LLM assistants and agents.

The names below are imported on first use (PEP 562), so ``import memlane.cli`` and ``memlane --help``
do not pay for the engine, numpy and the storage drivers."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_HOMES = {"AsyncMemory": "memlane.engine", "Memory": "memlane.engine", "Settings": "memlane.model.config"}


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES.get(name, "memlane.model")), name)
    globals()[name] = value  # later lookups skip this function
    return value
