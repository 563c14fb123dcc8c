"""Turn a decision into one atomic write through the write path (:mod:`memlane.ledger.mutations`):
records, vectors, history, relations, change-log rows and op events, and the events they publish."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from memlane.formation.decide import Decision
from memlane.formation.records import closed, merged, record_from_candidate
from memlane.ledger.mutations import Mutation
from memlane.model.candidate import Candidate
from memlane.model.enums import MemoryState
from memlane.model.ids import deterministic_id, new_id
from memlane.model.jobs import OpEvent
from memlane.model.record import MemoryRecord, Relation
from memlane.storage.base import ScoredRecord

ACTOR = "formation"


@dataclass
class Planned:
    mutation: Mutation
    memory_id: str | None = None
    action: str = "ignore"


@dataclass(frozen=True)
class Context:
    user_id: str
    thread_id: str | None
    at: datetime
    categories: list[str]
    tz: str
    link_min: float
    actor: str = ACTOR  # who the writes' history names (an accepted proposal: its decider)
    written: datetime | None = None  # when the writes are made, if not ``at`` (an accepted proposal)
    node: str = "worker"  # the op events' node: "episodic" for an episode from the post-turn capture


def _op(ctx: Context, op: str, d: Decision, memory_id: str | None, category: str | None) -> OpEvent:
    return OpEvent(
        id=new_id(),
        user_id=ctx.user_id,
        thread_id=ctx.thread_id,
        node=ctx.node,
        op=op,
        status="ok" if op != "ignore" else "skipped",
        memory_id=memory_id,
        category=category,
        sim=d.score,
        at=ctx.at,
    )


def _links(ctx: Context, rec: MemoryRecord, neighbours: Sequence[ScoredRecord]) -> list[Relation]:
    return [
        Relation(
            from_id=rec.id,
            to_id=n.record.id,
            user_id=ctx.user_id,
            strength=round(n.score, 4),
            created_at=ctx.at,
        )
        for n in neighbours
        if n.score >= ctx.link_min and n.record.id != rec.id
    ]


def plan(
    ctx: Context,
    cand: Candidate,
    d: Decision,
    vector: Sequence[float],
    neighbours: Sequence[ScoredRecord],
    old_vector: Sequence[float] | None = None,
    candidate_id: str | None = None,
) -> Planned:
    """``old_vector``: the superseded memory's vector, needed when it moves to an archive id;
    ``candidate_id``: the candidate's job id: the id of the memory it creates (unless a key names it),
    recorded in ``merged_from`` by a merge (formation/provisional.py)."""
    m = Mutation(actor=ctx.actor, thread_id=ctx.thread_id, at=ctx.written or ctx.at)
    b = m.batch
    if d.action == "ignore" or d.target is None and d.action != "create":
        b.op_events.append(_op(ctx, "ignore", d, d.target.id if d.target else None, cand.category))
        return Planned(m, d.target.id if d.target else None)
    if d.action == "create":
        rec = record_from_candidate(
            cand,
            user_id=ctx.user_id,
            thread_id=ctx.thread_id,
            at=ctx.at,
            categories=ctx.categories,
            tz=ctx.tz,
            memory_id=None if cand.key else candidate_id,  # the id the hot path handed back
        )
        m.create(rec, vector, d.reason, _links(ctx, rec, neighbours))
        b.op_events.append(_op(ctx, "create", d, rec.id, rec.category))
        return Planned(m, rec.id, "create")
    target = d.target
    assert target is not None
    if d.action == "history" and target.user_id != ctx.user_id:  # not theirs: nothing of it to keep
        b.op_events.append(_op(ctx, "ignore", d, target.id, cand.category))
        return Planned(m, target.id)
    if d.action == "history":
        return _history(ctx, cand, d, target, vector, m)
    if target.user_id != ctx.user_id:
        return _over_linked(ctx, cand, d, target, vector, neighbours, m)
    if d.action == "merge":
        kept = merged(target, cand, ctx.at, candidate_id)
        if d.reword:
            kept = kept.model_copy(update={"summary": cand.summary})
        m.merge(target, kept, d.reason, cand.summary, candidate_id, vector if d.reword else None)
        b.op_events.append(_op(ctx, "merge", d, target.id, target.category))
        return Planned(m, target.id, "merge")
    # supersede: the old fact closes (valid_to, superseded_by) and stays in history
    keyed = target.key is not None and target.id == deterministic_id(
        ctx.user_id, target.type.value, target.key
    )
    takes_key = keyed and cand.key in (None, target.key)
    fresh = record_from_candidate(
        cand,
        user_id=ctx.user_id,
        thread_id=ctx.thread_id,
        at=ctx.at,
        categories=ctx.categories,
        tz=ctx.tz,
        memory_id=target.id if takes_key else candidate_id or new_id(),
    )
    if fresh.id == target.id:  # the key keeps naming the current fact; the old one moves to an archive id
        fresh = fresh.model_copy(
            update={
                "created_at": target.created_at,
                "key": target.key,
                "pinned": target.pinned or cand.pinned,
            }
        )
        old = closed(target, at=ctx.at, superseded_by=fresh.id, memory_id=new_id())
    else:
        old, old_vector = closed(target, at=ctx.at, superseded_by=fresh.id), None
    closed_ids = {target.id, *(o.id for o in d.also)}
    m.supersede(
        target,
        fresh,
        old,
        vector,
        old_vector,
        d.reason,
        _links(ctx, fresh, [n for n in neighbours if n.record.id not in closed_ids]),
    )
    _close_others(ctx, m, d, fresh)
    b.op_events.append(_op(ctx, "supersede", d, fresh.id, fresh.category))
    return Planned(m, fresh.id, "supersede")


def _history(
    ctx: Context, cand: Candidate, d: Decision, target: MemoryRecord, vector: Sequence[float], m: Mutation
) -> Planned:
    """A statement observed before ``target`` arrived after it (turns processed out of order): it is
    stored as ``target``'s earlier version, superseded by it from the time ``target`` was observed,
    so the history holds both and the current fact stays."""
    fresh = record_from_candidate(
        cand,
        user_id=ctx.user_id,
        thread_id=ctx.thread_id,
        at=ctx.at,
        categories=ctx.categories,
        tz=ctx.tz,
        memory_id=new_id(),
    )
    until = target.valid_from or target.created_at
    old = fresh.model_copy(
        update={
            "state": MemoryState.SUPERSEDED,
            "superseded_by": target.id,
            "key": None,
            "valid_to": max(until, fresh.valid_from or until),
        }
    )
    m.archive(old, vector, target, d.reason)
    m.batch.op_events.append(_op(ctx, "history", d, old.id, old.category))
    return Planned(m, old.id, "history")


def _close_others(ctx: Context, m: Mutation, d: Decision, fresh: MemoryRecord) -> None:
    """The further memories ``fresh`` contradicts: the user's own close; linked ones are unlinked for
    this user only (their owner's memory, and the other users' links, stay)."""
    for other in d.also:
        if other.user_id == ctx.user_id:
            m.close(other, closed(other, at=ctx.at, superseded_by=fresh.id), fresh, "contradicted")
        else:
            m.unshare(ctx.user_id, other.id, f"contradicted by {fresh.id}", replaced_by=fresh.id)


def _over_linked(
    ctx: Context,
    cand: Candidate,
    d: Decision,
    target: MemoryRecord,
    vector: Sequence[float],
    neighbours: Sequence[ScoredRecord],
    m: Mutation,
) -> Planned:
    """A decision about a memory the user sees through a link (shared with them, or global): it is not
    theirs to change, and it is not what they said. A correction unlinks it for this user and creates
    their own memory (old link removed, new memory inserted, audit row). ``decide()`` never
    merges a candidate into it; should a merge come, the user's words still become their own memory and
    the link stays (the owner's retraction must not take the user's statement with it)."""
    fresh = record_from_candidate(
        cand, user_id=ctx.user_id, thread_id=ctx.thread_id, at=ctx.at, categories=ctx.categories, tz=ctx.tz
    )
    if d.action == "merge":
        m.create(
            fresh,
            vector,
            f"the user's own statement, not merged into a memory shared with them: {d.reason}",
            _links(ctx, fresh, neighbours),
        )
        m.batch.op_events.append(_op(ctx, "create", d, fresh.id, fresh.category))
        return Planned(m, fresh.id, "create")
    closed_ids = {target.id, *(o.id for o in d.also)}
    m.create(
        fresh,
        vector,
        f"replaces shared memory {target.id} for this user: {d.reason}",
        _links(ctx, fresh, [n for n in neighbours if n.record.id not in closed_ids]),
    )
    m.unshare(ctx.user_id, target.id, f"superseded by {fresh.id}: {d.reason}", replaced_by=fresh.id)
    _close_others(ctx, m, d, fresh)
    m.batch.op_events.append(_op(ctx, "supersede", d, fresh.id, fresh.category))
    return Planned(m, fresh.id, "supersede")
