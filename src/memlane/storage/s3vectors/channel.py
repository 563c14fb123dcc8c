"""S3 Vectors as the vector channel of a memlane store: a vector index only, never the records.

The records, history, jobs and a durable copy of every vector stay in the relational backend (SQLite
or PostgreSQL) that this one wraps; the dense search of the user's own memories goes to one S3 Vectors
index. A write commits in the database with a ``vectors.sync`` job in the same transaction, and the
worker's job brings the index up to date (``sync.py``: idempotent, retried with backoff, parked after
``MEMLANE_JOB_MAX_ATTEMPTS``). Meanwhile searches stay exact: the memories whose sync is not done are
left out of what S3 Vectors answers and scored from their vectors in the database instead.

The channel is a backend over ``inner``: its writes add the sync jobs, its ``memories`` part
(``memories.py``) serves the vector search, and its other parts are ``inner``'s own.

Tenancy: every query carries ``user_id`` as a filter; a returned vector of another user (which the
service should never return) is dropped, and the candidates are read from the database scoped to the
user, with every condition applied there. Memories shared with the user (links, global memories) are
ranked from the database (a user holds few links), as the relational backends rank them.
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from memlane.model.config import Settings
from memlane.model.errors import ConfigError
from memlane.model.ids import GLOBAL_USER
from memlane.model.jobs import Job
from memlane.model.record import MemoryRecord
from memlane.storage.base import Backend, WriteBatch
from memlane.storage.s3vectors.index import S3VectorsIndex
from memlane.storage.s3vectors.memories import S3VectorsMemories
from memlane.storage.s3vectors.sync import SYNC, jobs_for, sync, touched_by

log = logging.getLogger("memlane.s3vectors")
ATTACHED = "vectors:s3vectors"  # meta: the index (bucket/index) this store's vectors were last synced to
PAGE = 1000


class S3VectorsChannel(Backend):
    """``inner`` with its dense search served by ``index`` (see the module docstring)."""

    job_kinds = (SYNC,)

    def __init__(self, inner: Backend, index: S3VectorsIndex) -> None:
        self.inner = inner
        self.index = index
        self.name = f"{inner.name}+s3vectors"
        self.local_reads = inner.local_reads
        self.memories = S3VectorsMemories(inner, index)
        self.jobs, self.sessions, self.changes = inner.jobs, inner.sessions, inner.changes
        self.proposals = inner.proposals

    # --- the database's, as it is ----------------------------------------------------------------
    def migrate(self) -> int:
        return self.inner.migrate()

    def schema_version(self) -> int:
        return self.inner.schema_version()

    def close(self) -> None:
        self.inner.close()

    def compact(self) -> dict[str, int]:
        return self.inner.compact()

    def get_meta(self, key: str) -> str | None:
        return self.inner.get_meta(key)

    def set_meta(self, key: str, value: str) -> None:
        self.inner.set_meta(key, value)

    @contextmanager
    def user_lock(self, user_id: str) -> Iterator[None]:
        with self.inner.user_lock(user_id):
            yield

    # --- the index follows the store -----------------------------------------------------------------
    def bind_embedder(self, identity: str, dims: int, *, switching: bool = False) -> None:
        """The relational store's check, then the index: created when missing (cosine, ``dims``), and
        filled from the database the first time this store uses it (one sync job per 500 memories)."""
        self.inner.bind_embedder(identity, dims, switching=switching)
        self.index.ensure(dims, "cosine", (), create=True)
        where = f"{self.index.bucket}/{self.index.index}"
        if self.inner.get_meta(ATTACHED) != where:
            queued = self.resync()
            self.inner.set_meta(ATTACHED, where)
            log.info("vector channel attached to %s; %d sync job(s) queued", self.index.where, queued)

    def create_vector_index(self, dims: int) -> None:
        self.inner.create_vector_index(dims)
        self.index.ensure(dims, "cosine", (), create=True)

    def resync(self, user_id: str | None = None) -> int:
        """Queue sync jobs for every memory (of one user, or of all and the global ones); returns how
        many jobs. A store written without the channel since it last used it needs this."""
        users = [user_id] if user_id is not None else [*self.inner.memories.list_users(), GLOBAL_USER]
        touched = {u: ids for u in users if (ids := self._all_ids(u))}
        jobs = jobs_for(touched)
        if jobs:
            self.inner.apply(WriteBatch(jobs=jobs))
            self._notify()
        return len(jobs)

    def _all_ids(self, user_id: str) -> builtins.list[str]:
        ids: builtins.list[str] = []
        while page := self.inner.memories.list(user_id, limit=PAGE, offset=len(ids), newest_first=False):
            ids.extend(r.id for r in page)
        return ids

    def run_job(self, job: Job) -> dict[str, Any]:
        dims = self._dims()
        ids = [str(i) for i in job.payload.get("memory_ids", ())]
        if dims is None or not ids:  # no vectors yet, or a payload a purge emptied
            return {"put": 0, "deleted": 0}
        return sync(self.inner, self.index, job.user_id, ids, dims)

    def _notify(self) -> None:
        if self.on_jobs is not None:
            self.on_jobs()

    def _dims(self) -> int | None:
        value = self.inner.get_meta("embed_dims")
        return int(value) if value else None

    # --- writes: each commits its sync job --------------------------------------------------------
    def apply(self, batch: WriteBatch) -> None:
        jobs = jobs_for(touched_by(batch))
        self.inner.apply(replace(batch, jobs=[*batch.jobs, *jobs]) if jobs else batch)
        if jobs:
            self._notify()

    def apply_planned(
        self, reads: Mapping[str, Sequence[str]], plan: Callable[[dict[str, MemoryRecord]], WriteBatch]
    ) -> WriteBatch:
        queued: builtins.list[Job] = []

        def planned(stored: dict[str, MemoryRecord]) -> WriteBatch:
            batch = plan(stored)
            queued[:] = jobs_for(touched_by(batch))
            return replace(batch, jobs=[*batch.jobs, *queued]) if queued else batch

        committed = self.inner.apply_planned(reads, planned)
        if queued:
            self._notify()
        return committed

    def delete_user(self, user_id: str) -> int:
        """Everything of the user goes from the database; then a sync job (queued after the delete, which
        removes the user's jobs) deletes their vectors from the index. A crash between the two leaves
        vectors without memories in the index (no text: see layout.py), never a memory without a delete."""
        ids = self._all_ids(user_id)
        removed = int(self.inner.delete_user(user_id))
        jobs = jobs_for({user_id: ids}) if ids else []
        if jobs:
            self.inner.apply(WriteBatch(jobs=jobs))
            self._notify()
        return removed


def check_settings(settings: Settings) -> str:
    """The vector bucket of ``MEMLANE_VECTORS=s3vectors``, or a ConfigError (before anything is opened)."""
    if not settings.s3v_bucket:
        raise ConfigError(
            "MEMLANE_VECTORS=s3vectors needs S3V_BUCKET (the vector bucket); S3V_INDEX_VECTORS "
            "names the index (one per memlane store)"
        )
    return settings.s3v_bucket


def channel_from_settings(inner: Backend, settings: Settings) -> S3VectorsChannel:
    """``MEMLANE_VECTORS=s3vectors``: ``inner`` with the index ``S3V_INDEX_VECTORS`` of ``S3V_BUCKET``."""
    from memlane.storage.s3vectors import clients  # looked up at call time: tests hand in a moto client

    client = clients.aws_client("s3vectors", settings)
    return S3VectorsChannel(
        inner, S3VectorsIndex(client, check_settings(settings), settings.s3v_index_vectors)
    )
