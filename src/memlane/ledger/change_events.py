"""The event a change-log row stands for: published live after its commit, or replayed from the log
to a client of the event stream that reconnects (``Last-Event-ID``)."""

from __future__ import annotations

from memlane.ledger.events import MemoryEvent
from memlane.model.jobs import Change

# change-log kinds and the event each publishes
EVENT_OF = {
    "created": "memory.created",
    "updated": "memory.updated",
    "merged": "memory.merged",
    "changed_fact": "memory.changed_fact",
    "superseded": "memory.superseded",
    "deleted": "memory.deleted",
    "restored": "memory.restored",
    "purged": "memory.purged",
    "linked": "memory.linked",
    "proposed": "memory.proposed",
    "proposal_decided": "memory.proposal_decided",
    "shared": "memory.shared",
    "unshared": "memory.unshared",
}


def event_from_change(change: Change) -> MemoryEvent:
    """The event a committed change-log row stands for (live, or replayed from the log)."""
    return MemoryEvent(
        type=EVENT_OF.get(change.event, f"memory.{change.event}"),
        user_id=change.user_id,
        thread_id=change.thread_id or None,
        memory_id=change.memory_id,
        seq=change.seq,
        data={"id": change.memory_id, **change.meta},
        at=change.at,
    )
