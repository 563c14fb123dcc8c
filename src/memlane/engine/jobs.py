"""``mem.jobs``: the background jobs formation runs (a turn, a fact, a periodic task): what became of
them, why they have not finished, and the parked ones retried."""

from __future__ import annotations

import builtins
from collections.abc import Sequence

from memlane.engine import validate as v
from memlane.engine.namespace import Namespace, warn_renamed
from memlane.formation.hotpath import CANDIDATE
from memlane.formation.pending import pending as pending_of
from memlane.model.errors import NotFoundError, ValidationError
from memlane.model.jobs import Job, JobStatus, Outcome, Pending


class Jobs(Namespace):
    """Every interface (REST, CLI) reads and retries jobs through these calls."""

    def __call__(
        self, status: str | None = None, *, user_id: str | None = None, limit: int = 100
    ) -> builtins.list[Job]:
        """The old ``mem.jobs(...)``, kept one release: :meth:`list`."""
        warn_renamed("Memory.jobs", "mem.jobs.list")
        return self.list(status, user_id=user_id, limit=limit)

    def pending(self, job_ids: Sequence[str], *, user_id: str, waited: bool = True) -> Pending | None:
        """Why formation of these jobs (a turn's id, say) and the candidates they made has not finished,
        or None when it has (``waited``: the caller waited for it, up to ``MEMLANE_WAIT_TIMEOUT_S``)."""
        user = v.user_id(user_id)
        return pending_of(
            self.mem.formation.jobs_of(user, list(job_ids)),
            waited_s=self.mem.settings.wait_timeout_s if waited else None,
        )

    def outcomes(self, job_ids: str | Sequence[str], *, user_id: str) -> builtins.list[Outcome]:
        """What formation did (so far) with each candidate, the action and the memory: of a turn (the id
        :meth:`Memory.add_turn` returns) or of facts (the ids :meth:`Memory.add_fact_jobs` returns); one id or several."""
        user = v.user_id(user_id)
        asked = [job_ids] if isinstance(job_ids, str) else list(job_ids)
        found = {j.id: j for j in self.mem.backend.jobs.get_jobs(user, asked)}
        missing = [i for i in asked if i not in found]
        if missing:
            raise NotFoundError(f"no turn or fact job {missing[0]!r} for user {user!r}")
        ids: builtins.list[str] = []
        for jid in asked:  # a fact is its own candidate; a turn (or capture) names the candidates it made
            job = found[jid]
            if job.kind == CANDIDATE:
                ids.append(jid)
            elif job.status is JobStatus.DONE:
                ids.extend(job.payload.get("candidate_jobs", []))
        made = [i for i in ids if i not in found]
        jobs = {**found, **{j.id: j for j in self.mem.backend.jobs.get_jobs(user, made)}} if made else found
        return [_outcome(jobs[jid]) for jid in ids if jid in jobs]

    def list(
        self, status: str | None = None, *, user_id: str | None = None, limit: int = 100
    ) -> builtins.list[Job]:
        state = None
        if status is not None:
            try:
                state = JobStatus(status)
            except ValueError:
                raise ValidationError(
                    f"unknown job status {status!r}; use one of {', '.join(s.value for s in JobStatus)}"
                ) from None
        return self.mem.backend.jobs.list_jobs(
            state, user_id=None if user_id is None else v.user_id(user_id), limit=limit
        )

    def retry(self, job_id: str) -> None:
        if not self.retry_many([job_id]):
            raise NotFoundError(
                f"no parked job {job_id!r}; list them with `memlane jobs list --status parked`"
            )

    def retry_many(
        self, job_ids: Sequence[str] | None = None, *, user_id: str | None = None
    ) -> builtins.list[str]:
        """Put parked jobs back in the queue, their attempts starting again: those of ``job_ids`` (every
        parked job when None), of ``user_id`` only when given. Returns the ids retried."""
        user = None if user_id is None else v.user_id(user_id)
        ids = self.mem.backend.jobs.retry_jobs(None if job_ids is None else list(job_ids), user_id=user)
        if ids:
            self.mem._wake_worker()
        return ids


def _outcome(job: Job) -> Outcome:
    """A candidate job as the caller sees it: the decision once done, else the job's status."""
    done = job.status is JobStatus.DONE
    summary = (job.payload.get("candidate") or {}).get("summary", "")
    return Outcome(
        job_id=job.id,
        summary=job.payload.get("summary", summary),
        action=job.payload.get("action", "done") if done else job.status.value,
        memory_id=job.payload.get("memory_id") if done else None,
    )
