"""Purging: what goes with a memory, and the due soft deletes.

A purge of a memory takes along, in the same write (docs/lifecycle.md, "What a purge forgets"):

* the older versions it superseded (they point at it with ``superseded_by``), transitively;
* the insights inferred from any of those (``metadata.inferred_from``): they are purged, not
  re-derived (a new inference would need a model call inside a purge, and could restate what was
  forgotten); the next insights run infers again from what is left;
* what a purged duplicate brought to the memory that absorbed it in a consolidation merge: the
  tags and entities it added (read from the survivor's ``absorbed`` history row) leave the survivor's
  record and every snapshot of its history; the survivor's own words stay.

The backend then removes every copy of the purged texts (history snapshots and the reasons of the
rows that quote them, change-log rows, proposals, job payloads; see ``storage/*/purge.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from memlane.ledger.mutations import Mutation
from memlane.model.enums import HistoryEvent, MemoryState, MemoryType
from memlane.model.filters import Condition
from memlane.model.record import MemoryRecord
from memlane.storage.base import Backend

ACTOR = "system:purge"
_MANY = 10_000


@dataclass
class Scope:
    """What purging some memories reaches, found before the write lock. ``ids``: the records to read
    under the lock (candidates to purge, and the survivors of merges they were absorbed into);
    ``brought``: per absorbed memory, the tags and entities it added to its survivor."""

    ids: list[str] = field(default_factory=list)
    brought: dict[str, tuple[str, ...]] = field(default_factory=dict)


def with_superseded(backend: Backend, user_id: str, memory_ids: Sequence[str]) -> list[str]:
    """``memory_ids`` and, transitively, the versions they superseded (which point at their successor)."""
    chain, frontier = list(memory_ids), list(memory_ids)
    while frontier:
        frontier = [
            r.id
            for r in backend.memories.list(
                user_id, [Condition("superseded_by", "$in", frontier)], limit=_MANY
            )
            if r.id not in chain
        ]
        chain += frontier
    return chain


def inferred_from(rec: MemoryRecord) -> set[str]:
    found = rec.metadata.get("inferred_from") if rec.type is MemoryType.INSIGHT else None
    return {i for i in found if isinstance(i, str)} if isinstance(found, list) else set()


def derived(insight: MemoryRecord, purged: Mapping[str, MemoryRecord]) -> bool:
    """Whether ``insight`` was inferred from one of ``purged``: it names one, or it names the memory that
    replaced one under the same id (a keyed fact) and was made while the purged version held."""
    sources = inferred_from(insight)
    return bool(sources & set(purged)) or any(
        p.superseded_by in sources
        and p.valid_to is not None
        and insight.created_at <= p.valid_to
        and (p.valid_from is None or p.valid_from <= insight.created_at)
        for p in purged.values()
    )


def scope(backend: Backend, user_id: str, memory_ids: Sequence[str]) -> Scope:
    """The memories a purge of ``memory_ids`` may take along (their superseded versions and the
    insights inferred from them, transitively), and the survivors of merges they were absorbed into."""
    chain = with_superseded(backend, user_id, memory_ids)
    insights = backend.memories.list(
        user_id, [Condition("type", "$eq", MemoryType.INSIGHT.value)], limit=_MANY
    )
    grown = True
    while grown:
        purged = {r.id: r for r in backend.memories.get_many(user_id, chain)}
        more = [r.id for r in insights if r.id not in chain and derived(r, purged)]
        chain = list(dict.fromkeys([*chain, *(with_superseded(backend, user_id, more) if more else [])]))
        grown = bool(more)
    out = Scope(ids=list(chain))
    for rec in backend.memories.get_many(user_id, chain):
        survivor = rec.superseded_by
        if survivor is None or survivor in chain:
            continue
        rows = [
            h
            for h in backend.memories.history(user_id, survivor, limit=_MANY)
            if h.event is HistoryEvent.MERGE and (h.reason or "").startswith(f"absorbed {rec.id}")
        ]
        if rows and rows[0].old_value is not None and rows[0].new_value is not None:
            before, after = rows[0].old_value, rows[0].new_value
            added = [
                w for f in ("tags", "entities") for w in after.get(f) or [] if w not in (before.get(f) or [])
            ]
            out.brought[rec.id] = tuple(dict.fromkeys(added))
            out.ids.append(survivor)
    return out


def purge_all(
    m: Mutation,
    stored: Mapping[str, MemoryRecord],
    targets: Iterable[str],
    reason: str,
    brought: Mapping[str, tuple[str, ...]],
) -> None:
    """Purge ``targets`` (as stored under the lock), the versions they superseded and the insights
    inferred from them; survivors of merges lose what a purged duplicate brought them."""
    chosen = {i for i in targets if i in stored}
    keep, grown = set(chosen), True
    while grown:
        purged = {i: stored[i] for i in keep}
        more = {
            r.id
            for r in stored.values()
            if r.id not in keep and (r.superseded_by in keep or derived(r, purged))
        }
        keep |= more
        grown = bool(more)
    current = dict(stored)
    for rid in sorted(keep):
        rec = stored[rid]
        if rec.state is MemoryState.PURGED:
            continue
        why = (
            reason if rid in chosen or not inferred_from(rec) else f"{reason} (inferred from a purged memory)"
        )
        survivor = current.get(rec.superseded_by or "")
        if survivor is not None and survivor.id not in keep and rid in survivor.merged_from:
            kept = m.purge(rec, why, absorbed_by=survivor, brought=brought.get(rid, ()))
            current[survivor.id] = kept or survivor
        else:
            m.purge(rec, why)


def due_ids(backend: Backend, user_id: str, now: datetime, limit: int) -> list[str]:
    conds = [Condition("state", "$eq", MemoryState.SOFT_DELETED.value), Condition("purge_at", "$lte", now)]
    return [r.id for r in backend.memories.list(user_id, conds, limit=limit)]


def purge_due(
    m: Mutation,
    stored: Mapping[str, MemoryRecord],
    due: Sequence[str],
    now: datetime,
    brought: Mapping[str, tuple[str, ...]],
) -> int:
    """Purge the due memories that are still soft deleted and due (a restore since cancels it), with
    what goes along (:func:`purge_all`). ``stored``: the scope as read under the write lock."""
    heads = [
        r
        for r in (stored.get(i) for i in due)
        if r is not None
        and r.state is MemoryState.SOFT_DELETED
        and r.purge_at is not None
        and r.purge_at <= now
    ]
    purge_all(m, stored, [r.id for r in heads], "purge: soft deleted and past purge_at", brought)
    return len(heads)
