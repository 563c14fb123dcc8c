"""Why formation of some jobs has not finished: what a caller that waited is told instead of an empty
answer that would read as "nothing to remember"."""

from __future__ import annotations

from collections.abc import Sequence

from memlane.model.errors import ProviderError
from memlane.model.jobs import Job, JobStatus, Pending


def _subclasses(cls: type[Exception]) -> set[str]:
    names = {cls.__name__}
    for sub in cls.__subclasses__():
        names |= _subclasses(sub)
    return names


def provider_failure(error: str | None) -> bool:
    """Whether a job's ``last_error`` (``"<exception type>: <message>"``) was a provider's failure."""
    return error is not None and error.split(":", 1)[0] in _subclasses(ProviderError)


def pending(jobs: Sequence[Job], *, waited_s: float | None) -> Pending | None:
    """None when every job is done; else the most telling reason (a parked job, a failed one, one still
    running). ``waited_s``: how long the caller waited (None: it did not wait)."""
    open_jobs = [j for j in jobs if j.status is not JobStatus.DONE]
    if not open_jobs:
        return None
    parked = [j for j in open_jobs if j.status is JobStatus.PARKED]
    if parked:
        j = parked[0]
        return Pending(
            code="parked",
            job_id=j.id,
            message=f"the {j.kind} job failed for good ({j.last_error}); "
            "it is kept: retry it with `memlane jobs retry --all` or POST /v1/memory/jobs/retry",
        )
    failed = [j for j in open_jobs if j.last_error and j.status is JobStatus.PENDING]
    if failed:
        j = failed[0]
        what = "the LLM is unavailable" if provider_failure(j.last_error) else f"the {j.kind} job failed"
        return Pending(
            code="llm_unavailable" if provider_failure(j.last_error) else "job_failed",
            job_id=j.id,
            message=f"{what} ({j.last_error}); the turn is kept and formed when a retry succeeds "
            f"(next at {j.run_after.isoformat(timespec='seconds')})",
        )
    j = open_jobs[0]
    if waited_s is None:
        return Pending(code="background", job_id=j.id, message="formation runs in the background worker")
    return Pending(
        code="timeout",
        job_id=j.id,
        message=f"formation did not finish within {waited_s:g} s "
        "(MEMLANE_WAIT_TIMEOUT_S); it goes on in the background",
    )
