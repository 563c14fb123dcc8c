"""PostgreSQL side of a purge: the memory's content goes from every table that held a copy of it.

Runs inside the write transaction. The keyword index is a generated column of the record, so it
follows the tombstone. (Old row versions stay on disk until PostgreSQL vacuums them, as for any
deleted row.)
"""

from __future__ import annotations

import json
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from memlane.storage.filter_sql import POSTGRES
from memlane.storage.links import forget_links
from memlane.storage.snapshots import content_words, quotes, without

_TOMBSTONE = (
    "UPDATE memories SET summary = '[purged]', tags = '{}', entities = '{}', metadata = '{}', key = NULL, "
    "source_ref = NULL, state = 'purged' WHERE user_id = %s AND id = %s"
)


def purge(
    cur: psycopg.Cursor[Any],
    user_id: str,
    memory_id: str,
    with_vectors: bool,
    absorbed_by: str | None = None,
    brought: tuple[str, ...] = (),
) -> None:
    """Forget the memory; ``absorbed_by`` (a merge's survivor) loses ``brought`` from its history's snapshots."""
    if absorbed_by is not None and brought:
        forget_brought(cur, user_id, absorbed_by, brought)
    row = cur.execute(
        "SELECT summary, superseded_by FROM memories WHERE user_id = %s AND id = %s FOR UPDATE",
        (user_id, memory_id),
    ).fetchone()
    if row is None:
        return
    found = cur.execute(
        "SELECT old_value->>'summary', new_value->>'summary' FROM history "
        "WHERE user_id = %s AND memory_id = %s",
        (user_id, memory_id),
    ).fetchall()
    texts = {t for t in (row[0], *(t for r in found for t in r)) if t and t != "[purged]"}
    cur.execute(_TOMBSTONE, (user_id, memory_id))
    if with_vectors:
        cur.execute("DELETE FROM memory_vectors WHERE user_id = %s AND id = %s", (user_id, memory_id))
    # the memory's own history keeps its events, not their values; the purge row keeps its reason
    cur.execute(
        "UPDATE history SET old_value = NULL, new_value = NULL, "
        "reason = CASE WHEN event = 'PURGE' THEN reason END WHERE user_id = %s AND memory_id = %s",
        (user_id, memory_id),
    )
    cur.execute(
        "UPDATE change_log SET meta = '{}' WHERE user_id = %s AND memory_id = %s", (user_id, memory_id)
    )
    # a decided job's outcome names the memory and quotes the candidate
    cur.execute(
        "UPDATE jobs SET payload = '{}' WHERE user_id = %s AND status = 'done' AND "
        "payload->>'memory_id' = %s",
        (user_id, memory_id),
    )
    # proposals to change the memory quote it (and the change): they go
    cur.execute("DELETE FROM proposals WHERE user_id = %s AND memory_id = %s", (user_id, memory_id))
    # reasons of other memories' rows that name this one ("superseded by <id>: <why>") may quote it
    cur.execute(
        "UPDATE history SET reason = NULL WHERE user_id = %s AND strpos(reason, %s) > 0", (user_id, memory_id)
    )
    forget_links(
        cur, POSTGRES, user_id, memory_id
    )  # its links, and what the users it was linked to hold of it
    if not texts:
        return
    forget_quotes(cur, user_id, (memory_id, row[1] or memory_id), texts)
    words = sorted(texts)
    # copies of the text under other memories (a keyed fact's old version, a supersede's change row)
    for col in ("old_value", "new_value"):  # the row's reason explains that change, quoting it
        cur.execute(
            f"UPDATE history SET {col} = NULL, reason = NULL WHERE user_id = %s AND "
            f"{col}->>'summary' = ANY(%s)",
            (user_id, words),
        )
    cur.execute(
        "UPDATE change_log SET meta = '{}' WHERE user_id = %s AND EXISTS "
        "(SELECT 1 FROM jsonb_each_text(meta) AS m WHERE m.value = ANY(%s))",
        (user_id, words),
    )
    cur.execute(
        "DELETE FROM proposals WHERE user_id = %s AND (current = ANY(%s) OR candidate->>'summary' = ANY(%s))",
        (user_id, words, words),
    )
    # jobs not yet done that carry the text would bring it back: they end here, with no payload
    needles = [f"%{_like(json.dumps(t, ensure_ascii=False)[1:-1])}%" for t in words]
    cur.execute(
        "UPDATE jobs SET payload = '{}', status = 'done', last_error = 'purged' "
        "WHERE user_id = %s AND payload::text LIKE ANY(%s)",
        (user_id, needles),
    )


def forget_quotes(cur: psycopg.Cursor[Any], user_id: str, ids: tuple[str, str], texts: set[str]) -> None:
    """Reasons that quote a purged text, on the rows of a change next to it: rows of the memory or the
    one that replaced it (``ids``), or naming either (not purge rows: those are the purger's words)."""
    words = sorted(content_words(texts))
    if not words:
        return
    rows = cur.execute(
        "SELECT id, reason, old_value->>'summary', new_value->>'summary' FROM history "
        "WHERE user_id = %s AND event <> 'PURGE' AND reason IS NOT NULL AND (memory_id = ANY(%s) "
        "OR strpos(reason, %s) > 0 OR strpos(reason, %s) > 0)",
        (user_id, list(ids), *ids),
    ).fetchall()
    quoting = [(r[0],) for r in rows if quotes(r[1], set(words), r[2:])]
    if quoting:
        cur.executemany("UPDATE history SET reason = NULL WHERE id = %s", quoting)


def forget_brought(cur: psycopg.Cursor[Any], user_id: str, memory_id: str, words: tuple[str, ...]) -> None:
    rows = cur.execute(
        "SELECT id, old_value, new_value FROM history WHERE user_id = %s AND memory_id = %s",
        (user_id, memory_id),
    ).fetchall()
    for hid, old, new in rows:
        before, after = without(old, words), without(new, words)
        if before is not None or after is not None:
            cur.execute(
                "UPDATE history SET old_value = coalesce(%s, old_value), new_value = coalesce(%s, new_value) "
                "WHERE id = %s",
                (before and Jsonb(before), after and Jsonb(after), hid),
            )


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
