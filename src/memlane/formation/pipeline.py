"""Formation: accept a turn (hot path), then decide each candidate in the background, durably."""

from __future__ import annotations

import json
import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from memlane import telemetry
from memlane.formation import consent
from memlane.formation.apply import Context, Planned, plan
from memlane.formation.bands import bands_for
from memlane.formation.capture import CAPTURE, capture_job, episode_candidate, episodes
from memlane.formation.continuation import extend, extended, running_episode
from memlane.formation.decide import Decision, decide
from memlane.formation.episodic_guard import EpisodicGuard
from memlane.formation.hotpath import (
    CANDIDATE,
    TURN,
    Dropped,
    cap_candidates,
    enqueue_candidates,
    extract,
    related_memories,
    select,
    turn_job,
)
from memlane.formation.implied import implied_memories
from memlane.formation.neighbours import neighbours as find_neighbours
from memlane.formation.observe import Decided, DecisionWatch
from memlane.formation.retry import next_attempt
from memlane.ledger.bus import EventBus
from memlane.ledger.commit import commit
from memlane.ledger.events import MemoryEvent
from memlane.ledger.mutations import Mutation
from memlane.model.candidate import Candidate, ChatMessage, Episode
from memlane.model.category import normalise_category
from memlane.model.config import Settings
from memlane.model.consent import ProposalFilter, ProposalStatus
from memlane.model.enums import MemoryState, MemoryType
from memlane.model.errors import LeaseLostError, MemlaneError, ProviderError
from memlane.model.filters import Condition, live
from memlane.model.ids import deterministic_id, new_id
from memlane.model.jobs import Job, JobStatus, OpEvent
from memlane.model.record import utcnow
from memlane.providers.embed import Embedder
from memlane.providers.llm.base import MemoryLLM
from memlane.retrieval.embed_text import memory_text
from memlane.storage.base import Backend, ScoredRecord, WriteBatch
from memlane.telemetry import record, span

log = logging.getLogger("memlane.formation")
LEASE_SECONDS = 60.0


def fault(point: str) -> None:
    """Crash-test hook: ``MEMLANE_FAULT=<point>`` ends the process there (tests kill a worker mid-job)."""
    if os.environ.get("MEMLANE_FAULT") == point:
        os._exit(86)


# a candidate's decision -> its count in the per-run decision record
DECIDED = {
    "create": "created",
    "merge": "merged",
    "supersede": "superseded",
    "ignore": "ignored",
    "history": "kept_as_history",
    "propose": "proposed",
}


class Formation:
    def __init__(
        self,
        backend: Backend,
        embedder: Embedder,
        llm_factory: Callable[[], MemoryLLM],
        settings: Settings,
        bus: EventBus,
    ) -> None:
        self.backend, self.embedder, self.settings, self.bus = backend, embedder, settings, bus
        self._llm_factory = llm_factory
        self._llm: MemoryLLM | None = None
        self.worker_id = f"w-{os.getpid()}-{new_id()[:8]}"
        self.lease_seconds = LEASE_SECONDS
        self.decisions = DecisionWatch()  # told of each committed decision (the server's metrics)

    @property
    def llm(self) -> MemoryLLM:
        if self._llm is None:
            self._llm = self._llm_factory()
        return self._llm

    # --- hot path ------------------------------------------------------------------------------
    def accept(
        self, messages: Sequence[ChatMessage], *, user_id: str, thread_id: str | None, at: datetime
    ) -> tuple[str, list[Candidate]]:
        """The turn's job id and the candidates extracted from it."""
        job = self.lease_turn(messages, user_id=user_id, thread_id=thread_id, at=at)
        return job.id, self.extract_leased(job, messages, at)

    def lease_turn(
        self, messages: Sequence[ChatMessage], *, user_id: str, thread_id: str | None, at: datetime
    ) -> Job:
        """Commit the turn as a job leased to this call (the hot path extracts it next)."""
        job = turn_job(user_id, thread_id, messages, at, self.lease_seconds)
        self.backend.apply(WriteBatch(jobs=[job]))  # durable before anything else happens
        return job

    def extract_leased(self, job: Job, messages: Sequence[ChatMessage], at: datetime) -> list[Candidate]:
        """Extract the turn :meth:`lease_turn` committed; a failure leaves it a job the worker retries."""
        try:
            return self._extract_turn(job, list(messages), at)
        except LeaseLostError as exc:  # slower than the lease: a worker took the turn over and extracts it
            log.warning("turn %s: %s", job.id, exc)
            return []
        except ProviderError as exc:  # the turn stays a job and is retried by the worker
            self.failed(job, exc)
            return []
        except Exception as exc:  # noqa: BLE001 - an extractor bug parks the turn (kept, visible), not "no memory"
            log.exception("extraction failed for job %s", job.id)
            self.failed(job, exc)
            return []

    def enqueue_turn(
        self, messages: Sequence[ChatMessage], *, user_id: str, thread_id: str | None, at: datetime
    ) -> str:
        """Commit the turn as a pending job and return its id; nothing is extracted here (the worker does it)."""
        job = turn_job(user_id, thread_id, messages, at, None)
        self.backend.apply(WriteBatch(jobs=[job]))
        return job.id

    def enqueue_capture(
        self,
        messages: Sequence[ChatMessage],
        *,
        user_id: str,
        thread_id: str | None,
        at: datetime,
        time_zone: str,
    ) -> str:
        """Commit a finished turn for episodic capture (the worker decides it) and return the job's id."""
        job = capture_job(user_id, thread_id, messages, at, time_zone)
        self.backend.apply(WriteBatch(jobs=[job]))
        return job.id

    def enqueue_facts(
        self, facts: Sequence[Candidate], *, user_id: str, thread_id: str | None, at: datetime
    ) -> list[str]:
        """Ready candidates skip extraction: one committed candidate job each; returns their ids."""
        return [j.id for j in enqueue_candidates(self.backend, user_id, thread_id, facts, at)]

    def _extract_turn(self, job: Job, messages: list[ChatMessage], at: datetime) -> list[Candidate]:
        with span("formation.extract", messages=len(messages)) as current:
            kept, dropped = self._extract(job, messages, at)
            record(current, candidates=len(kept), dropped=len(dropped))
        return kept

    def _extract(
        self, job: Job, messages: list[ChatMessage], at: datetime
    ) -> tuple[list[Candidate], list[Dropped]]:
        existing = related_memories(self.backend, self.llm, job.user_id, messages)
        extraction = extract(
            self.llm, messages, self.settings, existing
        )  # ProviderError: the caller keeps the job
        found = extraction.candidates
        if self.settings.episodic_capture:  # episodes come from the capture after the answer
            found = [c for c in found if c.type is not MemoryType.EPISODIC]
        proposed, dropped = cap_candidates(found, self.settings)
        guard = EpisodicGuard(
            self.backend, self.embedder, self.settings
        )  # the current embedder (metrics wrap it)
        guarded, skipped = guard.filter(job, at, proposed)
        now = utcnow()
        last_hour = self.backend.jobs.count_jobs(job.user_id, CANDIDATE, now - timedelta(hours=1))
        last_day = self.backend.jobs.count_jobs(job.user_id, CANDIDATE, now - timedelta(days=1))
        selected = select(guarded, self.settings, last_hour, last_day)
        kept = selected.kept
        dropped += skipped + selected.dropped
        jobs = enqueue_candidates(
            self.backend,
            job.user_id,
            job.thread_id,
            kept,
            at,
            dropped=dropped,
            notes=selected.notes,
            turn_id=job.id,
            owner=job.locked_by,
        )
        for cand, cjob in zip(kept, jobs, strict=True):  # the candidate job's id names the candidate
            self.bus.publish(
                MemoryEvent(
                    type="memory.candidate",
                    user_id=job.user_id,
                    thread_id=job.thread_id,
                    data={
                        **cand.model_dump(mode="json"),
                        "turn": job.id,
                        "candidate_id": cjob.id,
                        **({"note": cjob.payload["note"]} if "note" in cjob.payload else {}),
                    },
                )
            )
        for d in dropped:  # reported, never silently lost
            self._error(job, d.message, d.code)
        return kept, dropped

    # --- background ---------------------------------------------------------------------------
    def run_once(self) -> bool:
        """Claim and process one job; False when none is runnable."""
        return self._claim_and_run() is not None

    def _claim_and_run(self) -> str | None:
        """Claim and process one job: None when none is runnable, else what it did: a candidate's decision,
        "failed", or "" (other work)."""
        job = self.backend.jobs.claim_job(
            self.worker_id,
            lease_seconds=self.lease_seconds,
            now=utcnow(),
            kinds=(TURN, CANDIDATE, CAPTURE, *self.backend.job_kinds),
        )
        if job is None:
            return None
        with span("job", kind=job.kind, attempt=job.attempts):
            return self._run(job) or ""

    def _run(self, job: Job) -> str | None:
        try:
            if job.kind in self.backend.job_kinds:  # the backend's own work (a vector channel's sync)
                result = self.backend.run_job(job)
                self.backend.apply(
                    WriteBatch(complete_job=job.id, job_owner=self.worker_id, job_result=result)
                )
            elif job.kind == TURN:
                messages = [ChatMessage.model_validate(m) for m in job.payload["messages"]]
                self._extract_turn(job, messages, datetime.fromisoformat(job.payload["at"]))
            elif job.kind == CANDIDATE:
                return self._decide(job)
            elif job.kind == CAPTURE:
                self._capture(job)
            else:
                raise MemlaneError(f"unknown job kind {job.kind!r}")
        except LeaseLostError as exc:  # another worker took the job over and decides it: nothing was written
            log.warning("job %s: %s", job.id, exc)
        except Exception as exc:  # noqa: BLE001 - the job is retried or parked, never dropped
            self.failed(job, exc)
            return "failed"
        return None

    def finish(
        self, user_id: str, job_ids: Sequence[str], poll: float = 0.02, until: float | None = None
    ) -> None:
        """Run what is runnable here, then wait while another worker (this process's background one, or
        a ``memlane worker``) still runs one of ``job_ids`` or the candidate jobs they made, or one of them
        is due but held back behind another candidate of the user (storage/parts/jobs.py SERIAL_KINDS): a
        caller that asked to wait sees every decision. A job waiting out a retry backoff is not waited for;
        a worker that died is waited for until its lease ends. ``until``: a ``time.monotonic()`` deadline."""
        deadline = min(time.monotonic() + self.lease_seconds, until if until is not None else float("inf"))
        while True:
            self.drain(until=deadline)
            jobs, now = self.jobs_of(user_id, job_ids), utcnow()
            busy = [
                j
                for j in jobs
                if j.status is JobStatus.RUNNING or (j.status is JobStatus.PENDING and j.run_after <= now)
            ]
            if not busy or time.monotonic() > deadline:
                return
            time.sleep(poll)

    def jobs_of(self, user_id: str, job_ids: Sequence[str]) -> list[Job]:
        """The user's jobs of ``job_ids`` and the candidate jobs they made."""
        jobs = self.backend.jobs.get_jobs(user_id, list(job_ids))
        made = [i for j in jobs for i in j.payload.get("candidate_jobs", [])]
        return jobs + (self.backend.jobs.get_jobs(user_id, made) if made else [])

    def drain(self, max_jobs: int | None = None, until: float | None = None) -> int:
        """Run runnable jobs in this thread (at most ``max_jobs``; none started after ``until``, a
        ``time.monotonic()`` deadline); returns how many ran."""
        ran, done = 0, Counter[str]()
        while (max_jobs is None or ran < max_jobs) and (until is None or time.monotonic() < until):
            outcome = self._claim_and_run()
            if outcome is None:
                break
            ran += 1
            done[outcome] += 1
        decided = {DECIDED.get(k, k): n for k, n in done.items() if k not in ("", "failed")}
        if decided or done["failed"]:  # one record per run (the decision log), no user's words
            log.info(
                json.dumps({"event": "memory.decisions", "jobs": ran, **decided, "failed": done["failed"]})
            )
        return ran

    def failed(self, job: Job, exc: Exception) -> None:
        error = f"{type(exc).__name__}: {exc}"
        now = utcnow()
        retry_at = next_attempt(job, exc, self.settings, now)
        telemetry.failed(exc, parked=retry_at is None)
        self.backend.jobs.fail_job(job.id, error, retry_at=retry_at)
        if retry_at is None:
            log.error("job %s parked after %d attempts: %s", job.id, job.attempts, error)
        else:
            log.warning(
                "job %s failed (attempt %d), retry in %.1fs: %s",
                job.id,
                job.attempts,
                (retry_at - now).total_seconds(),
                error,
            )
        self._error(job, error, "job_failed")

    def _error(self, job: Job, message: str, code: str) -> None:
        self.bus.publish(
            MemoryEvent(
                type="memory.error",
                user_id=job.user_id,
                thread_id=job.thread_id,
                data={"code": code, "message": message, "job": job.id},
            )
        )

    def _capture(self, job: Job) -> None:
        with span("formation.capture") as current:
            kept, dropped = self._capture_job(job)
            record(current, candidates=kept, dropped=dropped)

    def _capture_job(self, job: Job) -> tuple[int, int]:
        """A finished turn: skipped as routine, or one episodic candidate through the episodic guard.
        Returns how many candidates it kept and how many the guard left out."""
        guard = EpisodicGuard(self.backend, self.embedder, self.settings)
        episode, kept, dropped = episodes(job, self.llm, guard, self.settings)
        at = datetime.fromisoformat(job.payload["at"])
        if any(d.code == "episodic_cooldown" for d in dropped) and self._continue(job, episode, at):
            return 1, 0
        if not episode.should_create or not (kept or dropped):
            self.backend.apply(
                WriteBatch(
                    op_events=[
                        OpEvent(
                            id=new_id(),
                            user_id=job.user_id,
                            thread_id=job.thread_id,
                            node="episodic",
                            op="skip",
                            status="skipped",
                            at=at,
                        )
                    ],
                    complete_job=job.id,
                    job_owner=job.locked_by,
                    job_result={
                        "action": "skip",
                        "reason": episode.reason,
                        "at": at.isoformat(),
                        "episodic": 0,
                    },
                )
            )
            log.info(json.dumps({"event": "episodic.skip", "user_id": job.user_id, "job": job.id}))
            log.debug(json.dumps({"event": "episodic.skip", "job": job.id, "reason": episode.reason}))
            return 0, 0
        jobs = enqueue_candidates(
            self.backend,
            job.user_id,
            job.thread_id,
            kept,
            at,
            dropped=dropped,
            turn_id=job.id,
            owner=job.locked_by,
            time_zone=job.payload.get("tz"),
            node="episodic",
        )
        log.info(
            json.dumps(
                {
                    "event": "episodic.decide",
                    "user_id": job.user_id,
                    "job": job.id,
                    "outcome": episode.outcome,
                    "kept": len(kept),
                    "dropped": [d.code for d in dropped],
                }
            )
        )
        for cand, cjob in zip(kept, jobs, strict=True):
            self.bus.publish(
                MemoryEvent(
                    type="memory.candidate",
                    user_id=job.user_id,
                    thread_id=job.thread_id,
                    data={**cand.model_dump(mode="json"), "turn": job.id, "candidate_id": cjob.id},
                )
            )
        for d in dropped:
            self._error(job, d.message, d.code)
        return len(kept), len(dropped)

    def _continue(self, job: Job, episode: Episode, at: datetime) -> bool:
        """Within the cooldown, the turn's episode extends the running one (formation/continuation.py), its
        update and the capture job's end written together. False when there is none to extend."""
        tz = job.payload.get("tz") or self.settings.timezone
        cand = episode_candidate(episode, at, tz, self.settings.memory_candidate_max_chars)
        with self.backend.user_lock(job.user_id):
            running = running_episode(
                self.backend, job.user_id, job.thread_id, at, self.settings.episodic_cooldown_minutes
            )
            text = (
                running
                and cand
                and extended(running.summary, cand.summary, self.settings.memory_candidate_max_chars)
            )
            if not running or not text:
                return False
            m = Mutation(actor="episodic", thread_id=job.thread_id, at=at)
            extend(running, text, self.embedder.embed_one(text), at, m)
            m.batch.op_events.append(
                OpEvent(
                    id=new_id(),
                    user_id=job.user_id,
                    thread_id=job.thread_id,
                    node="episodic",
                    op="merge",
                    status="ok",
                    at=at,
                )
            )
            m.batch.complete_job, m.batch.job_owner = job.id, job.locked_by
            m.batch.job_result = {
                "action": "extend",
                "memory_id": running.id,
                "at": at.isoformat(),
                "episodic": 0,
            }
            commit(self.backend, self.bus, m)
        log.info(
            json.dumps(
                {
                    "event": "episodic.merge",
                    "user_id": job.user_id,
                    "job": job.id,
                    "memory_id": running.id,
                    "reason": "a later outcome within the cooldown",
                }
            )
        )
        return True

    def planned(
        self,
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
        field = consent.field_for(self.settings, cand, d) if gated else None
        if field is not None and d.target is not None:
            pending = self.backend.proposals.proposals(
                ctx.user_id, ProposalFilter(ProposalStatus.PENDING, d.target.id)
            )
            held = consent.gate(field, cand, d, pending, ctx, self.settings)
            if not held.applies:
                return consent.hold(ctx, cand, held, d.target)
            d = replace(d, reason=f"{d.reason}; {held.proposal.note}")
        old_vector = None
        if (
            d.action == "supersede"
            and d.target is not None
            and d.target.key
            and d.target.user_id == ctx.user_id
        ):
            old_vector = self.backend.memories.vectors(ctx.user_id, [d.target.id]).get(d.target.id)
        planned = plan(ctx, cand, d, vector, neighbours, old_vector, candidate_id=candidate_id)
        if held is not None and d.target is not None:
            consent.record(planned.mutation, held, d.target)
        if self.settings.memory_embedding_header:  # store what retrieval embeds (summary + header)
            upserts = planned.mutation.batch.upserts
            texts = [memory_text(up.record, self.settings) for up in upserts if up.embedding]
            vectors = iter(self.embedder.embed(texts)) if texts else iter(())
            for up in upserts:
                if up.embedding:
                    up.embedding = next(vectors)
        return planned

    def _decide(self, job: Job) -> str:
        with span("formation.decide") as current:
            action, neighbours = self._decide_job(job)
            record(current, action=action, neighbours=neighbours)
        return action

    def _decide_job(self, job: Job) -> tuple[str, int]:
        cand = Candidate.model_validate(job.payload["candidate"])
        at = datetime.fromisoformat(job.payload["at"])
        user = job.user_id
        with self.backend.user_lock(user):
            vector = self.embedder.embed_one(cand.summary)
            keyed = None
            if cand.key:
                found = self.backend.memories.get(user, deterministic_id(user, cand.type.value, cand.key))
                keyed = found if found is not None and found.state is MemoryState.ACTIVE else None
            conds = [*live(), Condition("type", "$eq", cand.type.value)]
            # memories linked to the user too: a correction of a shared fact unlinks it for this user
            neighbours = find_neighbours(
                self.backend,
                self.embedder,
                self.settings,
                user,
                cand.summary,
                vector,
                conds,
                limit=self.settings.memory_neighbors_k,
                shared=True,
            )
            category = normalise_category(cand.category, self.settings.categories)
            bands = bands_for(self.embedder.name, cand.type, self.settings, category)
            # an event ("sold my car") may retire a fact ("drives a Golf to work"): those are searched too
            kinds = (
                [cand.type.value, MemoryType.SEMANTIC.value]
                if cand.type is MemoryType.EPISODIC
                else [cand.type.value]
            )
            implied = implied_memories(
                self.backend,
                user,
                vector,
                self.llm.implied_terms(cand.summary),
                [*live(), Condition("type", "$in", kinds)],
                limit=self.settings.memory_neighbors_k,
            )
            d = decide(
                cand,
                at=at,
                keyed=keyed,
                neighbours=neighbours,
                llm=self.llm,
                bands=bands,
                merge_window=timedelta(hours=self.settings.episodic_merge_window_hours),
                heuristics=self.settings.memory_enable_entity_heuristics,
                implied=implied,
                user_id=user,
            )
            if job.payload.get("note"):  # changed on the way in (the hourly cap lowered its importance)
                d = replace(d, reason=f"{d.reason}; {job.payload['note']}")
            ctx = Context(
                user,
                job.thread_id,
                at,
                self.settings.categories,
                job.payload.get("tz") or self.settings.timezone,
                bands.link,
                node="episodic" if cand.type is MemoryType.EPISODIC else "worker",
            )
            planned = self.planned(ctx, cand, d, vector, neighbours, candidate_id=job.id)
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
            batch.complete_job, batch.job_owner = job.id, self.worker_id
            batch.job_result = {
                "action": planned.action,
                "memory_id": planned.memory_id,
                "summary": cand.summary,
                "turn": job.payload.get("turn"),
            }
            fault("before_commit")
            commit(self.backend, self.bus, planned.mutation)
        self.decisions.tell(Decided(planned.action, cand.type, d.score, cand.importance))
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
