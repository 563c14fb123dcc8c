"""Purging: soft-deleted memories whose ``purge_at`` has passed are forgotten for good, with the older
versions they superseded (the same forgetting as :meth:`Memory.purge`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memlane.formation.mutations import Mutation
from memlane.model.enums import MemoryState
from memlane.model.filters import Condition
from memlane.model.record import MemoryRecord
from memlane.storage.base import Backend

ACTOR = "system:purge"


def with_superseded(backend: Backend, user_id: str, memory_ids: Sequence[str]) -> list[str]:
    """``memory_ids`` and, transitively, the versions they superseded (which point at their successor)."""
    chain, frontier = list(memory_ids), list(memory_ids)
    while frontier:
        frontier = [r.id for r in backend.list(user_id, [Condition("superseded_by", "$in", frontier)],
                                               limit=10_000) if r.id not in chain]
        chain += frontier
    return chain


def due_ids(backend: Backend, user_id: str, now: datetime, limit: int) -> list[str]:
    conds = [Condition("state", "$eq", MemoryState.SOFT_DELETED.value), Condition("purge_at", "$lte", now)]
    return [r.id for r in backend.list(user_id, conds, limit=limit)]


def purge_due(m: Mutation, stored: Sequence[MemoryRecord], due: Sequence[str], now: datetime) -> int:
    """Purge the due memories that are still soft deleted and due (a restore since cancels it), and the
    versions they superseded. ``stored``: the chain as read under the write lock."""
    by_id = {r.id: r for r in stored}
    heads = [r for r in (by_id.get(i) for i in due) if r is not None and r.state is MemoryState.SOFT_DELETED
             and r.purge_at is not None and r.purge_at <= now]
    keep = {r.id for r in heads}
    grown = True
    while grown:  # the versions a head superseded, transitively, go with it
        more = {r.id for r in stored if r.superseded_by in keep} - keep
        keep |= more
        grown = bool(more)
    for rec in stored:
        if rec.id in keep and rec.state is not MemoryState.PURGED:
            m.purge(rec, "purge: soft deleted and past purge_at")
    return len(heads)
