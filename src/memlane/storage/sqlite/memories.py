"""SQLite's memories part (``SqliteBackend.memories``): reads by id and filter, history, relations,
vectors, links, the searches (``search_methods.py``) and the read bookkeeping."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from memlane.model.filters import Condition
from memlane.model.ids import GLOBAL_USER
from memlane.model.jobs import OpEvent
from memlane.model.link import MemoryLink
from memlane.model.record import HistoryEntry, MemoryRecord, Relation
from memlane.model.totals import MemoryTotals
from memlane.storage import links as link_sql
from memlane.storage.filter_sql import SQLITE, compile_conditions, iso
from memlane.storage.links import seen
from memlane.storage.parts.memories import MemoryStore
from memlane.storage.sqlite.jobs import write_op_events
from memlane.storage.sqlite.part import SqlitePart
from memlane.storage.sqlite.rows import history_from_row, record_from_row, relation_from_row
from memlane.storage.sqlite.search_methods import MCOLS, SqliteSearchMixin
from memlane.storage.sqlite.vector_cache import VectorCache
from memlane.storage.totals import totals

if TYPE_CHECKING:
    from memlane.storage.sqlite.backend import SqliteBackend


class SqliteMemories(SqliteSearchMixin, SqlitePart, MemoryStore):
    def __init__(self, db: SqliteBackend) -> None:
        super().__init__(db)
        self._lock, self._conn = db._lock, db._conn
        self._dims = db._dims
        self._cache: VectorCache | None = None

    # --- reads -------------------------------------------------------------------------------
    def _scope(self, user_id: str, shared: bool) -> tuple[str, builtins.list[str]]:
        """One row's user test, for reads by id (``+``: the id index, not the user's whole index)."""
        return (link_sql.seen(SQLITE), [user_id, user_id]) if shared else ("+m.user_id = ?", [user_id])

    def get(self, user_id: str, memory_id: str, *, shared: bool = False) -> MemoryRecord | None:
        found = self.get_many(user_id, [memory_id], shared=shared)
        return found[0] if found else None

    def get_many(
        self, user_id: str, memory_ids: Sequence[str], *, shared: bool = False
    ) -> builtins.list[MemoryRecord]:
        if not memory_ids:
            return []
        marks = ",".join("?" for _ in memory_ids)
        scope, params = self._scope(user_id, shared)
        rows = self._rows(
            f"SELECT {MCOLS} FROM memories m WHERE {scope} AND m.id IN ({marks})", (*params, *memory_ids)
        )
        by_id = {r["id"]: record_from_row(r) for r in rows}
        return [by_id[i] for i in memory_ids if i in by_id]

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
        where, params = compile_conditions(conditions, SQLITE)
        order = "DESC" if newest_first else "ASC"
        by = f"m.updated_at {order}, m.id {order}"
        if shared and self._has_links(user_id):
            want = limit + offset
            rows = self._rows(
                link_sql.union(SQLITE, MCOLS, where, by),
                (user_id, *params, want, user_id, user_id, *params, want, limit, offset),
            )
            return [record_from_row(r) for r in rows]
        by_id = any(
            c.field == "id" for c in conditions
        )  # given ids: look them up, not the user's whole index
        rows = self._rows(
            f"SELECT {MCOLS} FROM memories m WHERE {'+' if by_id else ''}m.user_id = ? AND {where} "
            f"ORDER BY {by} LIMIT ? OFFSET ?",
            (user_id, *params, limit, offset),
        )
        return [record_from_row(r) for r in rows]

    def count(self, user_id: str, conditions: Sequence[Condition] = (), *, shared: bool = False) -> int:
        where, params = compile_conditions(conditions, SQLITE)
        if shared and self._has_links(user_id):
            return int(
                self._rows(link_sql.count(SQLITE, where), (user_id, *params, user_id, user_id, *params))[0][0]
            )
        return int(
            self._rows(
                f"SELECT count(*) FROM memories m WHERE m.user_id = ? AND {where}", (user_id, *params)
            )[0][0]
        )

    def history(
        self, user_id: str, memory_id: str | None = None, *, limit: int = 100, shared: bool = False
    ) -> builtins.list[HistoryEntry]:
        if shared and memory_id is not None:
            sql, params = (
                f"SELECT * FROM history WHERE {link_sql.history_scope(SQLITE)}",
                [memory_id, user_id, user_id, user_id, memory_id],
            )
        else:
            sql, params = "SELECT * FROM history WHERE user_id = ?", [user_id]
            if memory_id is not None:
                sql += " AND memory_id = ?"
                params.append(memory_id)
        rows = self._rows(sql + " ORDER BY at, rowid LIMIT ?", (*params, limit))
        return [history_from_row(r) for r in rows]

    def relations(self, user_id: str, memory_ids: Sequence[str]) -> builtins.list[Relation]:
        if not memory_ids:
            return []
        marks = ",".join("?" for _ in memory_ids)
        rows = self._rows(
            f"SELECT * FROM relations WHERE +user_id = ? AND (from_id IN ({marks}) OR to_id IN ({marks}))",
            (user_id, *memory_ids, *memory_ids),
        )
        return [relation_from_row(r) for r in rows]

    def vectors(
        self, user_id: str, memory_ids: Sequence[str], *, shared: bool = False
    ) -> dict[str, builtins.list[float]]:
        if not memory_ids or self._dims() is None:
            return {}
        marks = ",".join("?" for _ in memory_ids)
        scope, params = self._scope(user_id, shared)
        rows = self._rows(
            "SELECT m.id AS id, v.embedding AS e FROM memories m "  # by id (+: not the user index), then vec0 point lookups
            f"CROSS JOIN memory_vectors v ON v.rowid = m.rid WHERE {scope} AND m.id IN ({marks})",
            (*params, *memory_ids),
        )
        return {r["id"]: np.frombuffer(r["e"], dtype=np.float32).tolist() for r in rows}

    def links(self, user_id: str, memory_id: str | None = None) -> builtins.list[MemoryLink]:
        params = (user_id,) if memory_id is None else (memory_id, user_id, user_id)
        return [
            link_sql.link_from_row(r)
            for r in self._rows(link_sql.links_sql(SQLITE, memory_id is not None), params)
        ]

    def _has_links(self, user_id: str) -> bool:
        """Whether the user holds an open link (most do not: their shared reads are the own reads)."""
        return bool(self._rows(f"SELECT {link_sql.has_links(SQLITE)}", (user_id,))[0][0])

    def list_users(self) -> builtins.list[str]:
        return [
            r[0]
            for r in self._rows(
                "SELECT DISTINCT user_id FROM memories WHERE user_id != ? ORDER BY user_id", (GLOBAL_USER,)
            )
        ]

    def totals(self, *, top: int = 0) -> MemoryTotals:
        return totals(self._rows, "?", top)

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
