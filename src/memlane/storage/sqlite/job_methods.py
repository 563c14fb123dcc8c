"""SQLite backend methods for jobs, the change log and op events (mixed into ``SqliteBackend``)."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from typing import Any

from memlane.model.jobs import Change, Job, JobStatus, OpCount, OpEvent
from memlane.model.record import utcnow
from memlane.storage.filter_sql import SQLITE, iso
from memlane.storage.links import seen
from memlane.storage.sqlite.jobs import (
    JOB_COLS,
    change_from_row,
    job_from_row,
    op_event_from_row,
    write_op_events,
)


class SqliteJobsMixin:
    """Needs the backend's ``_tx`` (a write transaction) and ``_rows`` (a read)."""

    def _tx(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> builtins.list[Any]:
        raise NotImplementedError

    # --- jobs, change log, op events ------------------------------------------------------
    def claim_job(
        self, worker_id: str, *, lease_seconds: float, now: datetime, kinds: Sequence[str] | None = None
    ) -> Job | None:
        only = f" AND kind IN ({', '.join('?' for _ in kinds)})" if kinds is not None else ""
        with self._tx() as c:
            row = c.execute(
                f"SELECT {JOB_COLS} FROM jobs WHERE ((status = 'pending' AND run_after <= ?) "
                f"OR (status = 'running' AND locked_until < ?)){only} ORDER BY created_at, rowid LIMIT 1",
                (iso(now), iso(now), *(kinds or ())),
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

    def checked_pairs(self, user_id: str, since: datetime) -> set[str]:
        rows = self._rows(
            "SELECT pair FROM pair_checks WHERE user_id = ? AND checked_at >= ?", (user_id, iso(since))
        )
        return {r[0] for r in rows}

    def record_access(
        self, user_id: str, memory_ids: Sequence[str], at: datetime, ops: Sequence[OpEvent] = ()
    ) -> None:
        if not memory_ids and not ops:
            return
        marks = ", ".join("?" for _ in memory_ids)
        with self._tx() as c:  # ISO-8601 UTC strings order as times
            if memory_ids:
                c.execute(
                    "UPDATE memories SET access_count = access_count + 1, last_accessed = "
                    "CASE WHEN last_accessed IS NULL OR last_accessed < ? THEN ? ELSE last_accessed END "
                    f"WHERE id IN ({marks}) AND {seen(SQLITE, 'memories')}",
                    (iso(at), iso(at), *memory_ids, user_id, user_id),
                )
            write_op_events(c, ops)

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

    def thread_revision(self, user_id: str, thread_id: str) -> int:
        rows = self._rows(
            "SELECT rev FROM thread_revision WHERE user_id = ? AND thread_id = ?", (user_id, thread_id)
        )
        return int(rows[0][0]) if rows else 0

    def changes_since(
        self, user_id: str, thread_id: str, rev: int, *, limit: int = 50
    ) -> builtins.list[Change]:
        rows = self._rows(
            "SELECT * FROM change_log WHERE user_id = ? AND thread_id = ? AND rev > ? ORDER BY rev LIMIT ?",
            (user_id, thread_id, rev, limit),
        )
        return [change_from_row(r) for r in rows]

    def changes_after(self, user_id: str, seq: int, *, limit: int = 100) -> builtins.list[Change]:
        rows = self._rows(
            "SELECT * FROM change_log WHERE user_id = ? AND seq > ? ORDER BY seq LIMIT ?",
            (user_id, seq, limit),
        )
        return [change_from_row(r) for r in rows]

    def op_counts(
        self, since: datetime, until: datetime, *, user_id: str | None = None
    ) -> builtins.list[OpCount]:
        mine = " AND user_id = ?" if user_id is not None else ""
        rows = self._rows(
            "SELECT substr(at, 1, 10) AS day, node, op, status, count(*) AS count FROM op_events "
            f"WHERE at >= ? AND at < ?{mine} GROUP BY day, node, op, status ORDER BY day, node, op, status",
            (iso(since), iso(until), *([user_id] if user_id is not None else [])),
        )
        return [
            OpCount(day=r["day"], node=r["node"], op=r["op"], status=r["status"], count=r["count"])
            for r in rows
        ]

    def op_events(self, user_id: str, *, limit: int = 100) -> builtins.list[OpEvent]:
        rows = self._rows(
            "SELECT * FROM op_events WHERE user_id = ? ORDER BY at DESC, rowid DESC LIMIT ?", (user_id, limit)
        )
        return [op_event_from_row(r) for r in rows]
