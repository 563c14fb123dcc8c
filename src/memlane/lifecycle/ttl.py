"""TTL: a memory no one has read for ``MEMORY_TTL_DAYS``, of importance below
``MEMORY_TTL_IMPORTANCE_BELOW`` and not pinned, is soft deleted with ``purge_at`` set
``MEMORY_PURGE_AFTER_DAYS`` ahead. Reads (search, context, query) move ``last_accessed``; a memory
never read counts from its last write. The user can restore it until the purge task forgets it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from memlane.ledger.mutations import Mutation
from memlane.model.config import Settings
from memlane.model.enums import MemoryState
from memlane.model.filters import Condition
from memlane.model.record import MemoryRecord
from memlane.storage.base import Backend

ACTOR = "system:ttl"


def unused_since(rec: MemoryRecord) -> datetime:
    """When the memory was last read or written."""
    return max(rec.updated_at, rec.last_accessed) if rec.last_accessed else rec.updated_at


def is_stale(rec: MemoryRecord, settings: Settings, now: datetime) -> bool:
    return (
        rec.state is MemoryState.ACTIVE
        and not rec.pinned
        and rec.importance < settings.memory_ttl_importance_below
        and unused_since(rec) < now - timedelta(days=settings.memory_ttl_days)
    )


def stale_ids(backend: Backend, user_id: str, settings: Settings, now: datetime, limit: int) -> list[str]:
    """Ids of the user's memories the policy retires, oldest write first (at most ``limit``)."""
    cutoff = now - timedelta(days=settings.memory_ttl_days)
    conds = [
        Condition("state", "$eq", MemoryState.ACTIVE.value),
        Condition("pinned", "$eq", False),
        Condition("importance", "$lt", settings.memory_ttl_importance_below),
        Condition("updated_at", "$lt", cutoff),
    ]
    found: list[str] = []
    offset = 0
    while len(found) < limit:
        page = backend.memories.list(user_id, conds, limit=500, offset=offset)
        found += [r.id for r in page if is_stale(r, settings, now)]
        if len(page) < 500:
            break
        offset += len(page)
    return found[:limit]


def expire(m: Mutation, stored: Sequence[MemoryRecord], settings: Settings, now: datetime) -> int:
    """Soft delete those of ``stored`` (as read under the write lock) that are still stale."""
    purge_at = now + timedelta(days=settings.memory_purge_after_days)
    done = 0
    for rec in stored:
        if is_stale(rec, settings, now):
            m.expire(
                rec,
                purge_at,
                f"ttl: unused since {unused_since(rec).date().isoformat()}, importance {rec.importance}",
            )
            done += 1
    return done
