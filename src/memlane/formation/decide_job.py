"""The decision of one candidate job: its neighbours, the keyed and implied memories, the judge's verdicts,
and the writes they come to (held for consent where a consent field changes), committed with the job."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from memlane.formation import consent
from memlane.formation.apply import Context, Planned, plan
from memlane.formation.bands import bands_for
from memlane.formation.decide import Decision, decide
from memlane.formation.faults import fault
from memlane.formation.implied import implied_memories
from memlane.formation.neighbours import neighbours as find_neighbours
from memlane.formation.observe import Decided
from memlane.ledger.commit import commit
from memlane.model.candidate import Candidate
from memlane.model.category import normalise_category
from memlane.model.consent import ProposalFilter, ProposalStatus
from memlane.model.enums import MemoryState, MemoryType
from memlane.model.filters import Condition, live
from memlane.model.ids import deterministic_id, new_id
from memlane.model.jobs import Job, OpEvent
from memlane.retrieval.embed_text import memory_text
from memlane.storage.base import ScoredRecord

if TYPE_CHECKING:
    from memlane.formation.pipeline import Formation

log = logging.getLogger("memlane.formation")


def writes_of(
    f: Formation,
    ctx: Context,
    cand: Candidate,
    d: Decision,
    vector: Sequence[float],
    neighbours: Sequence[ScoredRecord],
    *,
    gated: bool = True,
    candidate_id: str | None = None,
) -> Planned:
    """The writes of decision ``d``. ``gated``: a change to a consent field is held as a proposal
    instead, or applied with the proposal it corroborates (formation/consent.py)."""
    held = None
    field = consent.field_for(f.settings, cand, d) if gated else None
    if field is not None and d.target is not None:
        pending = f.backend.proposals.proposals(
            ctx.user_id, ProposalFilter(ProposalStatus.PENDING, d.target.id)
        )
        held = consent.gate(field, cand, d, pending, ctx, f.settings)
        if not held.applies:
            return consent.hold(ctx, cand, held, d.target)
        d = replace(d, reason=f"{d.reason}; {held.proposal.note}")
    old_vector = None
    if d.action == "supersede" and d.target is not None and d.target.key and d.target.user_id == ctx.user_id:
        old_vector = f.backend.memories.vectors(ctx.user_id, [d.target.id]).get(d.target.id)
    planned = plan(ctx, cand, d, vector, neighbours, old_vector, candidate_id=candidate_id)
    if held is not None and d.target is not None:
        consent.record(planned.mutation, held, d.target)
    if f.settings.memory_embedding_header:  # store what retrieval embeds (summary + header)
        upserts = planned.mutation.batch.upserts
        texts = [memory_text(up.record, f.settings) for up in upserts if up.embedding]
        vectors = iter(f.embedder.embed(texts)) if texts else iter(())
        for up in upserts:
            if up.embedding:
                up.embedding = next(vectors)
    return planned


def decide_candidate(f: Formation, job: Job) -> tuple[str, int]:
    """Decide a candidate job and commit its writes with the job; returns the action and how many
    neighbours it was judged against."""
    started = time.perf_counter()
    cand = Candidate.model_validate(job.payload["candidate"])
    at = datetime.fromisoformat(job.payload["at"])
    user = job.user_id
    with f.backend.user_lock(user):
        vector = f.embedder.embed_one(cand.summary)
        keyed = None
        if cand.key:
            found = f.backend.memories.get(user, deterministic_id(user, cand.type.value, cand.key))
            keyed = found if found is not None and found.state is MemoryState.ACTIVE else None
        conds = [*live(), Condition("type", "$eq", cand.type.value)]
        # memories linked to the user too: a correction of a shared fact unlinks it for this user
        neighbours = find_neighbours(
            f.backend,
            f.embedder,
            f.settings,
            user,
            cand.summary,
            vector,
            conds,
            limit=f.settings.memory_neighbors_k,
            shared=True,
        )
        category = normalise_category(cand.category, f.settings.categories)
        bands = bands_for(f.embedder.name, cand.type, f.settings, category)
        # an event ("sold my car") may retire a fact ("drives a Golf to work"): those are searched too
        kinds = (
            [cand.type.value, MemoryType.SEMANTIC.value]
            if cand.type is MemoryType.EPISODIC
            else [cand.type.value]
        )
        implied = implied_memories(
            f.backend,
            user,
            vector,
            f.llm.implied_terms(cand.summary),
            [*live(), Condition("type", "$in", kinds)],
            limit=f.settings.memory_neighbors_k,
        )
        d = decide(
            cand,
            at=at,
            keyed=keyed,
            neighbours=neighbours,
            llm=f.llm,
            bands=bands,
            merge_window=timedelta(hours=f.settings.episodic_merge_window_hours),
            heuristics=f.settings.memory_enable_entity_heuristics,
            implied=implied,
            user_id=user,
        )
        if job.payload.get("note"):  # changed on the way in (the hourly cap lowered its importance)
            d = replace(d, reason=f"{d.reason}; {job.payload['note']}")
        ctx = Context(
            user,
            job.thread_id,
            at,
            f.settings.categories,
            job.payload.get("tz") or f.settings.timezone,
            bands.link,
            node="episodic" if cand.type is MemoryType.EPISODIC else "worker",
        )
        planned = writes_of(f, ctx, cand, d, vector, neighbours, candidate_id=job.id)
        batch = planned.mutation.batch
        batch.op_events.insert(
            0,
            OpEvent(
                id=new_id(),
                user_id=user,
                thread_id=job.thread_id,
                node=ctx.node,
                op="search",
                category=cand.category,
                sim=neighbours[0].score if neighbours else None,
                at=at,
            ),
        )
        batch.complete_job, batch.job_owner = job.id, f.worker_id
        batch.job_result = {
            "action": planned.action,
            "memory_id": planned.memory_id,
            "summary": cand.summary,
            "turn": job.payload.get("turn"),
        }
        fault("before_commit")
        commit(f.backend, f.bus, planned.mutation)
    f.decisions.tell(
        Decided(planned.action, cand.type, d.score, cand.importance, time.perf_counter() - started)
    )
    event = f"episodic.{planned.action}" if cand.type is MemoryType.EPISODIC else "memory_decision"
    # a user's words (the fact, a reason quoting it) only at DEBUG: INFO logs reach stderr and log stores
    log.info(
        json.dumps(
            {
                "event": event,
                "user_id": user,
                "job": job.id,
                "action": planned.action,
                "target_id": d.target.id if d.target else None,
                "score": d.score,
            }
        )
    )
    log.debug(json.dumps({"event": event, "job": job.id, "fact": cand.summary, "reason": d.reason}))
    return planned.action, len(neighbours)
