"""Deciding a consent proposal (formation/consent.py): accept applies the change, reject keeps the memory.

Both read the proposal again under the user's write lock and write through the one write path: the
proposal's new status, a ``CONSENT`` history row naming the decider and a ``memory.proposal_decided``
event; accept also supersedes the memory as formation would have (history, events, links). A proposal
is decided once (the storage refuses a second decision); one whose memory changed since it was made is
refused (reject it, or say the new value again), and so is one past its expiry.
"""

from __future__ import annotations

from datetime import datetime

from memlane.formation.apply import Context
from memlane.formation.bands import bands_for
from memlane.formation.consent import why
from memlane.formation.decide import Decision
from memlane.formation.decide_job import writes_of
from memlane.formation.neighbours import neighbours as find_neighbours
from memlane.formation.pipeline import Formation
from memlane.ledger.commit import commit_planned
from memlane.ledger.mutations import Mutation
from memlane.model.consent import Proposal, ProposalStatus
from memlane.model.errors import ConflictError, NotFoundError
from memlane.model.filters import Condition, live
from memlane.model.record import MemoryRecord
from memlane.storage.base import Backend


def open_proposal(backend: Backend, user_id: str, proposal_id: str, now: datetime) -> Proposal:
    """The user's pending proposal of that id; NotFoundError or ConflictError (decided, expired) otherwise."""
    p = backend.proposals.get_proposal(user_id, proposal_id)
    if p is None:
        raise NotFoundError(f"no proposal {proposal_id!r} for user {user_id!r}")
    if p.status is not ProposalStatus.PENDING:
        raise ConflictError(
            f"proposal {proposal_id} was already {p.status.value} by {p.decided_by} at "
            f"{p.decided_at:%Y-%m-%d %H:%M} UTC; nothing was changed"
        )
    if p.expires_at <= now:
        raise ConflictError(
            f"proposal {proposal_id} expired at {p.expires_at:%Y-%m-%d %H:%M} UTC and can no longer "
            "be decided; nothing was changed"
        )
    return p


def accept(
    formation: Formation, user_id: str, proposal_id: str, *, actor: str, note: str | None, now: datetime
) -> Proposal:
    """Apply the proposed change: the memory is superseded as formation would have done it."""
    backend, settings = formation.backend, formation.settings
    p = open_proposal(backend, user_id, proposal_id, now)
    cand = p.candidate
    vector = formation.embedder.embed_one(cand.summary)  # outside the lock, as formation does
    conds = [*live(), Condition("type", "$eq", cand.type.value)]
    neighbours = find_neighbours(
        backend,
        formation.embedder,
        settings,
        user_id,
        cand.summary,
        vector,
        conds,
        limit=settings.memory_neighbors_k,
    )
    link = bands_for(formation.embedder.name, cand.type, settings).link
    done: list[Proposal] = []

    def build(stored: dict[str, MemoryRecord]) -> Mutation:
        q = open_proposal(backend, user_id, proposal_id, now)
        target = stored.get(q.memory_id)
        if target is None or not target.is_active or target.summary != q.current:
            now_says = f"it now says {target.summary!r} ({target.state.value})" if target else "it is gone"
            raise ConflictError(
                f"memory {q.memory_id} changed since proposal {q.id} was made ({now_says}); "
                "reject the proposal, or state the new value again; nothing was changed"
            )
        also = tuple(r for i in q.also if (r := stored.get(i)) is not None and r.is_active)
        d = Decision("supersede", f"{q.reason}; accepted by {actor}", target, None, also)
        # the fact holds from when it was said; the writes are dated when the decision was made
        ctx = Context(
            user_id, q.thread_id, q.observed_at, settings.categories, settings.timezone, link, actor, now
        )
        m = writes_of(formation, ctx, cand, d, vector, neighbours, gated=False).mutation
        done.append(q.decided(ProposalStatus.ACCEPTED, actor, note, now))
        m.consent(done[0], why(done[0]))
        return m

    commit_planned(backend, formation.bus, {user_id: [p.memory_id, *p.also]}, build)
    return done[0]


def reject(
    formation: Formation, user_id: str, proposal_id: str, *, actor: str, note: str | None, now: datetime
) -> Proposal:
    """Close the proposal; the memory stays as it is."""
    backend = formation.backend
    open_proposal(backend, user_id, proposal_id, now)
    done: list[Proposal] = []

    def build(_: dict[str, MemoryRecord]) -> Mutation:
        done.append(
            open_proposal(backend, user_id, proposal_id, now).decided(
                ProposalStatus.REJECTED, actor, note, now
            )
        )
        m = Mutation(actor=actor, at=now)
        m.consent(done[0], why(done[0]))
        return m

    commit_planned(backend, formation.bus, {user_id: []}, build)
    return done[0]
