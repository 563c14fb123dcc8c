"""The vector channel's sync jobs: the S3 Vectors index follows the relational database.

A write to memories commits, in its own transaction, a ``vectors.sync`` job naming the memories it
touched (ids only, no text). The job makes the index hold what the database holds for them *now*: the
vector and metadata of a memory that has a vector and is not purged, nothing for any other. So it is
idempotent, and a retry or a duplicate job is harmless. Two jobs of the same memory may run at once
and the older state may land last: a job therefore reads again after writing, and writes again while
the database has moved on (at most :data:`ROUNDS` times, then it fails and is retried later).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memlane.model.enums import MemoryState
from memlane.model.errors import BackendError
from memlane.model.ids import new_id
from memlane.model.jobs import Job, JobStatus
from memlane.storage.base import Backend, WriteBatch
from memlane.storage.s3vectors import layout, limits
from memlane.storage.s3vectors.index import S3VectorsIndex, Vector

SYNC = "vectors.sync"
ROUNDS = 3
OPEN = (JobStatus.PENDING, JobStatus.RUNNING, JobStatus.PARKED)
OPEN_JOBS_READ = 10_000  # open jobs of a user read per status by a search (see pending_ids)

Wanted = dict[str, Vector | None]  # memory id -> the vector the index should hold, None: none


def jobs_for(touched: Mapping[str, Sequence[str]]) -> list[Job]:
    """Sync jobs for ``touched`` (user id -> memory ids), at most one ``PutVectors`` batch each."""
    return [
        Job(id=new_id(), user_id=user, kind=SYNC, payload={"memory_ids": list(part)})
        for user, ids in touched.items()
        for part in limits.chunks(list(dict.fromkeys(ids)), limits.MAX_PUT)
    ]


def touched_by(batch: WriteBatch) -> dict[str, list[str]]:
    """The memories whose vector or metadata ``batch`` may change, by user."""
    out: dict[str, list[str]] = {}
    for up in batch.upserts:
        out.setdefault(up.record.user_id, []).append(up.record.id)
    for p in batch.purges:
        out.setdefault(p.user_id, []).append(p.memory_id)
    return out


def pending_ids(backend: Backend, user_id: str) -> set[str]:
    """Memories of the user whose sync is not done (pending, running or parked): the index may not hold
    their current vector, so searches score them from the database instead."""
    return {
        str(i)
        for status in OPEN
        for job in backend.jobs.list_jobs(status, user_id=user_id, limit=OPEN_JOBS_READ)
        if job.kind == SYNC
        for i in job.payload.get("memory_ids", ())
    }


def wanted(backend: Backend, user_id: str, ids: Sequence[str], dims: int) -> Wanted:
    records = {r.id: r for r in backend.memories.get_many(user_id, ids)}
    stored = backend.memories.vectors(user_id, list(records))
    out: Wanted = {}
    for mid in ids:
        record, data = records.get(mid), stored.get(mid)
        if record is None or data is None or record.state is MemoryState.PURGED:
            out[mid] = None
        else:
            out[mid] = layout.vector(record, data, dims)
    return out


def sync(
    backend: Backend, index: S3VectorsIndex, user_id: str, ids: Sequence[str], dims: int
) -> dict[str, Any]:
    """Make ``index`` hold what ``backend`` holds for the user's memories ``ids``; returns the counts."""
    want = wanted(backend, user_id, ids, dims)
    for _ in range(ROUNDS):
        puts = [v for v in want.values() if v is not None]
        gone = [mid for mid, v in want.items() if v is None]
        if puts:
            index.put(puts)
        if gone:  # only vectors of this user's: an id that is another user's memory is not touched
            found = index.get(gone)
            index.delete(
                [k for k in gone if k in found and (found[k].get("metadata") or {}).get("user_id") == user_id]
            )
        now = wanted(backend, user_id, ids, dims)
        if now == want:
            return {"put": len(puts), "deleted": len(gone)}
        want = now
    raise BackendError(
        f"memories of {user_id!r} kept changing during {ROUNDS} rounds of their vector sync; "
        "the job is retried later"
    )
