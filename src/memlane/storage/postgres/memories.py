"""PostgreSQL's memories part (``PostgresBackend.memories``): reads, searches (``search.py``) and the
read bookkeeping."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from psycopg.rows import dict_row

from memlane.model.errors import DimensionMismatchError
from memlane.model.filters import Condition
from memlane.model.ids import GLOBAL_USER
from memlane.model.jobs import OpEvent
from memlane.model.link import MemoryLink
from memlane.model.record import HistoryEntry, MemoryRecord, Relation
from memlane.model.totals import MemoryTotals
from memlane.storage import links as link_sql
from memlane.storage.filter_sql import POSTGRES, compile_conditions
from memlane.storage.parts import MemoryStore, ScoredRecord
from memlane.storage.postgres import jobs, search
from memlane.storage.postgres.part import PostgresPart
from memlane.storage.postgres.rows import (
    HISTORY_COLUMNS,
    RECORD_COLUMNS,
    RELATION_COLUMNS,
    history_from_row,
    record_from_row,
    relation_from_row,
)
from memlane.storage.totals import totals


class PostgresMemories(PostgresPart, MemoryStore):
    # --- reads --------------------------------------------------------------------------------
    def _records(self, sql: str, params: Sequence[Any]) -> builtins.list[MemoryRecord]:
        with self._connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            return [record_from_row(r) for r in cur.execute(sql, params).fetchall()]

    def get(self, user_id: str, memory_id: str, *, shared: bool = False) -> MemoryRecord | None:
        found = self.get_many(user_id, [memory_id], shared=shared)
        return found[0] if found else None

    def get_many(
        self, user_id: str, memory_ids: Sequence[str], *, shared: bool = False
    ) -> builtins.list[MemoryRecord]:
        if not memory_ids:
            return []
        scope = link_sql.seen(POSTGRES) if shared else "m.user_id = %s"
        found = self._records(
            f"SELECT {RECORD_COLUMNS} FROM memories m WHERE {scope} AND m.id = ANY(%s)",
            (user_id, *([user_id] if shared else []), list(memory_ids)),
        )
        by_id = {r.id: r for r in found}
        return [by_id[i] for i in dict.fromkeys(memory_ids) if i in by_id]  # in the order asked

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
        where, params = compile_conditions(conditions, POSTGRES)
        order = "DESC" if newest_first else "ASC"
        by = f"m.updated_at {order}, m.id {order}"
        if shared:  # own arm and linked arm, each cut to limit + offset first
            want = limit + offset
            return self._records(
                link_sql.union(POSTGRES, RECORD_COLUMNS, where, by),
                [user_id, *params, want, user_id, user_id, *params, want, limit, offset],
            )
        return self._records(
            f"SELECT {RECORD_COLUMNS} FROM memories m WHERE m.user_id = %s AND {where} "
            f"ORDER BY {by} LIMIT %s OFFSET %s",
            [user_id, *params, limit, offset],
        )

    def count(self, user_id: str, conditions: Sequence[Condition] = (), *, shared: bool = False) -> int:
        where, params = compile_conditions(conditions, POSTGRES)
        sql, args = (
            (link_sql.count(POSTGRES, where), [user_id, *params, user_id, user_id, *params])
            if shared
            else (f"SELECT count(*) FROM memories m WHERE m.user_id = %s AND {where}", [user_id, *params])
        )
        with self._connection() as conn:
            row = conn.execute(sql, args).fetchone()
        return int(row[0]) if row else 0

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
        if not self._db.has_vectors:  # no pgvector: no vector search is attempted (keyword search answers)
            return []
        with self._connection() as conn:
            dims = self._db._vector_dims(conn)
            if dims is None:
                return []  # nothing has been embedded in this store yet
            if len(embedding) != dims:
                raise DimensionMismatchError(
                    f"query vector has {len(embedding)} dims but this store holds {dims}-dim vectors"
                )
            return search.vector_search(
                conn,
                user_id,
                embedding,
                conditions,
                limit,
                offset,
                iterative_scan=self._db._iterative_scan,
                shared=shared,
            )

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
        with self._connection() as conn:
            common = self._db._common_words.get(conn)
            return search.keyword_search(
                conn, user_id, query, conditions, limit, offset, common, shared=shared
            )

    def history(
        self, user_id: str, memory_id: str | None = None, *, limit: int = 100, shared: bool = False
    ) -> builtins.list[HistoryEntry]:
        if shared and memory_id is not None:
            where, params = (
                link_sql.history_scope(POSTGRES),
                [memory_id, user_id, user_id, user_id, memory_id],
            )
        else:
            params = [user_id] if memory_id is None else [user_id, memory_id]
            where = "user_id = %s" + ("" if memory_id is None else " AND memory_id = %s")
        with self._connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(
                f"SELECT {HISTORY_COLUMNS} FROM history WHERE {where} ORDER BY at, seq LIMIT %s",
                [*params, limit],
            ).fetchall()
        return [history_from_row(r) for r in rows]

    def relations(self, user_id: str, memory_ids: Sequence[str]) -> builtins.list[Relation]:
        if not memory_ids:
            return []
        ids = list(memory_ids)
        with self._connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(
                f"SELECT {RELATION_COLUMNS} FROM relations "
                "WHERE user_id = %s AND (from_id = ANY(%s) OR to_id = ANY(%s)) "
                "ORDER BY created_at, from_id, to_id",
                (user_id, ids, ids),
            ).fetchall()
        return [relation_from_row(r) for r in rows]

    def vectors(
        self, user_id: str, memory_ids: Sequence[str], *, shared: bool = False
    ) -> dict[str, builtins.list[float]]:
        if not memory_ids or not self._db.has_vectors:
            return {}
        sql = "SELECT id, embedding FROM memory_vectors WHERE user_id = %s AND id = ANY(%s)"
        params: builtins.list[Any] = [user_id, list(memory_ids)]
        if shared:
            sql = (
                "SELECT v.id, v.embedding FROM memory_vectors v JOIN memories m ON m.id = v.id "
                f"WHERE {link_sql.seen(POSTGRES)} AND v.id = ANY(%s)"
            )
            params = [user_id, *params]
        with self._connection() as conn:
            if self._db._vector_dims(conn) is None:
                return {}
            with conn.cursor(binary=True) as cur:  # vectors as float32 bytes, not 384 numbers in text
                rows = cur.execute(sql, params).fetchall()
        return {r[0]: r[1].to_numpy().tolist() for r in rows}

    def links(self, user_id: str, memory_id: str | None = None) -> builtins.list[MemoryLink]:
        params = (user_id,) if memory_id is None else (memory_id, user_id, user_id)
        with self._connection() as conn:
            rows = conn.execute(link_sql.links_sql(POSTGRES, memory_id is not None), params).fetchall()
        return [link_sql.link_from_row(r) for r in rows]

    def list_users(self) -> builtins.list[str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT user_id FROM memories WHERE user_id <> %(g)s UNION "
                "SELECT user_id FROM history WHERE user_id <> %(g)s ORDER BY 1",
                {"g": GLOBAL_USER},
            ).fetchall()
        return [r[0] for r in rows]

    def totals(self, *, top: int = 0) -> MemoryTotals:
        with self._connection() as conn:
            return totals(lambda sql, params: conn.execute(sql, params).fetchall(), "%s", top)

    def checked_pairs(self, user_id: str, since: datetime) -> set[str]:
        with self._connection() as conn:
            return jobs.checked_pairs(conn, user_id, since)

    def record_access(
        self, user_id: str, memory_ids: Sequence[str], at: datetime, ops: Sequence[OpEvent] = ()
    ) -> None:
        if memory_ids or ops:
            with self._connection() as conn:
                jobs.record_access(conn, user_id, memory_ids, at, ops)
