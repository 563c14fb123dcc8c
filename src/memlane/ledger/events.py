"""The events the write path publishes (``memory.*``), and the two that change nothing: a formation
candidate and an error. :mod:`memlane.ledger.bus` delivers them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from memlane.model.record import utcnow

EVENT_TYPES = (
    "memory.candidate",
    "memory.created",
    "memory.updated",
    "memory.merged",
    "memory.changed_fact",
    "memory.superseded",
    "memory.deleted",
    "memory.restored",
    "memory.purged",
    "memory.linked",
    "memory.shared",
    "memory.unshared",
    "memory.proposed",
    "memory.proposal_decided",
    "memory.error",
)


class MemoryEvent(BaseModel):
    type: str
    user_id: str
    thread_id: str | None = None
    memory_id: str | None = None
    seq: int | None = None  # the user's change sequence for writes (SSE ids); None for candidates and errors
    data: dict[str, Any] = Field(default_factory=dict)
    at: datetime = Field(default_factory=utcnow)
