"""History rows: every write appends one with the old and new value, the reason and the actor."""

from __future__ import annotations

from datetime import datetime

from memlane.model.enums import HistoryEvent
from memlane.model.ids import new_id
from memlane.model.record import HistoryEntry, MemoryRecord, utcnow


def history_entry(
    event: HistoryEvent,
    *,
    memory_id: str,
    user_id: str,
    old: MemoryRecord | None = None,
    new: MemoryRecord | None = None,
    reason: str | None = None,
    actor: str | None = None,
    at: datetime | None = None,
) -> HistoryEntry:
    return HistoryEntry(
        id=new_id(),
        memory_id=memory_id,
        user_id=user_id,
        event=event,
        old_value=old.snapshot() if old else None,
        new_value=new.snapshot() if new else None,
        reason=reason,
        actor=actor,
        at=at or utcnow(),
    )
