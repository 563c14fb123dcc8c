"""SQLite's change log and op events (``SqliteBackend.changes``)."""

from __future__ import annotations

import builtins
from datetime import datetime

from memlane.model.jobs import Change, OpCount, OpEvent
from memlane.storage.filter_sql import iso
from memlane.storage.parts.changes import ChangeLog
from memlane.storage.sqlite.jobs import change_from_row, op_event_from_row
from memlane.storage.sqlite.part import SqlitePart


class SqliteChangeLog(SqlitePart, ChangeLog):
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
