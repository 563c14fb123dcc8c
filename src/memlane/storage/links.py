"""SQL of memory links, for SQLite and PostgreSQL alike (``d.placeholder`` is ``?`` or ``%s``).

A read with ``shared=True`` sees the user's own memories and the *active* memories of others linked
to the user by an open link (shared with them, or global). The user filter stays in the database:
an own arm (``m.user_id = ?``, the query it always was) and a linked arm driven by the user's rows of
``memory_links`` (its primary key starts with the user), never a filter applied in Python.

Purging a memory (or deleting its owner) closes every link to it and forgets what other users' rows
say of it: their link history rows keep their events, not their values or reasons, and their change
rows about it lose their meta (see :func:`forget_links`).
"""

from __future__ import annotations

from typing import Any

from memlane.model.link import MemoryLink
from memlane.storage.filter_sql import Dialect

LINK_COLUMNS = "user_id, memory_id, linked_at, linked_by, unlinked_at"
LINK_EVENTS = "('SHARE', 'UNSHARE')"


def linked_arm(d: Dialect, join: str = "") -> str:
    """``FROM ... WHERE ...`` of the memories (alias ``m``) linked to a user; params: user, user."""
    p = d.placeholder
    return (
        f"FROM memory_links l JOIN memories m ON m.id = l.memory_id {join} WHERE l.user_id = {p} "
        f"AND l.unlinked_at IS NULL AND m.state = 'active' AND m.user_id <> {p}"
    )


def has_links(d: Dialect) -> str:
    """Whether a user holds an open link (most do not: their shared reads are their own); params: user."""
    return f"EXISTS (SELECT 1 FROM memory_links WHERE user_id = {d.placeholder} AND unlinked_at IS NULL)"


def seen(d: Dialect, alias: str = "m") -> str:
    """One row's test: the user owns it, or it is active and linked to them; params: user, user."""
    p = d.placeholder
    return (
        f"({alias}.user_id = {p} OR ({alias}.state = 'active' AND EXISTS (SELECT 1 FROM memory_links l "
        f"WHERE l.user_id = {p} AND l.memory_id = {alias}.id AND l.unlinked_at IS NULL)))"
    )


def union(d: Dialect, cols: str, where: str, order: str) -> str:
    """Own rows and linked rows matching ``where``, each arm cut to its first ``want`` rows by ``order``
    before the two are merged. Params: user, *where, want, user, user, *where, want, limit, offset."""
    p = d.placeholder
    own = f"SELECT {cols} FROM memories m WHERE m.user_id = {p} AND {where} ORDER BY {order} LIMIT {p}"
    linked = f"SELECT {cols} {linked_arm(d)} AND {where} ORDER BY {order} LIMIT {p}"
    outer = order.replace("m.", "")
    return (
        f"SELECT * FROM (SELECT * FROM ({own}) o UNION ALL SELECT * FROM ({linked}) s) u "
        f"ORDER BY {outer} LIMIT {p} OFFSET {p}"
    )


def count(d: Dialect, where: str) -> str:
    """Own plus linked rows matching ``where``. Params: user, *where, user, user, *where."""
    p = d.placeholder
    return (
        f"SELECT (SELECT count(*) FROM memories m WHERE m.user_id = {p} AND {where}) "
        f"+ (SELECT count(*) {linked_arm(d)} AND {where})"
    )


def history_scope(d: Dialect) -> str:
    """History rows of one memory a user may read: their own rows of it, and while it is linked to them
    its owner's rows (not the owner's share rows: who else it is shared with is the owner's business).
    Params: memory, user, user, user, memory."""
    p = d.placeholder
    return (
        f"memory_id = {p} AND (user_id = {p} OR (event NOT IN {LINK_EVENTS} AND user_id = "
        f"(SELECT m.user_id {linked_arm(d)} AND m.id = {p})))"
    )


def links_sql(d: Dialect, one: bool) -> str:
    """Every link the user holds (params: user); or with ``one``, the links of one memory the user
    may see: all of them when they own it, else their own (params: memory, user, user)."""
    p = d.placeholder
    if not one:
        return f"SELECT {LINK_COLUMNS} FROM memory_links WHERE user_id = {p} ORDER BY linked_at, memory_id"
    return (
        f"SELECT {LINK_COLUMNS} FROM memory_links k WHERE k.memory_id = {p} AND (k.user_id = {p} OR EXISTS "
        f"(SELECT 1 FROM memories m WHERE m.id = k.memory_id AND m.user_id = {p})) ORDER BY linked_at, user_id"
    )


def link_from_row(row: Any) -> MemoryLink:
    return MemoryLink(
        user_id=row[0], memory_id=row[1], linked_at=row[2], linked_by=row[3], unlinked_at=row[4]
    )


def write_links(cur: Any, d: Dialect, opened: list[MemoryLink], closed: list[tuple[str, str, Any]]) -> None:
    """Open (or reopen) links, then close links: ``closed`` holds (user, memory, when)."""
    p = d.placeholder
    if opened:
        cur.executemany(
            f"INSERT INTO memory_links ({LINK_COLUMNS}) VALUES ({p}, {p}, {p}, {p}, NULL) "
            "ON CONFLICT (user_id, memory_id) DO UPDATE SET linked_at = excluded.linked_at, "
            "linked_by = excluded.linked_by, unlinked_at = NULL",
            [(k.user_id, k.memory_id, d.value(k.linked_at), k.linked_by) for k in opened],
        )
    if closed:
        cur.executemany(
            f"UPDATE memory_links SET unlinked_at = {p} WHERE user_id = {p} AND memory_id = {p} "
            "AND unlinked_at IS NULL",
            [(d.value(at), user, mid) for user, mid, at in closed],
        )


def _contains(d: Dialect, column: str) -> str:
    return f"instr({column}, ?) > 0" if d.name == "sqlite" else f"strpos({column}::text, %s) > 0"


def forget_links(cur: Any, d: Dialect, owner: str, memory_id: str) -> None:
    """Inside a purge of ``memory_id``: delete its links, and in the rows of every user it was ever
    linked to, forget what they say of it (values and reasons of their rows about it, reasons that
    name it, the meta of change rows about it or naming it)."""
    p = d.placeholder
    users = [
        r[0]
        for r in cur.execute(
            f"SELECT user_id FROM memory_links WHERE memory_id = {p}", (memory_id,)
        ).fetchall()
        if r[0] != owner
    ]
    cur.execute(f"DELETE FROM memory_links WHERE memory_id = {p}", (memory_id,))
    for user in users:
        cur.execute(
            f"UPDATE history SET old_value = NULL, new_value = NULL, reason = NULL "
            f"WHERE user_id = {p} AND memory_id = {p}",
            (user, memory_id),
        )
        cur.execute(
            f"UPDATE history SET reason = NULL WHERE user_id = {p} AND {_contains(d, 'reason')}",
            (user, memory_id),
        )
        cur.execute(
            f"UPDATE change_log SET meta = '{{}}' WHERE user_id = {p} AND (memory_id = {p} OR "
            f"{_contains(d, 'meta')})",
            (user, memory_id, memory_id),
        )


def forget_user_links(cur: Any, d: Dialect, user_id: str) -> None:
    """Inside a deletion of ``user_id``: the links they hold go, and their memories' links are
    forgotten as in a purge."""
    p = d.placeholder
    shared = [
        r[0]
        for r in cur.execute(
            f"SELECT DISTINCT k.memory_id FROM memory_links k JOIN memories m "
            f"ON m.id = k.memory_id WHERE m.user_id = {p}",
            (user_id,),
        ).fetchall()
    ]
    for memory_id in shared:
        forget_links(cur, d, user_id, memory_id)
    cur.execute(f"DELETE FROM memory_links WHERE user_id = {p}", (user_id,))
