"""SQLite side of jobs, the change log and op events (statements run inside the backend's lock)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memlane.model.jobs import Change, Job, OpEvent
from memlane.storage.filter_sql import iso

JOB_COLS = (
    "id, user_id, thread_id, kind, payload, status, attempts, run_after, locked_by, locked_until, "
    "last_error, created_at, updated_at"
)


def job_params(j: Job) -> tuple[Any, ...]:
    return (
        j.id,
        j.user_id,
        j.thread_id,
        j.kind,
        json.dumps(j.payload),
        j.status.value,
        j.attempts,
        iso(j.run_after),
        j.locked_by,
        j.locked_until and iso(j.locked_until),
        j.last_error,
        iso(j.created_at),
        iso(j.updated_at),
    )


def job_from_row(r: Any) -> Job:
    return Job(
        id=r["id"],
        user_id=r["user_id"],
        thread_id=r["thread_id"],
        kind=r["kind"],
        payload=json.loads(r["payload"]),
        status=r["status"],
        attempts=r["attempts"],
        run_after=datetime.fromisoformat(r["run_after"]),
        locked_by=r["locked_by"],
        locked_until=r["locked_until"] and datetime.fromisoformat(r["locked_until"]),
        last_error=r["last_error"],
        created_at=datetime.fromisoformat(r["created_at"]),
        updated_at=datetime.fromisoformat(r["updated_at"]),
    )


def write_changes(c: Any, changes: Sequence[Change]) -> None:
    """Append change-log rows, bumping each thread's revision and each user's sequence atomically
    (we are inside the tx): one counter update per thread and per user, however many rows; each row
    learns its ``rev`` and ``seq``."""
    if not changes:
        return
    revs = Counter((ch.user_id, ch.thread_id) for ch in changes)
    seqs = Counter(ch.user_id for ch in changes)
    rev = {
        k: c.execute(
            "INSERT INTO thread_revision(user_id, thread_id, rev) VALUES (?, ?, ?) ON CONFLICT(user_id, "
            "thread_id) DO UPDATE SET rev = rev + excluded.rev RETURNING rev",
            (*k, n),
        ).fetchone()[0]
        - n
        for k, n in revs.items()
    }
    seq = {
        u: c.execute(
            "INSERT INTO user_revision(user_id, seq) VALUES (?, ?) ON CONFLICT(user_id) "
            "DO UPDATE SET seq = seq + excluded.seq RETURNING seq",
            (u, n),
        ).fetchone()[0]
        - n
        for u, n in seqs.items()
    }
    for ch in changes:
        rev[ch.user_id, ch.thread_id] += 1
        seq[ch.user_id] += 1
        ch.rev, ch.seq = rev[ch.user_id, ch.thread_id], seq[ch.user_id]
    c.executemany(
        "INSERT INTO change_log(id, user_id, thread_id, rev, seq, memory_id, event, meta, at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                ch.id,
                ch.user_id,
                ch.thread_id,
                ch.rev,
                ch.seq,
                ch.memory_id,
                ch.event,
                json.dumps(ch.meta),
                iso(ch.at),
            )
            for ch in changes
        ],
    )


def write_op_events(c: Any, events: Sequence[OpEvent]) -> None:
    c.executemany(
        "INSERT INTO op_events(id, user_id, thread_id, node, op, status, memory_id, category, sim, at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (e.id, e.user_id, e.thread_id, e.node, e.op, e.status, e.memory_id, e.category, e.sim, iso(e.at))
            for e in events
        ],
    )


def change_from_row(r: Any) -> Change:
    return Change(
        id=r["id"],
        user_id=r["user_id"],
        thread_id=r["thread_id"],
        rev=r["rev"],
        seq=r["seq"],
        memory_id=r["memory_id"],
        event=r["event"],
        meta=json.loads(r["meta"]),
        at=datetime.fromisoformat(r["at"]),
    )


def op_event_from_row(r: Any) -> OpEvent:
    return OpEvent(
        id=r["id"],
        user_id=r["user_id"],
        thread_id=r["thread_id"],
        node=r["node"],
        op=r["op"],
        status=r["status"],
        memory_id=r["memory_id"],
        category=r["category"],
        sim=r["sim"],
        at=datetime.fromisoformat(r["at"]),
    )
