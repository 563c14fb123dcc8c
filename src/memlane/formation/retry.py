"""When a failed job runs again, or is parked for a person.

A job gets ``MEMLANE_JOB_MAX_ATTEMPTS`` attempts, each after a doubling backoff (0.5 s, 1 s, 2 s, ...
capped at ``MEMLANE_JOB_BACKOFF_MAX_S``). A job that failed because a provider was unavailable (an
LLM or embedder outage: :class:`ProviderError`) goes on being retried at the capped backoff until it
is ``MEMLANE_JOB_RETRY_HOURS`` old, so an outage heals itself once the provider answers again. Any
other failure (a bug) is parked after its attempts: retrying it would not help.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from memlane.model.config import Settings
from memlane.model.errors import ProviderError
from memlane.model.jobs import Job

BASE_BACKOFF_S = 0.5


def backoff_seconds(attempts: int, settings: Settings) -> float:
    return min(settings.job_backoff_max_s, BASE_BACKOFF_S * 2.0 ** min(attempts, 40))


def next_attempt(job: Job, exc: Exception, settings: Settings, now: datetime) -> datetime | None:
    """When the failed ``job`` runs again; None: it is parked."""
    outage = isinstance(exc, ProviderError) and now < job.created_at + timedelta(
        hours=settings.job_retry_hours
    )
    if job.attempts < settings.job_max_attempts or outage:
        return now + timedelta(seconds=backoff_seconds(job.attempts, settings))
    return None
