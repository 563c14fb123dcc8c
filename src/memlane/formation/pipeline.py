"""Formation: accept a turn (hot path), then decide each candidate in the background, durably."""

from __future__ import annotations

import json
import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from memlane import telemetry
from memlane.formation import decide_job
from memlane.formation.capture import CAPTURE, capture_job, episode_candidate, episodes
from memlane.formation.continuation import extend, extended, running_episode
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
from memlane.formation.observe import DecisionWatch
from memlane.formation.provisional import publish_candidates, with_memory_ids
from memlane.formation.retry import next_attempt
from memlane.ledger.bus import EventBus
from memlane.ledger.commit import commit
from memlane.ledger.events import MemoryEvent
from memlane.ledger.mutations import Mutation
from memlane.model.candidate import Candidate, ChatMessage, Episode, Proposed
from memlane.model.config import Settings
from memlane.model.enums import MemoryType
from memlane.model.errors import LeaseLostError, MemlaneError, ProviderError
from memlane.model.ids import new_id
from memlane.model.jobs import Job, JobStatus, OpEvent
from memlane.model.record import utcnow
from memlane.providers.embed import Embedder
from memlane.providers.llm.base import MemoryLLM
from memlane.storage.base import Backend, WriteBatch
from memlane.telemetry import record, span

log = logging.getLogger("memlane.formation")
LEASE_SECONDS = 60.0


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
    ) -> tuple[str, list[Proposed]]:
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

    def extract_leased(self, job: Job, messages: Sequence[ChatMessage], at: datetime) -> list[Proposed]:
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

    def _extract_turn(self, job: Job, messages: list[ChatMessage], at: datetime) -> list[Proposed]:
        with span("formation.extract", messages=len(messages)) as current:
            kept, dropped = self._extract(job, messages, at)
            record(current, candidates=len(kept), dropped=len(dropped))
        return kept

    def _extract(
        self, job: Job, messages: list[ChatMessage], at: datetime
    ) -> tuple[list[Proposed], list[Dropped]]:
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
        publish_candidates(self.bus, job, kept, jobs)
        for d in dropped:  # reported, never silently lost
            self._error(job, d.message, d.code)
        return with_memory_ids(kept, [j.id for j in jobs]), dropped

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
        publish_candidates(self.bus, job, kept, jobs)
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

    def _decide(self, job: Job) -> str:
        with span("formation.decide") as current:
            action, neighbours = decide_job.decide_candidate(self, job)
            record(current, action=action, neighbours=neighbours)
        return action
