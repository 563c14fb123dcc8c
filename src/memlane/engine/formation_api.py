"""The formation half of :class:`memlane.Memory`: turns and facts in, background jobs and workers."""

from __future__ import annotations

import builtins
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from memlane.engine import validate as v
from memlane.engine.bounded import run_bounded
from memlane.engine.worker import Worker
from memlane.formation.pipeline import Formation
from memlane.formation.provisional import with_memory_ids
from memlane.lifecycle.runner import Lifecycle
from memlane.model.candidate import Candidate, ChatMessage, Proposed
from memlane.model.config import Settings
from memlane.model.errors import ProviderError
from memlane.model.record import utcnow
from memlane.storage import Backend


class FormationAPI:
    """Mixed into ``Memory``; one implementation, used by every interface."""

    settings: Settings
    backend: Backend
    formation: Formation
    lifecycle: Lifecycle
    _worker: Worker | None

    def add(
        self,
        messages: str | Sequence[ChatMessage | Mapping[str, Any]],
        *,
        user_id: str,
        thread_id: str | None = None,
        at: datetime | str | None = None,
        wait: bool = False,
    ) -> builtins.list[Proposed]:
        """Run formation on a turn: the turn is a committed job before this returns, candidates come
        back at once (and as ``memory.candidate`` events); decisions run in the background worker, or
        before returning with ``wait=True``."""
        return self.add_turn(messages, user_id=user_id, thread_id=thread_id, at=at, wait=wait)[1]

    def add_turn(
        self,
        messages: str | Sequence[ChatMessage | Mapping[str, Any]],
        *,
        user_id: str,
        thread_id: str | None = None,
        at: datetime | str | None = None,
        wait: bool = False,
    ) -> tuple[str, builtins.list[Proposed]]:
        """:meth:`add`, returning the turn's job id too (see :meth:`outcomes` and :meth:`pending`).
        ``wait`` waits at most ``MEMLANE_WAIT_TIMEOUT_S``; without it, a remote LLM is not waited for at
        all: the worker extracts the turn and no candidates come back here (they come as events)."""
        user = v.user_id(user_id)
        thread = v.optional_scope("thread_id", thread_id)
        when = v.when("at", at) or utcnow()
        turn = v.messages(messages, when)
        if wait:
            deadline = time.monotonic() + self.settings.wait_timeout_s
            job = self.formation.lease_turn(turn, user_id=user, thread_id=thread, at=when)
            candidates: builtins.list[Proposed] = []

            def form() -> None:
                candidates.extend(self.formation.extract_leased(job, turn, when))
                self.formation.finish(user, [job.id], until=deadline)

            run_bounded(form, self.settings.wait_timeout_s)
            return job.id, list(candidates)
        if self._remote_llm():
            turn_id = self.formation.enqueue_turn(turn, user_id=user, thread_id=thread, at=when)
            self._wake_worker()
            return turn_id, []
        turn_id, found = self.formation.accept(turn, user_id=user, thread_id=thread, at=when)
        self._wake_worker()
        return turn_id, found

    def _remote_llm(self) -> bool:
        """Whether formation's LLM is behind the network (one that cannot be built counts: the worker
        reports its error on the turn's job)."""
        try:
            return self.formation.llm.remote
        except ProviderError:
            return True

    def _finish(self, user: str, job_ids: Sequence[str]) -> None:
        """Wait (at most ``MEMLANE_WAIT_TIMEOUT_S``) for committed jobs and the candidates they make."""
        timeout = self.settings.wait_timeout_s
        deadline = time.monotonic() + timeout
        run_bounded(lambda: self.formation.finish(user, job_ids, until=deadline), timeout)

    def enqueue_turn(
        self,
        messages: str | Sequence[ChatMessage | Mapping[str, Any]],
        *,
        user_id: str,
        thread_id: str | None = None,
        at: datetime | str | None = None,
    ) -> str:
        """Commit the turn as a job and return its id, without extracting anything here: a local write,
        for callers that must not wait on an LLM (the chat proxy). The background worker extracts and
        decides it (``memory.candidate`` and decision events follow), also after a restart."""
        user = v.user_id(user_id)
        thread = v.optional_scope("thread_id", thread_id)
        when = v.when("at", at) or utcnow()
        turn_id = self.formation.enqueue_turn(
            v.messages(messages, when), user_id=user, thread_id=thread, at=when
        )
        self._wake_worker()
        return turn_id

    def capture_turn(
        self,
        messages: str | Sequence[ChatMessage | Mapping[str, Any]],
        *,
        user_id: str,
        thread_id: str | None = None,
        at: datetime | str | None = None,
        time_zone: str | None = None,
        wait: bool = False,
    ) -> str:
        """Episodic capture, after the assistant answered: the finished turn (the user's
        message, the answer, tool calls and results) becomes an episode if it had an outcome (a decision,
        something done, a next step), within the episodic cooldown, daily cap and novelty, merged into the
        last episode of the same theme when there is one. Dated in ``time_zone`` (an IANA name; default
        ``MEMLANE_TIMEZONE``). The turn is a committed job before this returns; returns its id
        (:meth:`outcomes` tells what became of it)."""
        user = v.user_id(user_id)
        thread = v.optional_scope("thread_id", thread_id)
        when = v.when("at", at) or utcnow()
        tz = self.settings.timezone if time_zone is None else v.time_zone(time_zone)
        job_id = self.formation.enqueue_capture(
            v.messages(messages, when), user_id=user, thread_id=thread, at=when, time_zone=tz
        )
        if wait:
            self._finish(user, [job_id])
        else:
            self._wake_worker()
        return job_id

    def add_facts(
        self,
        facts: Sequence[Candidate | Mapping[str, Any]],
        *,
        user_id: str,
        thread_id: str | None = None,
        at: datetime | str | None = None,
        wait: bool = False,
    ) -> builtins.list[Proposed]:
        """Ready candidate memories (as an LLM extractor proposes them) through the decision only:
        dedup, merge, supersede or create, in the background (or before returning with ``wait``, which
        waits at most ``MEMLANE_WAIT_TIMEOUT_S``)."""
        return self.add_fact_jobs(facts, user_id=user_id, thread_id=thread_id, at=at, wait=wait)[1]

    def add_fact_jobs(
        self,
        facts: Sequence[Candidate | Mapping[str, Any]],
        *,
        user_id: str,
        thread_id: str | None = None,
        at: datetime | str | None = None,
        wait: bool = False,
    ) -> tuple[builtins.list[str], builtins.list[Proposed]]:
        """:meth:`add_facts`, returning the candidate jobs' ids too (see :meth:`pending`)."""
        user = v.user_id(user_id)
        thread = v.optional_scope("thread_id", thread_id)
        when = v.when("at", at) or utcnow()
        cands = v.candidates(facts, self.settings.memory_summary_max_chars)
        jobs = self.formation.enqueue_facts(cands, user_id=user, thread_id=thread, at=when)
        if wait:
            self._finish(user, jobs)
        else:
            self._wake_worker()
        return jobs, with_memory_ids(cands, jobs)

    def process_jobs(self, max_jobs: int | None = None) -> int:
        """Run pending background jobs in this thread; returns how many ran."""
        return self.formation.drain(max_jobs)

    def run_tasks(self, *, at: datetime | str | None = None) -> int:
        """Run, in this thread, the periodic tasks (TTL, purge, ...) due at ``at`` (default now), after
        scheduling each user's next runs; returns how many ran. ``memlane worker`` does this for you."""
        return self.lifecycle.run_due(v.when("at", at) or utcnow())

    def run_insights(
        self, *, user_id: str, snippet: str | None = None, at: datetime | str | None = None
    ) -> dict[str, Any]:
        """Infer theory-of-mind insights for the user now (the ``insights`` task does it daily): from
        recent events, new facts and ``snippet`` (a recent conversation, at most 1,000 characters are
        used). Skipped within 24 h of the last insight or without new facts. Returns the run's report."""
        user = v.user_id(user_id)
        text = "" if snippet is None else v.text("snippet", snippet)
        return self.lifecycle.insights_now(user, v.when("at", at) or utcnow(), text)

    def _wake_worker(self) -> None:
        """Work was queued: start (or wake) this process's worker, unless ``MEMLANE_WORKER`` is off
        (a separate ``memlane worker`` process runs the jobs)."""
        if self.settings.worker:
            self.start_worker()

    def start_worker(self, *, tasks: bool = False) -> None:
        """Start the background thread that runs formation jobs (and, with ``tasks``, the periodic tasks).
        Adding a turn starts one without tasks; ``memlane serve`` and ``memlane worker`` run tasks too."""
        if self._worker is not None and self._worker.is_alive() and tasks and self._worker.lifecycle is None:
            self.stop_worker()
        if self._worker is None or not self._worker.is_alive():
            self._worker = Worker(self.formation, self.lifecycle if tasks else None)
            self._worker.start()
        else:
            self._worker.wake.set()

    def stop_worker(self) -> None:
        if self._worker is not None:
            self._worker.stop()
            self._worker = None
