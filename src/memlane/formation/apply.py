"""Turn a decision into one atomic write (records, vectors, history, relations, change log, op events)
and the events to publish once it has committed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from memlane.formation.decide import Decision
from memlane.formation.events import MemoryEvent
from memlane.formation.records import closed, merged, record_from_candidate
from memlane.model.audit import history_entry
from memlane.model.candidate import Candidate
from memlane.model.enums import HistoryEvent
from memlane.model.ids import deterministic_id, new_id
from memlane.model.jobs import Change, OpEvent
from memlane.model.record import MemoryRecord, Relation
from memlane.storage.base import ScoredRecord, Upsert, WriteBatch

ACTOR = "formation"


@dataclass
class Planned:
    batch: WriteBatch
    events: list[MemoryEvent] = field(default_factory=list)
    memory_id: str | None = None


@dataclass(frozen=True)
class Context:
    user_id: str
    thread_id: str | None
    at: datetime
    categories: list[str]
    tz: str
    link_min: float


def _change(ctx: Context, memory_id: str, event: str, **meta: object) -> Change:
    return Change(id=new_id(), user_id=ctx.user_id, thread_id=ctx.thread_id or "", memory_id=memory_id,
                  event=event, meta=dict(meta), at=ctx.at)


def _op(ctx: Context, op: str, d: Decision, memory_id: str | None, category: str | None) -> OpEvent:
    return OpEvent(id=new_id(), user_id=ctx.user_id, thread_id=ctx.thread_id, node="worker", op=op,
                   status="ok" if op != "ignore" else "skipped", memory_id=memory_id, category=category,
                   sim=d.score, at=ctx.at)


def _event(ctx: Context, kind: str, rec: MemoryRecord, **data: object) -> MemoryEvent:
    payload = {"id": rec.id, "type": rec.type.value, "category": rec.category, "summary": rec.summary, **data}
    return MemoryEvent(type=kind, user_id=ctx.user_id, thread_id=ctx.thread_id, memory_id=rec.id, data=payload)


def _links(ctx: Context, rec: MemoryRecord, neighbours: Sequence[ScoredRecord]) -> list[Relation]:
    return [Relation(from_id=rec.id, to_id=n.record.id, user_id=ctx.user_id, strength=round(n.score, 4),
                     created_at=ctx.at)
            for n in neighbours if n.score >= ctx.link_min and n.record.id != rec.id]


def plan(
    ctx: Context,
    cand: Candidate,
    d: Decision,
    vector: Sequence[float],
    neighbours: Sequence[ScoredRecord],
    old_vector: Sequence[float] | None = None,
) -> Planned:
    """``old_vector``: the superseded memory's vector, needed when it moves to an archive id."""
    b = WriteBatch()
    if d.action == "ignore" or d.target is None and d.action != "create":
        b.op_events.append(_op(ctx, "ignore", d, d.target.id if d.target else None, cand.category))
        return Planned(b, memory_id=d.target.id if d.target else None)
    if d.action == "create":
        rec = record_from_candidate(cand, user_id=ctx.user_id, thread_id=ctx.thread_id, at=ctx.at,
                                    categories=ctx.categories, tz=ctx.tz)
        b.upserts.append(Upsert(rec, vector))
        b.history.append(history_entry(HistoryEvent.ADD, memory_id=rec.id, user_id=ctx.user_id, new=rec,
                                       reason=d.reason, actor=ACTOR, at=ctx.at))
        b.relations.extend(_links(ctx, rec, neighbours))
        b.changes.append(_change(ctx, rec.id, "created", summary=rec.summary, category=rec.category,
                                 importance=rec.importance))
        b.op_events.append(_op(ctx, "create", d, rec.id, rec.category))
        return Planned(b, [_event(ctx, "memory.created", rec)], rec.id)
    target = d.target
    assert target is not None
    if d.action == "merge":
        new = merged(target, cand, ctx.at)
        b.upserts.append(Upsert(new))
        b.history.append(history_entry(HistoryEvent.MERGE, memory_id=target.id, user_id=ctx.user_id, old=target,
                                       new=new, reason=d.reason, actor=ACTOR, at=ctx.at))
        b.changes.append(_change(ctx, target.id, "merged", summary=target.summary, candidate=cand.summary))
        b.op_events.append(_op(ctx, "merge", d, target.id, target.category))
        return Planned(b, [_event(ctx, "memory.merged", new, candidate=cand.summary)], target.id)
    # supersede: the old fact closes (valid_to, superseded_by) and stays in history
    keyed = target.key is not None and target.id == deterministic_id(ctx.user_id, target.type.value, target.key)
    takes_key = keyed and cand.key in (None, target.key)
    fresh = record_from_candidate(cand, user_id=ctx.user_id, thread_id=ctx.thread_id, at=ctx.at,
                                  categories=ctx.categories, tz=ctx.tz,
                                  memory_id=target.id if takes_key else new_id())
    if fresh.id == target.id:  # the key keeps naming the current fact; the old one moves to an archive id
        fresh = fresh.model_copy(update={"created_at": target.created_at, "key": target.key,
                                         "pinned": target.pinned or cand.pinned})
        old = closed(target, at=ctx.at, superseded_by=fresh.id, memory_id=new_id())
        b.upserts += [Upsert(old, old_vector), Upsert(fresh, vector)]
        b.history.append(history_entry(HistoryEvent.SUPERSEDE, memory_id=fresh.id, user_id=ctx.user_id,
                                       old=target, new=fresh, reason=d.reason, actor=ACTOR, at=ctx.at))
    else:
        old = closed(target, at=ctx.at, superseded_by=fresh.id)
        b.upserts += [Upsert(old), Upsert(fresh, vector)]
        b.history.append(history_entry(HistoryEvent.ADD, memory_id=fresh.id, user_id=ctx.user_id, new=fresh,
                                       reason=f"supersedes {target.id}: {d.reason}", actor=ACTOR, at=ctx.at))
    b.history.append(history_entry(HistoryEvent.SUPERSEDE, memory_id=old.id, user_id=ctx.user_id, old=target,
                                   new=old, reason=f"superseded by {fresh.id}: {d.reason}", actor=ACTOR, at=ctx.at))
    for other in d.also:
        gone = closed(other, at=ctx.at, superseded_by=fresh.id)
        b.upserts.append(Upsert(gone))
        b.history.append(history_entry(HistoryEvent.SUPERSEDE, memory_id=other.id, user_id=ctx.user_id, old=other,
                                       new=gone, reason=f"superseded by {fresh.id}: contradicted", actor=ACTOR,
                                       at=ctx.at))
        b.changes.append(_change(ctx, other.id, "superseded", summary=other.summary, by=fresh.summary))
    closed_ids = {target.id, *(o.id for o in d.also)}
    b.relations.extend(_links(ctx, fresh, [n for n in neighbours if n.record.id not in closed_ids]))
    b.changes.append(_change(ctx, fresh.id, "updated", summary=fresh.summary, old_summary=target.summary,
                             category=fresh.category))
    b.op_events.append(_op(ctx, "supersede", d, fresh.id, fresh.category))
    events = [_event(ctx, "memory.changed_fact", fresh, old_id=old.id, old_summary=target.summary, reason=d.reason)]
    if fresh.id != target.id:
        events.append(_event(ctx, "memory.created", fresh))
    return Planned(b, events, fresh.id)
