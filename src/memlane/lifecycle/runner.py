"""Runs the periodic tasks: seeds each user's next run, claims due task jobs, and commits a run's
writes together with its job's completion and the next run's job, in one transaction that only the
worker still holding the job's lease can commit. A worker that dies mid-run wrote nothing; when its
lease expires another worker runs the task again, so a task is neither lost nor applied twice."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from memlane.formation.bands import bands_for
from memlane.formation.faults import fault
from memlane.formation.pipeline import Formation
from memlane.ledger.commit import commit_planned
from memlane.ledger.mutations import Mutation
from memlane.lifecycle import consent, consolidate, insights, message_vectors, purge, sessions, ttl
from memlane.lifecycle.schedule import kind_of, task_job
from memlane.model.enums import MemoryType
from memlane.model.errors import LeaseLostError
from memlane.model.filters import Condition, live
from memlane.model.ids import new_id
from memlane.model.jobs import Job, OpEvent
from memlane.model.record import MemoryRecord, utcnow
from memlane.providers.llm.base import MemoryLLM
from memlane.retrieval.embed_text import memory_text
from memlane.storage.base import WriteBatch
from memlane.telemetry import Span, record, span

log = logging.getLogger("memlane.lifecycle")
BATCH = 1000  # memories one run changes at most; a full run schedules the next one at once
LEASE_SECONDS = 300.0
MESSAGE_VECTORS_PER_RUN = 2000  # chat messages a sessions run embeds at most (message_vectors.py)
# Tasks not seeded for every user: recording a group-chat message schedules its user's sessions run
# (engine/sessions.py), so users who never record one cost nothing.
BY_USE = frozenset({"sessions"})

# A task's work: the ids to read under the write lock, and the plan that turns them into writes
# (returning its report).
Plan = Callable[[Mutation, dict[str, MemoryRecord]], dict[str, Any]]


# op events: what a change-log row of a task's run counts as
OP_OF = {
    "created": "create",
    "merged": "merge",
    "changed_fact": "supersede",
    "superseded": "supersede",
    "deleted": "ttl",
    "purged": "purge",
}


def task_ops(task: str, user_id: str, m: Mutation, now: datetime) -> list[OpEvent]:
    """One op event for the run (``skipped`` when it changed nothing) and one per change it made."""
    changes = m.batch.changes
    ops = [
        OpEvent(
            id=new_id(),
            user_id=user_id,
            node="worker",
            op=task,
            status="ok" if changes else "skipped",
            at=now,
        )
    ]
    return ops + [
        OpEvent(
            id=new_id(),
            user_id=user_id,
            node="worker",
            op=OP_OF.get(c.event, c.event),
            memory_id=c.memory_id,
            category=c.meta.get("category"),
            at=now,
        )
        for c in changes
    ]


class Lifecycle:
    def __init__(self, formation: Formation, summary_llm: Callable[[], MemoryLLM] | None = None) -> None:
        """``summary_llm``: the model of session summaries (``CONTEXT_SESSION_SUMMARY_MODEL``), made on
        first use; default: formation's."""
        self.formation = formation
        self._summary_llm_factory = summary_llm
        self._summary_llm: MemoryLLM | None = None
        self.backend, self.settings, self.bus = formation.backend, formation.settings, formation.bus
        self.worker_id = formation.worker_id
        self.lease_seconds = LEASE_SECONDS
        self._tasks: dict[str, Callable[[Job, datetime], tuple[Sequence[str], Plan, bool]]] = {
            "ttl": self._ttl,
            "purge": self._purge,
            "consolidate": self._consolidate,
            "insights": self._insights,
            "consent": self._consent,
            "sessions": self._sessions,
        }

    @property
    def summary_llm(self) -> MemoryLLM:
        if self._summary_llm_factory is None:
            return self.formation.llm
        if self._summary_llm is None:
            self._summary_llm = self._summary_llm_factory()
        return self._summary_llm

    @property
    def schedule(self) -> dict[str, timedelta]:
        """The enabled tasks and how often each runs per user (``MEMLANE_SCHEDULE``)."""
        return {t: timedelta(hours=h) for t, h in self.settings.memlane_schedule.items() if h > 0}

    def seed(self, now: datetime | None = None) -> int:
        """Enqueue the next run of every enabled task for each user who has none pending; returns how
        many were enqueued (from any number of workers at once: a run's job id is its slot)."""
        now = now or utcnow()
        users = self.backend.memories.list_users()
        jobs = [
            task_job(user, task, every, now)
            for task, every in self.schedule.items()
            if task not in BY_USE
            for user in sorted(set(users) - self.backend.jobs.scheduled_users(kind_of(task)))
        ]
        if jobs:
            self.backend.apply(WriteBatch(schedule=jobs))
        return len(jobs)

    def run_once(self, now: datetime | None = None) -> bool:
        """Claim and run one due task; False when none is due."""
        now = now or utcnow()
        kinds = [kind_of(t) for t in self.schedule]
        job = self.backend.jobs.claim_job(
            self.worker_id, lease_seconds=self.lease_seconds, now=now, kinds=kinds
        )
        if job is None:
            return False
        with span("task", task=str(job.payload.get("task")), attempt=job.attempts) as current:
            self._run_task(job, now, current)
        return True

    def _run_task(self, job: Job, now: datetime, current: Span) -> None:
        try:
            report = self._run(job, now)
            record(current, **{k: v for k, v in report.items() if isinstance(v, int | float)})
        except LeaseLostError as exc:  # another worker took the job over and runs it: nothing was written
            log.warning("task %s: %s", job.id, exc)
        except Exception as exc:  # noqa: BLE001 - the task is retried or parked, never dropped
            self.formation.failed(job, exc)

    def run_due(self, now: datetime | None = None) -> int:
        """Seed, then run every task due at ``now``; returns how many ran."""
        self.seed(now)
        ran = 0
        while self.run_once(now):
            ran += 1
        return ran

    def _run(self, job: Job, now: datetime) -> dict[str, Any]:
        task = str(job.payload.get("task"))
        if task not in self._tasks or task not in self.schedule:
            raise ValueError(f"unknown or disabled task {task!r}")
        reads, plan, more = self._tasks[task](job, now)
        report: dict[str, Any] = {}

        def build(stored: dict[str, MemoryRecord]) -> Mutation:
            m = Mutation(actor=f"system:{task}", at=now)
            report.update(plan(m, stored))
            m.batch.op_events.extend(task_ops(task, job.user_id, m, now))
            fault("task_before_commit")
            nxt = task_job(job.user_id, task, self.schedule[task], now)
            if more:  # the run stopped at BATCH: go on at once
                nxt = nxt.model_copy(update={"id": new_id(), "run_after": now})
            m.batch.schedule.append(nxt)
            m.batch.complete_job, m.batch.job_owner = job.id, self.worker_id
            m.batch.job_result = {"task": task, **report}
            return m

        commit_planned(self.backend, self.bus, {job.user_id: list(reads)}, build)
        log.info("task %s for %s: %s", task, job.user_id, report)
        if task == "sessions":
            sessions.announce(self.bus, job.user_id, report)
        return report

    # --- the tasks ---------------------------------------------------------------------------------
    def _ttl(self, job: Job, now: datetime) -> tuple[Sequence[str], Plan, bool]:
        ids = ttl.stale_ids(self.backend, job.user_id, self.settings, now, BATCH)

        def plan(m: Mutation, stored: dict[str, MemoryRecord]) -> dict[str, Any]:
            return {"expired": ttl.expire(m, [stored[i] for i in ids if i in stored], self.settings, now)}

        return ids, plan, len(ids) >= BATCH

    def _purge(self, job: Job, now: datetime) -> tuple[Sequence[str], Plan, bool]:
        due = purge.due_ids(self.backend, job.user_id, now, BATCH)
        reach = purge.scope(self.backend, job.user_id, due)

        def plan(m: Mutation, stored: dict[str, MemoryRecord]) -> dict[str, Any]:
            return {"purged": purge.purge_due(m, stored, due, now, reach.brought)}

        return reach.ids, plan, len(due) >= BATCH

    def _consolidate(self, job: Job, now: datetime) -> tuple[Sequence[str], Plan, bool]:
        bands = bands_for(self.formation.embedder.name, MemoryType.SEMANTIC, self.settings)
        members = consolidate.pool(self.backend, job.user_id, now)
        pairs = consolidate.find_pairs(
            self.backend, job.user_id, members, bands, now, self.settings.memory_consolidation_max_pairs
        )
        judged = consolidate.judge(self.formation.llm, pairs, self.settings.memory_consolidation_token_budget)
        ids = sorted({r.id for p, _ in judged.verdicts for r in (p.newer, p.older)})

        def plan(m: Mutation, stored: dict[str, MemoryRecord]) -> dict[str, Any]:
            return consolidate.apply(m, judged, stored, now)

        return ids, plan, False

    def insights_now(self, user_id: str, now: datetime, snippet: str = "") -> dict[str, Any]:
        """One insights run for ``user_id`` outside the schedule (the 24 h cooldown still holds)."""
        _, plan, _ = self._insight_plan(user_id, now, snippet)
        report: dict[str, Any] = {}

        def build(stored: dict[str, MemoryRecord]) -> Mutation:
            m = Mutation(actor="system:insights", at=now)
            report.update(plan(m, stored))
            m.batch.op_events.extend(task_ops("insights", user_id, m, now))
            return m

        commit_planned(self.backend, self.bus, {user_id: []}, build)
        return report

    def _insights(self, job: Job, now: datetime) -> tuple[Sequence[str], Plan, bool]:
        return self._insight_plan(job.user_id, now, "")

    def _insight_plan(self, user_id: str, now: datetime, snippet: str) -> tuple[Sequence[str], Plan, bool]:
        """The model is asked outside the write lock; the run only creates memories (nothing to read)."""
        found = insights.gather(self.backend, user_id, now)
        report: dict[str, Any] = {"skipped": found.skip}
        fresh: list[tuple[MemoryRecord, list[float]]] = []
        if found.skip is None:
            kept, dropped = insights.valid(insights.ask(self.formation.llm, found, snippet))
            records = [insights.record(user_id, p, found, now) for p in kept]
            texts = [memory_text(r, self.settings) for r in records]
            vectors = self.formation.embedder.embed(texts) if texts else []
            repeat = bands_for(self.formation.embedder.name, MemoryType.SEMANTIC, self.settings).auto
            same = [Condition("type", "$eq", MemoryType.INSIGHT.value), *live()]
            for rec, vec in zip(records, vectors, strict=True):
                near = self.backend.memories.vector_search(user_id, vec, same, limit=1)
                if not (near and near[0].score >= repeat):  # a live insight says it already
                    fresh.append((rec, vec))
            report = {
                "proposed": len(kept) + dropped,
                "dropped": dropped,
                "repeats": len(records) - len(fresh),
                "created": [r.id for r, _ in fresh],
            }

        def plan(m: Mutation, stored: dict[str, MemoryRecord]) -> dict[str, Any]:
            insights.store(m, fresh)
            return report

        return [], plan, False

    def _consent(self, job: Job, now: datetime) -> tuple[Sequence[str], Plan, bool]:
        more = len(consent.due(self.backend, job.user_id, now, BATCH)) >= BATCH

        def plan(m: Mutation, _: dict[str, MemoryRecord]) -> dict[str, Any]:
            return {"expired": consent.expire(m, self.backend, job.user_id, now, BATCH)}

        return [], plan, more

    def _sessions(self, job: Job, now: datetime) -> tuple[Sequence[str], Plan, bool]:
        """The model (or the extractive digest) runs outside the write lock; the run reads the summary
        memories it re-summarises."""
        embedded, behind = message_vectors.embed_missing(
            self.backend, self.formation.embedder, job.user_id, limit=MESSAGE_VECTORS_PER_RUN
        )
        work = sessions.due(self.backend, job.user_id, self.settings, now)
        sessions.summarize(work, self.backend, self.summary_llm, self.formation.embedder, self.settings)

        def plan(m: Mutation, stored: dict[str, MemoryRecord]) -> dict[str, Any]:
            sessions.keep_existing(
                work, self.backend, job.user_id
            )  # under the write lock: none deleted since
            return {**sessions.apply(m, work, stored, self.settings, now), "messages_embedded": embedded}

        return sessions.memory_ids(work), plan, work.more or behind
