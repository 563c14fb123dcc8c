"""The job-queue part of a backend."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from memlane.model.jobs import Job, JobStatus

# Job kinds a worker runs under the user's lock (formation's candidate decisions, formation/hotpath.py):
# one of them is not claimed while another of the same user runs under a live lease. Its worker would
# only wait at the user lock (for that decision's LLM call: benchmarks/pg_scale_bench.py measured 4
# workers at 2.98x one before, 3.52x after) while another user's job sat runnable. It is a scheduling
# preference, not the guarantee: two claims racing on one user both pass it, and the user lock still
# serialises their decisions. A job whose worker died holds the user's later ones back until its lease
# runs out; it is then the oldest, so it is retried first.
SERIAL_KINDS = ("candidate",)


@runtime_checkable
class JobQueue(Protocol):
    """The background job queue (jobs are enqueued by a :class:`WriteBatch`)."""

    def claim_job(
        self, worker_id: str, *, lease_seconds: float, now: datetime, kinds: Sequence[str] | None = None
    ) -> Job | None:
        """Take the oldest runnable job (pending and due, or running with an expired lease) of one of
        ``kinds`` (any kind when None) and lease it to ``worker_id``; attempts is incremented. A job of
        :data:`SERIAL_KINDS` waits while another of its kind and user runs under a live lease. Safe with
        many workers (SKIP LOCKED on Postgres, the write lock on SQLite)."""

    def scheduled_users(self, kind: str) -> set[str]:
        """Users with a pending or running job of ``kind`` (the scheduler seeds the others)."""

    def fail_job(self, job_id: str, error: str, *, retry_at: datetime | None) -> None:
        """Record a failure: back to pending at ``retry_at``, or parked when ``retry_at`` is None."""

    def list_jobs(
        self, status: JobStatus | None = None, *, user_id: str | None = None, limit: int = 100
    ) -> builtins.list[Job]: ...

    def get_jobs(self, user_id: str, job_ids: Sequence[str]) -> builtins.list[Job]:
        """The user's jobs of those ids (those that exist), in no particular order."""

    def retry_jobs(
        self, job_ids: Sequence[str] | None = None, *, user_id: str | None = None
    ) -> builtins.list[str]:
        """Parked -> pending now, attempts reset: the parked jobs of ``job_ids`` (every parked job when
        None), of ``user_id`` only when given; returns the ids retried, sorted."""

    def retry_job(self, job_id: str) -> bool:
        """Parked -> pending now, attempts reset; False if no such parked job."""
        return bool(self.retry_jobs([job_id]))

    def count_jobs(self, user_id: str, kind: str, since: datetime) -> int:
        """Jobs of ``kind`` created for the user since ``since`` (rate limits)."""

    def recent_jobs(self, user_id: str, kind: str, *, before: datetime, limit: int) -> builtins.list[Job]:
        """The user's newest ``limit`` jobs of ``kind`` created before ``before``, newest first (the
        episodic cooldown's previous turns)."""
