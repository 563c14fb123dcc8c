"""S3 Vectors as the vector channel of a memlane store: a vector index only, never the records.

The records, history, jobs and a durable copy of every vector stay in the relational backend (SQLite
or PostgreSQL) that this one wraps; the dense search of the user's own memories goes to one S3 Vectors
index. A write commits in the database with a ``vectors.sync`` job in the same transaction, and the
worker's job brings the index up to date (``sync.py``: idempotent, retried with backoff, parked after
``MEMLANE_JOB_MAX_ATTEMPTS``). Meanwhile searches stay exact: the memories whose sync is not done are
left out of what S3 Vectors answers and scored from their vectors in the database instead.

Tenancy: every query carries ``user_id`` as a filter; a returned vector of another user (which the
service should never return) is dropped, and the candidates are read from the database scoped to the
user, with every condition applied there. Memories shared with the user (links, global memories) are
ranked from the database (a user holds few links), as the relational backends rank them.
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from memlane.model.config import Settings
from memlane.model.errors import ConfigError, DimensionMismatchError
from memlane.model.filters import Condition
from memlane.model.ids import GLOBAL_USER
from memlane.model.jobs import Job
from memlane.model.record import MemoryRecord
from memlane.storage.base import Backend, ScoredRecord, WriteBatch
from memlane.storage.cosine import cosines
from memlane.storage.delegate import DelegatingBackend
from memlane.storage.s3vectors import layout, limits
from memlane.storage.s3vectors.filters import clause
from memlane.storage.s3vectors.index import S3VectorsIndex
from memlane.storage.s3vectors.sync import SYNC, jobs_for, pending_ids, sync, touched_by

log = logging.getLogger("memlane.s3vectors")
ATTACHED = "vectors:s3vectors"  # meta: the index (bucket/index) this store's vectors were last synced to
PAGE = 1000

Hit = tuple[MemoryRecord, float]


class S3VectorsChannel(DelegatingBackend):
    """``inner`` with its dense search served by ``index`` (see the module docstring)."""

    job_kinds = (SYNC,)

    def __init__(self, inner: Backend, index: S3VectorsIndex) -> None:
        super().__init__(inner)
        self.index = index
        self.name = f"{inner.name}+s3vectors"

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
        users = [user_id] if user_id is not None else [*self.inner.list_users(), GLOBAL_USER]
        touched = {u: ids for u in users if (ids := self._all_ids(u))}
        jobs = jobs_for(touched)
        if jobs:
            self.inner.apply(WriteBatch(jobs=jobs))
            self._notify()
        return len(jobs)

    def _all_ids(self, user_id: str) -> builtins.list[str]:
        ids: builtins.list[str] = []
        while page := self.inner.list(user_id, limit=PAGE, offset=len(ids), newest_first=False):
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

    # --- the dense search --------------------------------------------------------------------------
    def vector_search(
        self,
        user_id: str,
        embedding: Sequence[float],
        conditions: Sequence[Condition] = (),
        *,
        limit: int = 10,
        offset: int = 0,
        shared: bool = False,
    ) -> builtins.list[ScoredRecord]:
        return [
            ScoredRecord(r, s) for r, s in self._search(user_id, embedding, conditions, limit, offset, shared)
        ]

    def vector_ids(
        self,
        user_id: str,
        embedding: Sequence[float],
        conditions: Sequence[Condition] = (),
        *,
        limit: int = 10,
        shared: bool = False,
    ) -> builtins.list[tuple[str, float]]:
        return [(r.id, s) for r, s in self._search(user_id, embedding, conditions, limit, 0, shared)]

    def _search(
        self,
        user_id: str,
        embedding: Sequence[float],
        conditions: Sequence[Condition],
        limit: int,
        offset: int,
        shared: bool,
    ) -> builtins.list[Hit]:
        dims = self._dims()
        if dims is None:
            return []
        if len(embedding) != dims:
            raise DimensionMismatchError(f"query vector has {len(embedding)} dims, the store expects {dims}")
        want = limit + offset
        pending = pending_ids(self.inner, user_id)
        hits = self._indexed(user_id, embedding, conditions, want, pending)
        hits += self._exact(user_id, embedding, conditions, pending, shared=False)
        if shared:
            linked = {link.memory_id for link in self.inner.links(user_id) if link.is_open}
            hits += [
                h
                for h in self._exact(user_id, embedding, conditions, linked, shared=True)
                if h[0].user_id != user_id
            ]
        best: dict[str, Hit] = {}
        for record, score in hits:
            if record.id not in best or score > best[record.id][1]:
                best[record.id] = (record, score)
        return sorted(best.values(), key=lambda h: (-h[1], h[0].id))[offset:want]

    def _indexed(
        self,
        user_id: str,
        embedding: Sequence[float],
        conditions: Sequence[Condition],
        want: int,
        skip: set[str],
    ) -> builtins.list[Hit]:
        """The user's nearest memories by S3 Vectors, those in ``skip`` left out, every condition checked
        in the database (S3 Vectors evaluates the pushed ones first). When the database's conditions
        leave too few, more are asked for, up to the API's 100."""
        pushed, rest = layout.split(conditions)
        clauses = [clause("user_id", "$eq", user_id), *pushed]
        top = min(limits.MAX_TOP_K, want + len(skip) if not rest else max(4 * want, 40) + len(skip))
        while True:
            found = self.index.query_filtered(embedding, top, clauses)
            distance = {
                v["key"]: float(v["distance"])
                for v in found
                if (v.get("metadata") or {}).get("user_id") == user_id
                and v["key"] not in skip
                and isinstance(v.get("distance"), int | float)
            }
            records = (
                self.inner.list(
                    user_id, [*conditions, Condition("id", "$in", list(distance))], limit=len(distance)
                )
                if distance
                else []
            )
            hits = [(r, 1.0 - distance[r.id]) for r in records]
            if len(hits) >= want or len(found) < top or top >= limits.MAX_TOP_K:
                return hits
            top = min(limits.MAX_TOP_K, top * 4)

    def _exact(
        self,
        user_id: str,
        embedding: Sequence[float],
        conditions: Sequence[Condition],
        ids: set[str],
        *,
        shared: bool,
    ) -> builtins.list[Hit]:
        """Cosine similarity of ``ids`` from the vectors in the database (those matching the conditions)."""
        if not ids:
            return []
        records = self.inner.list(
            user_id, [*conditions, Condition("id", "$in", sorted(ids))], limit=len(ids), shared=shared
        )
        sims = cosines(embedding, self.inner.vectors(user_id, [r.id for r in records], shared=shared))
        return [(r, sims[r.id]) for r in records if r.id in sims]


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
