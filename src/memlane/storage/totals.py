"""The SQL of :meth:`MemoryStore.totals`, shared by SQLite and PostgreSQL (``mark`` is the placeholder).

Three grouped counts over the memories table: by state, then the users' active counts grouped by
value (as many rows as distinct counts, not as users), then the top users when asked. The
``(user_id, state, type)`` index serves the per-user counts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memlane.model.ids import GLOBAL_USER
from memlane.model.totals import MemoryTotals

Rows = Callable[[str, Sequence[Any]], Sequence[Sequence[Any]]]

BY_STATE = "SELECT state, count(*) FROM memories GROUP BY state"
PER_USER = (
    "SELECT n, count(*) FROM (SELECT count(*) AS n FROM memories WHERE state = 'active' "
    "AND user_id <> {mark} GROUP BY user_id) per GROUP BY n"
)
TOP = (
    "SELECT user_id, count(*) AS n FROM memories WHERE state = 'active' AND user_id <> {mark} "
    "GROUP BY user_id ORDER BY n DESC, user_id LIMIT {mark}"
)


def totals(rows: Rows, mark: str, top: int) -> MemoryTotals:
    """The totals, read with ``rows(sql, params)``; the ``top`` users (none when 0)."""
    by_state = {str(r[0]): int(r[1]) for r in rows(BY_STATE, ())}
    per_user = {int(r[0]): int(r[1]) for r in rows(PER_USER.format(mark=mark), (GLOBAL_USER,))}
    best = (
        [(str(r[0]), int(r[1])) for r in rows(TOP.format(mark=mark), (GLOBAL_USER, top))] if top > 0 else []
    )
    return MemoryTotals(by_state, per_user, best)
