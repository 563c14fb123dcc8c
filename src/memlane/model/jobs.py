"""Background work and change tracking as typed data: jobs, the per-thread change log, op events."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field, field_validator

from memlane.model.brief import brief, cut
from memlane.model.record import as_utc, utcnow


class JobStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    PARKED = "parked"  # failed too often; visible and retryable from the CLI


class Job(BaseModel):
    """A durable unit of background work: ``turn`` (extract from messages) or ``candidate`` (decide)."""

    id: str
    user_id: str
    thread_id: str | None = None
    kind: str
    payload: dict[str, Any] = Field(default_factory=dict)
    status: JobStatus = JobStatus.PENDING
    attempts: int = 0
    run_after: datetime = Field(default_factory=utcnow)
    locked_by: str | None = None
    locked_until: datetime | None = None
    last_error: str | None = None
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)

    @field_validator("run_after", "locked_until", "created_at", "updated_at")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        return None if value is None else as_utc(value)

    def __repr_args__(self) -> list[tuple[str, Any]]:
        return brief(
            id=self.id,
            user_id=self.user_id,
            kind=self.kind,
            status=self.status,
            attempts=self.attempts or None,
            last_error=cut(self.last_error),
            created_at=self.created_at,
        )


class Outcome(BaseModel):
    """What formation did with one candidate of a turn."""

    job_id: str
    summary: str
    action: str = Field(
        description="create | merge | supersede | history | ignore | propose (a change held for consent) "
        "once decided; else the job's status (pending | running | parked)"
    )
    memory_id: str | None = Field(
        None,
        description="The memory created, merged into, written by the supersede "
        "or that a proposal would change",
    )


class Pending(BaseModel):
    """Why a turn's (or facts') formation has not finished yet; it goes on in the background."""

    code: str = Field(
        description="llm_unavailable: a model (or embedder) call failed, the job is retried with "
        "backoff | job_failed: another failure, retried | parked: failed for good, "
        "waits for a retry by a person | timeout: still running when the wait ended "
        "(MEMLANE_WAIT_TIMEOUT_S) | background: not waited for"
    )
    message: str
    job_id: str | None = Field(None, description="The job the reason is about")


class Change(BaseModel):
    """One row of a thread's change log (what the context block's delta header reads); ``rev`` is assigned
    by the backend on commit."""

    id: str
    user_id: str
    thread_id: str = ""  # "" = changes not tied to a thread
    rev: int = 0  # the thread's revision, assigned on commit
    seq: int = 0  # the user's change sequence (every thread), assigned on commit
    memory_id: str
    event: (
        str  # created | updated | merged | changed_fact | superseded | deleted | restored | purged | linked
    )
    meta: dict[str, Any] = Field(default_factory=dict)
    at: datetime = Field(default_factory=utcnow)


class OpCount(BaseModel):
    """How many op events of one kind a day saw (UTC day, ``YYYY-MM-DD``)."""

    day: str
    node: str
    op: str
    status: str
    count: int


class OpEvent(BaseModel):
    """Operational tracking: one decision step of formation or retrieval (node, operation, outcome)."""

    id: str
    user_id: str
    thread_id: str | None = None
    node: str  # hotpath | worker | context
    op: str  # classify | search | create | update | merge | supersede | history | ignore | a hot-path drop's code
    status: str = "ok"  # ok | error | skipped
    memory_id: str | None = None
    category: str | None = None
    sim: float | None = None
    at: datetime = Field(default_factory=utcnow)
