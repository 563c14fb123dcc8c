"""The memories part of an S3 Vectors channel: the dense search of the user's own memories from the
index (see ``channel.py``), everything else from the database's memories part."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime

from memlane.model.errors import DimensionMismatchError
from memlane.model.filters import Condition
from memlane.model.jobs import OpEvent
from memlane.model.link import MemoryLink
from memlane.model.record import HistoryEntry, MemoryRecord, Relation
from memlane.model.totals import MemoryTotals
from memlane.storage.base import Backend
from memlane.storage.cosine import cosines
from memlane.storage.parts.memories import MemoryStore, ScoredRecord
from memlane.storage.s3vectors import layout, limits
from memlane.storage.s3vectors.filters import clause
from memlane.storage.s3vectors.index import S3VectorsIndex
from memlane.storage.s3vectors.sync import pending_ids

Hit = tuple[MemoryRecord, float]


class S3VectorsMemories(MemoryStore):
    """``backend``'s memories with ``vector_search`` and ``vector_ids`` served by ``index``."""

    def __init__(self, backend: Backend, index: S3VectorsIndex) -> None:
        self._backend = backend
        self.inner = backend.memories
        self.index = index

    def _dims(self) -> int | None:
        value = self._backend.get_meta("embed_dims")
        return int(value) if value else None

    # --- the dense search --------------------------------------------------------------------------
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
        pending = pending_ids(self._backend, user_id)
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

    # --- everything else is the database's -------------------------------------------------------
    def get(self, user_id: str, memory_id: str, *, shared: bool = False) -> MemoryRecord | None:
        return self.inner.get(user_id, memory_id, shared=shared)

    def get_many(
        self, user_id: str, memory_ids: Sequence[str], *, shared: bool = False
    ) -> builtins.list[MemoryRecord]:
        return self.inner.get_many(user_id, memory_ids, shared=shared)

    def list(
        self,
        user_id: str,
        conditions: Sequence[Condition] = (),
        *,
        limit: int = 100,
        offset: int = 0,
        newest_first: bool = True,
        shared: bool = False,
    ) -> builtins.list[MemoryRecord]:
        return self.inner.list(
            user_id, conditions, limit=limit, offset=offset, newest_first=newest_first, shared=shared
        )

    def count(self, user_id: str, conditions: Sequence[Condition] = (), *, shared: bool = False) -> int:
        return self.inner.count(user_id, conditions, shared=shared)

    def keyword_search(
        self,
        user_id: str,
        query: str,
        conditions: Sequence[Condition] = (),
        *,
        limit: int = 10,
        offset: int = 0,
        shared: bool = False,
    ) -> builtins.list[ScoredRecord]:
        return self.inner.keyword_search(
            user_id, query, conditions, limit=limit, offset=offset, shared=shared
        )

    def keyword_ids(
        self,
        user_id: str,
        query: str,
        conditions: Sequence[Condition] = (),
        *,
        limit: int = 10,
        shared: bool = False,
    ) -> builtins.list[tuple[str, float]]:
        return self.inner.keyword_ids(user_id, query, conditions, limit=limit, shared=shared)

    def history(
        self, user_id: str, memory_id: str | None = None, *, limit: int = 100, shared: bool = False
    ) -> builtins.list[HistoryEntry]:
        return self.inner.history(user_id, memory_id, limit=limit, shared=shared)

    def relations(self, user_id: str, memory_ids: Sequence[str]) -> builtins.list[Relation]:
        return self.inner.relations(user_id, memory_ids)

    def vectors(
        self, user_id: str, memory_ids: Sequence[str], *, shared: bool = False
    ) -> dict[str, builtins.list[float]]:
        return self.inner.vectors(user_id, memory_ids, shared=shared)

    def links(self, user_id: str, memory_id: str | None = None) -> builtins.list[MemoryLink]:
        return self.inner.links(user_id, memory_id)

    def list_users(self) -> builtins.list[str]:
        return self.inner.list_users()

    def totals(self, *, top: int = 0) -> MemoryTotals:
        return self.inner.totals(top=top)

    def record_access(
        self, user_id: str, memory_ids: Sequence[str], at: datetime, ops: Sequence[OpEvent] = ()
    ) -> None:
        self.inner.record_access(user_id, memory_ids, at, ops)

    def checked_pairs(self, user_id: str, since: datetime) -> set[str]:
        return self.inner.checked_pairs(user_id, since)
