"""SQLite's job queue (``SqliteBackend.jobs``)."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime, timedelta

from memlane.model.jobs import Job, JobStatus
from memlane.model.record import utcnow
from memlane.storage.filter_sql import iso
from memlane.storage.parts.jobs import SERIAL_KINDS, JobQueue
from memlane.storage.sqlite.jobs import (
    JOB_COLS,
    job_from_row,
)
from memlane.storage.sqlite.part import SqlitePart


class SqliteJobQueue(SqlitePart, JobQueue):
    def claim_job(
        self, worker_id: str, *, lease_seconds: float, now: datetime, kinds: Sequence[str] | None = None
    ) -> Job | None:
        only = f" AND kind IN ({', '.join('?' for _ in kinds)})" if kinds is not None else ""
        serial = ", ".join("?" for _ in SERIAL_KINDS)
        with self._tx() as c:
            row = c.execute(
                f"SELECT {JOB_COLS} FROM jobs j WHERE ((status = 'pending' AND run_after <= ?) "
                f"OR (status = 'running' AND locked_until < ?)){only} "
                f"AND (kind NOT IN ({serial}) OR NOT EXISTS (SELECT 1 FROM jobs busy WHERE busy.user_id = j.user_id "
                "AND busy.kind = j.kind AND busy.status = 'running' AND busy.locked_until >= ? AND busy.id <> j.id)) "
                "ORDER BY created_at, rowid LIMIT 1",
                (iso(now), iso(now), *(kinds or ()), *SERIAL_KINDS, iso(now)),
            ).fetchone()
            if row is None:
                return None
            until = now + timedelta(seconds=lease_seconds)
            c.execute(
                "UPDATE jobs SET status = 'running', locked_by = ?, locked_until = ?, attempts = attempts + 1, "
                "updated_at = ? WHERE id = ?",
                (worker_id, iso(until), iso(now), row["id"]),
            )
            job = job_from_row(row)
        return job.model_copy(
            update={
                "status": JobStatus.RUNNING,
                "locked_by": worker_id,
                "locked_until": until,
                "attempts": job.attempts + 1,
            }
        )

    def scheduled_users(self, kind: str) -> set[str]:
        rows = self._rows(
            "SELECT DISTINCT user_id FROM jobs WHERE kind = ? AND status IN ('pending', 'running')", (kind,)
        )
        return {r[0] for r in rows}

    def fail_job(self, job_id: str, error: str, *, retry_at: datetime | None) -> None:
        status = "parked" if retry_at is None else "pending"
        with self._tx() as c:
            c.execute(
                "UPDATE jobs SET status = ?, last_error = ?, run_after = COALESCE(?, run_after), "
                "locked_by = NULL, locked_until = NULL, updated_at = ? WHERE id = ?",
                (status, error[:2000], retry_at and iso(retry_at), iso(utcnow()), job_id),
            )

    def list_jobs(
        self, status: JobStatus | None = None, *, user_id: str | None = None, limit: int = 100
    ) -> builtins.list[Job]:
        where, params = ["1=1"], []
        if status is not None:
            where.append("status = ?")
            params.append(status.value)
        if user_id is not None:
            where.append("user_id = ?")
            params.append(user_id)
        rows = self._rows(
            f"SELECT {JOB_COLS} FROM jobs WHERE {' AND '.join(where)} ORDER BY created_at, rowid LIMIT ?",
            (*params, limit),
        )
        return [job_from_row(r) for r in rows]

    def get_jobs(self, user_id: str, job_ids: Sequence[str]) -> builtins.list[Job]:
        if not job_ids:
            return []
        marks = ", ".join("?" for _ in job_ids)
        rows = self._rows(
            f"SELECT {JOB_COLS} FROM jobs WHERE id IN ({marks}) AND user_id = ?", (*job_ids, user_id)
        )
        return [job_from_row(r) for r in rows]

    def retry_jobs(
        self, job_ids: Sequence[str] | None = None, *, user_id: str | None = None
    ) -> builtins.list[str]:
        where, params = ["status = 'parked'"], []
        if job_ids is not None:
            if not job_ids:
                return []
            where.append(f"id IN ({', '.join('?' for _ in job_ids)})")
            params += list(job_ids)
        if user_id is not None:
            where.append("user_id = ?")
            params.append(user_id)
        now = iso(utcnow())
        with self._tx() as c:
            rows = c.execute(
                f"UPDATE jobs SET status = 'pending', attempts = 0, run_after = ?, updated_at = ? "
                f"WHERE {' AND '.join(where)} RETURNING id",
                (now, now, *params),
            ).fetchall()
        return sorted(r[0] for r in rows)

    def count_jobs(self, user_id: str, kind: str, since: datetime) -> int:
        return int(
            self._rows(
                "SELECT count(*) FROM jobs WHERE user_id = ? AND kind = ? AND created_at >= ?",
                (user_id, kind, iso(since)),
            )[0][0]
        )

    def recent_jobs(self, user_id: str, kind: str, *, before: datetime, limit: int) -> builtins.list[Job]:
        rows = self._rows(
            f"SELECT {JOB_COLS} FROM jobs WHERE user_id = ? AND kind = ? AND created_at < ? "
            "ORDER BY created_at DESC, rowid DESC LIMIT ?",
            (user_id, kind, iso(before), limit),
        )
        return [job_from_row(r) for r in rows]
