"""PostgreSQL side of background jobs, the per-thread change log and op events.

Workers claim jobs with ``FOR UPDATE SKIP LOCKED``, so any number of them (in any number of
processes) can poll the same table without taking the same job twice; a user's candidate decisions are
claimed one at a time (``SERIAL_KINDS``), so a worker takes another user's job instead of waiting.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

import psycopg
from psycopg.rows import dict_row

from memlane.model.errors import LeaseLostError
from memlane.model.jobs import Change, Job, JobStatus, OpCount, OpEvent
from memlane.model.record import as_utc, utcnow
from memlane.storage.filter_sql import POSTGRES
from memlane.storage.links import seen
from memlane.storage.parts.jobs import SERIAL_KINDS
from memlane.storage.postgres.rows import cell

JOB_FIELDS: tuple[str, ...] = tuple(Job.model_fields)
JOB_COLUMNS = ", ".join(JOB_FIELDS)
CHANGE_COLUMNS = "id, user_id, thread_id, rev, seq, memory_id, event, meta, at"
OP_EVENT_FIELDS: tuple[str, ...] = tuple(OpEvent.model_fields)
OP_EVENT_COLUMNS = ", ".join(OP_EVENT_FIELDS)
_MAX_ERROR_CHARS = 2000

# Counters move by the batch's count in one statement each, in key order (consistent row locks);
# each returns the new end of the range the batch's rows take.
_NEXT_REVS = (
    "INSERT INTO thread_revision (user_id, thread_id, rev) "
    "SELECT * FROM unnest(%s::text[], %s::text[], %s::bigint[]) ORDER BY 1, 2 "
    "ON CONFLICT (user_id, thread_id) DO UPDATE SET rev = thread_revision.rev + EXCLUDED.rev "
    "RETURNING user_id, thread_id, rev"
)
_NEXT_SEQS = (
    "INSERT INTO user_revision (user_id, seq) SELECT * FROM unnest(%s::text[], %s::bigint[]) ORDER BY 1 "
    "ON CONFLICT (user_id) DO UPDATE SET seq = user_revision.seq + EXCLUDED.seq RETURNING user_id, seq"
)
_INSERT_CHANGE = f"INSERT INTO change_log ({CHANGE_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
_INSERT_OP_EVENT = (
    f"INSERT INTO op_events ({OP_EVENT_COLUMNS}) VALUES ({', '.join('%s' for _ in OP_EVENT_FIELDS)})"
)
_INSERT_JOB = f"INSERT INTO jobs ({JOB_COLUMNS}) VALUES ({', '.join('%s' for _ in JOB_FIELDS)})"
_COMPLETE_JOB = (  # a done job keeps its outcome, not the user's text
    "UPDATE jobs SET status = 'done', payload = %s, locked_by = NULL, locked_until = NULL, updated_at = %s "
    "WHERE id = %s"
)
# Runnable: pending and due, or running with an expired lease (its worker died); a job of SERIAL_KINDS
# not while another of its user runs (storage/parts/jobs.py).
_CLAIM_JOB = (
    "UPDATE jobs SET status = 'running', locked_by = %s, locked_until = %s, attempts = attempts + 1, "
    "updated_at = %s WHERE id = ("
    "  SELECT id FROM jobs j WHERE ((status = 'pending' AND run_after <= %s) "
    "  OR (status = 'running' AND locked_until < %s)) AND (%s::text[] IS NULL OR kind = ANY(%s::text[])) "
    "  AND (kind <> ALL(%s::text[]) OR NOT EXISTS (SELECT 1 FROM jobs busy WHERE busy.user_id = j.user_id "
    "    AND busy.kind = j.kind AND busy.status = 'running' AND busy.locked_until >= %s AND busy.id <> j.id)) "
    "  ORDER BY created_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED"
    f") RETURNING {JOB_COLUMNS}"
)
_SCHEDULE_JOB = _INSERT_JOB + " ON CONFLICT (id) DO NOTHING"
_COMPLETE_OWNED_JOB = _COMPLETE_JOB + " AND locked_by = %s AND status = 'running'"


def write_in_batch(
    cur: psycopg.Cursor[Any],
    changes: Sequence[Change],
    op_events: Sequence[OpEvent],
    jobs: Sequence[Job],
    complete_job: str | None,
    job_result: dict[str, Any] | None = None,
    schedule: Sequence[Job] = (),
    job_owner: str | None = None,
    pair_checks: Sequence[tuple[str, str, datetime]] = (),
) -> None:
    """The jobs/change-log part of a :class:`WriteBatch`, inside its transaction; each change row
    learns its ``rev`` and ``seq``."""
    if changes:
        # The thread_revision and user_revision row locks order concurrent writers: revs and seqs are
        # gapless and commit in order.
        revs = Counter((ch.user_id, ch.thread_id) for ch in changes)
        seqs = Counter(ch.user_id for ch in changes)
        keys = sorted(revs)
        rev = {
            (u, t): end - revs[u, t]
            for u, t, end in cur.execute(
                _NEXT_REVS, ([k[0] for k in keys], [k[1] for k in keys], [revs[k] for k in keys])
            ).fetchall()
        }
        users = sorted(seqs)
        seq = {
            u: end - seqs[u]
            for u, end in cur.execute(_NEXT_SEQS, (users, [seqs[u] for u in users])).fetchall()
        }
        for ch in changes:
            rev[ch.user_id, ch.thread_id] += 1
            seq[ch.user_id] += 1
            ch.rev, ch.seq = rev[ch.user_id, ch.thread_id], seq[ch.user_id]
        cur.executemany(
            _INSERT_CHANGE,
            [
                (
                    ch.id,
                    ch.user_id,
                    ch.thread_id,
                    ch.rev,
                    ch.seq,
                    ch.memory_id,
                    ch.event,
                    cell(ch.meta),
                    ch.at,
                )
                for ch in changes
            ],
        )
    if op_events:
        cur.executemany(_INSERT_OP_EVENT, [[cell(getattr(e, f)) for f in OP_EVENT_FIELDS] for e in op_events])
    if jobs:
        cur.executemany(_INSERT_JOB, [[cell(getattr(j, f)) for f in JOB_FIELDS] for j in jobs])
    if pair_checks:
        cur.executemany(
            "INSERT INTO pair_checks (user_id, pair, checked_at) VALUES (%s, %s, %s) "
            "ON CONFLICT (user_id, pair) DO UPDATE SET checked_at = EXCLUDED.checked_at",
            pair_checks,
        )
    if schedule:
        cur.executemany(_SCHEDULE_JOB, [[cell(getattr(j, f)) for f in JOB_FIELDS] for j in schedule])
    if complete_job is not None and job_owner is None:
        cur.execute(_COMPLETE_JOB, (cell(job_result or {}), utcnow(), complete_job))
    elif complete_job is not None:
        cur.execute(_COMPLETE_OWNED_JOB, (cell(job_result or {}), utcnow(), complete_job, job_owner))
        if cur.rowcount == 0:
            raise LeaseLostError(f"job {complete_job} is no longer leased to {job_owner}")


def claim_job(
    conn: psycopg.Connection[Any],
    worker_id: str,
    lease_seconds: float,
    now: datetime,
    kinds: Sequence[str] | None = None,
) -> Job | None:
    until = now + timedelta(seconds=lease_seconds)
    only = None if kinds is None else list(kinds)
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(
            _CLAIM_JOB, (worker_id, until, now, now, now, only, only, list(SERIAL_KINDS), now)
        ).fetchone()
    return None if row is None else Job.model_validate(row)


def scheduled_users(conn: psycopg.Connection[Any], kind: str) -> set[str]:
    rows = conn.execute(
        "SELECT DISTINCT user_id FROM jobs WHERE kind = %s AND status IN ('pending', 'running')", (kind,)
    ).fetchall()
    return {r[0] for r in rows}


def checked_pairs(conn: psycopg.Connection[Any], user_id: str, since: datetime) -> set[str]:
    rows = conn.execute(
        "SELECT pair FROM pair_checks WHERE user_id = %s AND checked_at >= %s", (user_id, since)
    ).fetchall()
    return {r[0] for r in rows}


def record_access(
    conn: psycopg.Connection[Any],
    user_id: str,
    memory_ids: Sequence[str],
    at: datetime,
    ops: Sequence[OpEvent],
) -> None:
    with conn.cursor() as cur:  # one transaction: the pooled connection's
        if memory_ids:
            cur.execute(
                "UPDATE memories SET access_count = access_count + 1, last_accessed = "
                f"GREATEST(COALESCE(last_accessed, %s), %s) WHERE id = ANY(%s) AND {seen(POSTGRES, 'memories')}",
                (at, at, list(memory_ids), user_id, user_id),
            )
        if ops:
            cur.executemany(_INSERT_OP_EVENT, [[cell(getattr(e, f)) for f in OP_EVENT_FIELDS] for e in ops])


def op_counts(
    conn: psycopg.Connection[Any], since: datetime, until: datetime, user_id: str | None
) -> list[OpCount]:
    mine = " AND user_id = %s" if user_id is not None else ""
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            "SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, node, op, status, count(*) AS count "
            f"FROM op_events WHERE at >= %s AND at < %s{mine} GROUP BY 1, node, op, status ORDER BY 1, node, op, status",
            (since, until, *([user_id] if user_id is not None else [])),
        ).fetchall()
    return [OpCount.model_validate(r) for r in rows]


def fail_job(conn: psycopg.Connection[Any], job_id: str, error: str, retry_at: datetime | None) -> None:
    status = JobStatus.PARKED if retry_at is None else JobStatus.PENDING
    conn.execute(
        "UPDATE jobs SET status = %s, last_error = %s, run_after = COALESCE(%s, run_after), "
        "locked_by = NULL, locked_until = NULL, updated_at = %s WHERE id = %s",
        (status.value, error[:_MAX_ERROR_CHARS], retry_at, utcnow(), job_id),
    )


def list_jobs(
    conn: psycopg.Connection[Any], status: JobStatus | None, user_id: str | None, limit: int
) -> list[Job]:
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            f"SELECT {JOB_COLUMNS} FROM jobs "
            "WHERE (%(status)s::text IS NULL OR status = %(status)s) "
            "AND (%(user)s::text IS NULL OR user_id = %(user)s) "
            "ORDER BY created_at, seq LIMIT %(limit)s",
            {"status": None if status is None else status.value, "user": user_id, "limit": limit},
        ).fetchall()
    return [Job.model_validate(r) for r in rows]


def retry_jobs(
    conn: psycopg.Connection[Any], job_ids: Sequence[str] | None, user_id: str | None
) -> list[str]:
    if job_ids is not None and not job_ids:
        return []
    now = utcnow()
    rows = conn.execute(
        "UPDATE jobs SET status = 'pending', attempts = 0, run_after = %(now)s, updated_at = %(now)s "
        "WHERE status = 'parked' AND (%(ids)s::text[] IS NULL OR id = ANY(%(ids)s)) "
        "AND (%(user)s::text IS NULL OR user_id = %(user)s) RETURNING id",
        {"now": now, "ids": None if job_ids is None else list(job_ids), "user": user_id},
    ).fetchall()
    return sorted(r[0] for r in rows)


def count_jobs(conn: psycopg.Connection[Any], user_id: str, kind: str, since: datetime) -> int:
    row = conn.execute(
        "SELECT count(*) FROM jobs WHERE user_id = %s AND kind = %s AND created_at >= %s",
        (user_id, kind, since),
    ).fetchone()
    return int(row[0]) if row else 0


def recent_jobs(
    conn: psycopg.Connection[Any], user_id: str, kind: str, before: datetime, limit: int
) -> list[Job]:
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            f"SELECT {JOB_COLUMNS} FROM jobs WHERE user_id = %s AND kind = %s AND created_at < %s "
            "ORDER BY created_at DESC, seq DESC LIMIT %s",
            (user_id, kind, before, limit),
        ).fetchall()
    return [Job.model_validate(r) for r in rows]


def thread_revision(conn: psycopg.Connection[Any], user_id: str, thread_id: str) -> int:
    row = conn.execute(
        "SELECT rev FROM thread_revision WHERE user_id = %s AND thread_id = %s", (user_id, thread_id)
    ).fetchone()
    return int(row[0]) if row else 0


def changes_since(
    conn: psycopg.Connection[Any], user_id: str, thread_id: str, rev: int, limit: int
) -> list[Change]:
    return _changes(conn, "thread_id = %s AND rev > %s ORDER BY rev", (user_id, thread_id, rev, limit))


def changes_after(conn: psycopg.Connection[Any], user_id: str, seq: int, limit: int) -> list[Change]:
    return _changes(conn, "seq > %s ORDER BY seq", (user_id, seq, limit))


def _changes(conn: psycopg.Connection[Any], where: str, params: tuple[Any, ...]) -> list[Change]:
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            f"SELECT {CHANGE_COLUMNS} FROM change_log WHERE user_id = %s AND {where} LIMIT %s", params
        ).fetchall()
    return [Change.model_validate({**r, "at": as_utc(r["at"])}) for r in rows]


def op_events(conn: psycopg.Connection[Any], user_id: str, limit: int) -> list[OpEvent]:
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            f"SELECT {OP_EVENT_COLUMNS} FROM op_events WHERE user_id = %s "
            "ORDER BY at DESC, seq DESC LIMIT %s",
            (user_id, limit),
        ).fetchall()
    return [OpEvent.model_validate({**r, "at": as_utc(r["at"])}) for r in rows]


def delete_user(cur: psycopg.Cursor[Any] | psycopg.Connection[Any], user_id: str) -> None:
    for table in (
        "jobs",
        "change_log",
        "thread_revision",
        "user_revision",
        "op_events",
        "pair_checks",
        "proposals",
        "sessions",
        "messages",
    ):
        cur.execute(f"DELETE FROM {table} WHERE user_id = %s", (user_id,))  # table names are fixed above
