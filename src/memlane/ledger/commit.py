"""Committing a write: the batch in one transaction, then one event per change row.

Every writer (the engine's writes, formation, lifecycle, import, reembed, the LangGraph store through
the engine) commits here, so a change row and its event can never be written one without the other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from memlane.ledger.bus import EventBus
from memlane.ledger.change_events import event_from_change
from memlane.ledger.mutations import Mutation
from memlane.model.record import MemoryRecord
from memlane.storage.base import Backend, WriteBatch


def commit(backend: Backend, bus: EventBus | None, mutation: Mutation) -> None:
    """Write the batch atomically, then publish one event per change row (with its sequence number)."""
    backend.apply(mutation.batch)
    _publish(bus, mutation)


def commit_planned(
    backend: Backend,
    bus: EventBus | None,
    reads: Mapping[str, Sequence[str]],
    plan: Callable[[dict[str, MemoryRecord]], Mutation],
) -> Mutation:
    """Read-modify-write: ``plan`` builds the mutation from the records ``reads`` names (user id ->
    ids) as stored under the write transaction's lock, so concurrent writers never plan from the
    same stale read (see :meth:`Backend.apply_planned`). An exception in ``plan`` writes nothing."""
    made: list[Mutation] = []

    def build(stored: dict[str, MemoryRecord]) -> WriteBatch:
        made[:] = [plan(stored)]
        return made[0].batch

    backend.apply_planned(reads, build)
    _publish(bus, made[0])
    return made[0]


def _publish(bus: EventBus | None, mutation: Mutation) -> None:
    if bus is not None:
        for change in mutation.batch.changes:
            bus.publish(event_from_change(change))
