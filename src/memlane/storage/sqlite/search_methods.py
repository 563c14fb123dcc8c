"""SQLite's vector and keyword search of memories (the search half of ``SqliteMemories``).

Each search has a ``*_rows`` form returning rows of ``score`` then the requested columns: the full
record (``vector_search``, ``keyword_search``) or just the id (``vector_ids``, ``keyword_ids``).

A ``shared`` search of a user who holds open links also ranks the memories linked to them (exactly:
a user has few) and merges the two rankings by score; without links it is the own search alone.
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Callable, Sequence
from typing import Any

from memlane.model.errors import DimensionMismatchError
from memlane.model.filters import Condition
from memlane.storage import links as link_sql
from memlane.storage.base import ScoredRecord
from memlane.storage.filter_sql import SQLITE, compile_conditions
from memlane.storage.keywords import query_words
from memlane.storage.sqlite.fts import match_query
from memlane.storage.sqlite.rows import RECORD_FIELDS, record_from_row, vector_blob
from memlane.storage.sqlite.vector_cache import UserVectors, VectorCache, ranked

MCOLS = ", ".join(f"m.{f}" for f in RECORD_FIELDS)
_ID = "m.id AS id"  # the columns of an id-only search
_VEC_PUSHDOWN = ("state", "type")  # metadata columns of the vec0 table, filtered inside the KNN scan
FTS_MIN_K = 100  # keyword matches ranked before the filters apply (more are fetched if filters leave too few)
VEC0_MAX_K = 4096  # sqlite-vec refuses a larger k


class SqliteSearchMixin:
    """Needs ``_rows``, ``_lock``, ``_conn``, ``_dims``, ``_has_links`` and ``_cache`` (``SqliteMemories``)."""

    _lock: threading.RLock
    _conn: Any
    _cache: VectorCache | None

    _rows: Callable[..., builtins.list[Any]]
    _dims: Callable[[], int | None]

    def _has_links(self, user_id: str) -> bool:
        raise NotImplementedError

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
        rows = self._vector_rows(user_id, embedding, conditions, limit, offset, MCOLS, shared)
        return [ScoredRecord(record_from_row(r), float(r["score"])) for r in rows]

    def vector_ids(
        self,
        user_id: str,
        embedding: Sequence[float],
        conditions: Sequence[Condition] = (),
        *,
        limit: int = 10,
        shared: bool = False,
    ) -> builtins.list[tuple[str, float]]:
        rows = self._vector_rows(user_id, embedding, conditions, limit, 0, _ID, shared)
        return [(r["id"], float(r["score"])) for r in rows]

    def _vector_rows(
        self,
        user_id: str,
        embedding: Sequence[float],
        conditions: Sequence[Condition],
        limit: int,
        offset: int,
        cols: str,
        shared: bool,
    ) -> builtins.list[Any]:
        """Nearest first: rows of ``score`` (cosine similarity) then ``cols``."""
        dims = self._dims()
        if dims is None:
            return []
        if len(embedding) != dims:
            raise DimensionMismatchError(f"query vector has {len(embedding)} dims, the store expects {dims}")
        if not (shared and self._has_links(user_id)):
            return self._own_vector_rows(dims, user_id, embedding, conditions, limit, offset, cols)
        want = limit + offset
        where, params = compile_conditions(conditions, SQLITE)
        linked = self._rows(
            f"SELECT 1.0 - vec_distance_cosine(v.embedding, ?) AS score, {cols} "
            f"{link_sql.linked_arm(SQLITE, 'CROSS JOIN memory_vectors v ON v.rowid = m.rid')} AND m.has_vector = 1 "
            f"AND {where} ORDER BY score DESC LIMIT ?",
            (vector_blob(embedding), user_id, user_id, *params, want),
        )
        own = self._own_vector_rows(dims, user_id, embedding, conditions, want, 0, cols)
        return _merged(own, linked, limit, offset)

    def _own_vector_rows(
        self,
        dims: int,
        user_id: str,
        embedding: Sequence[float],
        conditions: Sequence[Condition],
        limit: int,
        offset: int,
        cols: str,
    ) -> builtins.list[Any]:
        pushed = [c for c in conditions if c.field in _VEC_PUSHDOWN and c.op in ("$eq", "$in")]
        rest = [c for c in conditions if c not in pushed]
        with self._lock:
            cached = self._vector_cache(dims).get(self._conn, user_id)
            if cached is not None:
                return self._cached_rows(cached, user_id, embedding, pushed, rest, limit, offset, cols)
        knn_where = "".join(
            f" AND {c.field} = ?"
            if c.op == "$eq"
            else f" AND {c.field} IN ({','.join('?' for _ in c.value)})"
            for c in pushed
        )
        knn_params: builtins.list[Any] = []
        for c in pushed:
            knn_params.extend([c.value] if c.op == "$eq" else c.value)
        where, params = compile_conditions(rest, SQLITE)
        want = limit + offset
        k = max(want * 4, 40) if rest else want
        blob = vector_blob(embedding)
        while True:
            if k > VEC0_MAX_K:  # vec0's KNN stops at 4096: scan the user's partition exactly instead
                return self._rows(
                    f"SELECT 1.0 - vec_distance_cosine(v.embedding, ?) AS score, {cols} FROM memory_vectors v "
                    f"JOIN memories m ON m.rid = v.rowid WHERE v.user_id = ?{knn_where.replace(' AND ', ' AND v.')} "
                    f"AND m.user_id = ? AND {where} ORDER BY score DESC LIMIT ? OFFSET ?",
                    (blob, user_id, *knn_params, user_id, *params, limit, offset),
                )
            rows = self._rows(
                "WITH knn AS MATERIALIZED (SELECT rowid, distance FROM memory_vectors "
                f"WHERE embedding MATCH ? AND k = ? AND user_id = ?{knn_where}), "
                f"hits AS (SELECT 1.0 - knn.distance AS score, {cols} FROM knn JOIN memories m ON m.rid = knn.rowid "
                f"WHERE m.user_id = ? AND {where} ORDER BY knn.distance LIMIT ? OFFSET ?) "
                "SELECT (SELECT count(*) FROM knn) AS n_knn, hits.* FROM (SELECT 1) LEFT JOIN hits ON 1 "
                "ORDER BY hits.score DESC",
                (blob, k, user_id, *knn_params, user_id, *params, limit, offset),
            )
            n_knn = rows[0]["n_knn"]
            rows = [r for r in rows if r["id"] is not None]
            if len(rows) >= limit or n_knn < k or not rest:
                return rows
            k *= 4

    def _vector_cache(self, dims: int) -> VectorCache:
        if self._cache is None or self._cache.dims != dims:
            self._cache = VectorCache(dims)
        return self._cache

    def _cached_rows(
        self,
        cached: UserVectors,
        user_id: str,
        embedding: Sequence[float],
        pushed: Sequence[Condition],
        rest: Sequence[Condition],
        limit: int,
        offset: int,
        cols: str,
    ) -> builtins.list[Any]:
        """:meth:`_vector_rows` over a large user's in-memory vectors: the best rows by cosine, then
        the other filters on ``memories`` (widening while they leave too few)."""
        allowed = {c.field: [c.value] if c.op == "$eq" else list(c.value) for c in pushed}
        where, params = compile_conditions(rest, SQLITE)
        want = limit + offset
        top = max(want * 4, 40) if rest else want
        while True:
            rids, sims = ranked(cached, embedding, allowed, top)
            if not len(rids):
                return []
            ranks = ",".join("(?, ?, ?)" for _ in rids)  # the candidates in rank order; the filters keep some
            rows = self._rows(
                f"WITH c(rid, pos, sim) AS (VALUES {ranks}) SELECT c.sim AS score, {cols} FROM c "
                f"JOIN memories m ON m.rid = c.rid WHERE +m.user_id = ? AND {where} ORDER BY c.pos LIMIT ? OFFSET ?",
                (
                    *(
                        v
                        for pos, (rid, sim) in enumerate(zip(rids, sims, strict=True))
                        for v in (int(rid), pos, float(sim))
                    ),
                    user_id,
                    *params,
                    limit,
                    offset,
                ),
            )
            if len(rows) >= limit or len(rids) < top:
                return rows
            top *= 4

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
        rows = self._keyword_rows(user_id, query, conditions, limit, offset, MCOLS, shared)
        return [ScoredRecord(record_from_row(r), float(r["score"])) for r in rows]

    def keyword_ids(
        self,
        user_id: str,
        query: str,
        conditions: Sequence[Condition] = (),
        *,
        limit: int = 10,
        shared: bool = False,
    ) -> builtins.list[tuple[str, float]]:
        rows = self._keyword_rows(user_id, query, conditions, limit, 0, _ID, shared)
        return [(r["id"], float(r["score"])) for r in rows]

    def _keyword_rows(
        self,
        user_id: str,
        query: str,
        conditions: Sequence[Condition],
        limit: int,
        offset: int,
        cols: str,
        shared: bool,
    ) -> builtins.list[Any]:
        """Best bm25 first: rows of ``score`` (bm25, higher is better) then ``cols``."""
        words = query_words(query)
        if not words:
            return []
        if not (shared and self._has_links(user_id)):
            return self._own_keyword_rows(user_id, words, conditions, limit, offset, cols)
        want = limit + offset
        # linked memories are indexed under their owners' tokens (fts.py): ask for those, on the linked rowids
        owners = [
            r[0]
            for r in self._rows(
                f"SELECT DISTINCT m.user_id {link_sql.linked_arm(SQLITE)}", (user_id, user_id)
            )
        ]
        where, params = compile_conditions(conditions, SQLITE)
        linked = (
            self._rows(
                "WITH f AS MATERIALIZED (SELECT rowid, bm25(memories_fts, 0.0, 1.0, 0.5) AS rank FROM memories_fts "
                f"WHERE memories_fts MATCH ? AND rowid IN (SELECT m.rid {link_sql.linked_arm(SQLITE)})) "
                f"SELECT -f.rank AS score, {cols} FROM f JOIN memories m ON m.rid = f.rowid WHERE {where} "
                "ORDER BY f.rank LIMIT ?",
                (match_query(owners, words), user_id, user_id, *params, want),
            )
            if owners
            else []
        )
        return _merged(
            self._own_keyword_rows(user_id, words, conditions, want, 0, cols), linked, limit, offset
        )

    def _own_keyword_rows(
        self,
        user_id: str,
        words: Sequence[str],
        conditions: Sequence[Condition],
        limit: int,
        offset: int,
        cols: str,
    ) -> builtins.list[Any]:
        fts = match_query([user_id], words)
        where, params = compile_conditions(conditions, SQLITE)
        want = limit + offset
        k = max(want * 4, FTS_MIN_K)
        while True:  # the best k matches first (bm25 for every match, rows for k only), then the filters
            rows = self._rows(
                "WITH f AS MATERIALIZED (SELECT rowid, bm25(memories_fts, 0.0, 1.0, 0.5) AS rank FROM memories_fts "
                "WHERE memories_fts MATCH ? ORDER BY rank LIMIT ?), "
                f"hits AS (SELECT -f.rank AS score, {cols} FROM f JOIN memories m ON m.rid = f.rowid "
                f"WHERE m.user_id = ? AND {where} ORDER BY f.rank LIMIT ? OFFSET ?) "
                "SELECT (SELECT count(*) FROM f) AS n_fts, hits.* FROM (SELECT 1) LEFT JOIN hits ON 1 "
                "ORDER BY hits.score DESC",
                (fts, k, user_id, *params, limit, offset),
            )
            n_fts = rows[0]["n_fts"]
            rows = [r for r in rows if r["id"] is not None]
            if len(rows) >= limit or n_fts < k:
                return rows
            k *= 4  # the filters left too few of the best k: widen


def _merged(own: Sequence[Any], linked: Sequence[Any], limit: int, offset: int) -> builtins.list[Any]:
    """Two rankings, each already filtered in the database, as one by score (best first), paged."""
    return sorted([*own, *linked], key=lambda r: -float(r["score"]))[offset : offset + limit]
