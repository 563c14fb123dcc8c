"""SQLite side of a purge: the memory's content goes from every table that held a copy of it.

Runs inside the write transaction. The FTS index deletes securely (``secure-delete``, set by the
schema), so no segment keeps the purged words; sqlite-vec zeroes a deleted vector's bytes.
"""

from __future__ import annotations

import json
from typing import Any

from memlane.storage.filter_sql import SQLITE
from memlane.storage.links import forget_links
from memlane.storage.snapshots import content_words, quotes, without
from memlane.storage.sqlite.vector_cache import journal

TOMBSTONE = (
    "UPDATE memories SET summary = '[purged]', tags = '[]', entities = '[]', metadata = '{}', "
    "key = NULL, source_ref = NULL, state = 'purged', has_vector = 0 WHERE rid = ?"
)


def texts_of(c: Any, user_id: str, memory_id: str, summary: str) -> set[str]:
    """Every summary the memory has had (its own and its history's snapshots)."""
    rows = c.execute(
        "SELECT json_extract(old_value, '$.summary'), json_extract(new_value, '$.summary') "
        "FROM history WHERE user_id = ? AND memory_id = ?",
        (user_id, memory_id),
    ).fetchall()
    found = {summary, *(t for row in rows for t in row if isinstance(t, str))}
    return {t for t in found if t and t != "[purged]"}


def purge(
    c: Any, user_id: str, memory_id: str, absorbed_by: str | None = None, brought: tuple[str, ...] = ()
) -> None:
    """Forget the memory; ``absorbed_by`` (a merge's survivor) loses ``brought`` from its history's snapshots."""
    row = c.execute(
        "SELECT rid, has_vector, summary, superseded_by FROM memories WHERE user_id = ? AND id = ?",
        (user_id, memory_id),
    ).fetchone()
    if row is None:
        return
    rid, has_vector, summary, successor = row[0], row[1], row[2], row[3] or memory_id
    texts = texts_of(c, user_id, memory_id, summary)
    if has_vector:
        c.execute("DELETE FROM memory_vectors WHERE rowid = ?", (rid,))
        journal(c, [(user_id, rid)])
    c.execute("DELETE FROM memories_fts WHERE rowid = ?", (rid,))
    c.execute(TOMBSTONE, (rid,))
    # the memory's own history keeps its events, not their values; the purge row keeps its reason
    c.execute(
        "UPDATE history SET old_value = NULL, new_value = NULL, "
        "reason = CASE WHEN event = 'PURGE' THEN reason END WHERE user_id = ? AND memory_id = ?",
        (user_id, memory_id),
    )
    c.execute("UPDATE change_log SET meta = '{}' WHERE user_id = ? AND memory_id = ?", (user_id, memory_id))
    # a decided job's outcome names the memory and quotes the candidate
    c.execute(
        "UPDATE jobs SET payload = '{}' WHERE user_id = ? AND status = 'done' AND "
        "json_extract(payload, '$.memory_id') = ?",
        (user_id, memory_id),
    )
    # proposals to change the memory quote it (and the change): they go
    c.execute("DELETE FROM proposals WHERE user_id = ? AND memory_id = ?", (user_id, memory_id))
    # reasons of other memories' rows that name this one ("superseded by <id>: <why>") may quote it
    c.execute(
        "UPDATE history SET reason = NULL WHERE user_id = ? AND instr(reason, ?) > 0", (user_id, memory_id)
    )
    for text in texts:  # copies of the text under other memories (a keyed fact's old version, a supersede)
        for col in ("old_value", "new_value"):  # the row's reason explains that change, quoting it
            c.execute(
                f"UPDATE history SET {col} = NULL, reason = NULL WHERE user_id = ? AND "
                f"json_extract({col}, '$.summary') = ?",
                (user_id, text),
            )
        c.execute(
            "UPDATE change_log SET meta = '{}' WHERE user_id = ? AND EXISTS "
            "(SELECT 1 FROM json_each(change_log.meta) WHERE value = ?)",
            (user_id, text),
        )
        c.execute(
            "DELETE FROM proposals WHERE user_id = ? AND (current = ? OR json_extract(candidate, "
            "'$.summary') = ?)",
            (user_id, text, text),
        )
        # jobs not yet done that carry the text would bring it back: they end here, with no payload
        c.execute(
            "UPDATE jobs SET payload = '{}', status = 'done', last_error = 'purged' "
            "WHERE user_id = ? AND instr(payload, ?) > 0",
            (user_id, json.dumps(text)[1:-1]),
        )
    forget_quotes(c, user_id, (memory_id, successor), texts)
    forget_links(c, SQLITE, user_id, memory_id)  # its links, and what the users it was linked to hold of it
    if absorbed_by is not None and brought:
        forget_brought(c, user_id, absorbed_by, brought)


def forget_quotes(c: Any, user_id: str, ids: tuple[str, str], texts: set[str]) -> None:
    """Reasons that quote a purged text, on the rows of a change next to it: rows of the memory or the
    one that replaced it (``ids``), or naming either (not purge rows: those are the purger's words)."""
    words = sorted(content_words(texts))
    if not words:
        return
    rows = c.execute(
        "SELECT id, reason, json_extract(old_value, '$.summary'), json_extract(new_value, '$.summary') "
        "FROM history WHERE user_id = ? AND event <> 'PURGE' AND reason IS NOT NULL AND (memory_id IN "
        "(?, ?) OR instr(reason, ?) > 0 OR instr(reason, ?) > 0)",
        (user_id, *ids, *ids),
    ).fetchall()
    quoting = [(r[0],) for r in rows if quotes(r[1], set(words), r[2:])]
    c.executemany("UPDATE history SET reason = NULL WHERE id = ?", quoting)


def forget_brought(c: Any, user_id: str, memory_id: str, words: tuple[str, ...]) -> None:
    rows = c.execute(
        "SELECT id, old_value, new_value FROM history WHERE user_id = ? AND memory_id = ?",
        (user_id, memory_id),
    ).fetchall()
    for hid, old, new in rows:
        before, after = (without(json.loads(v), words) if v else None for v in (old, new))
        if before is not None or after is not None:
            c.execute(
                "UPDATE history SET old_value = coalesce(?, old_value), new_value = coalesce(?, new_value) "
                "WHERE id = ?",
                (before and json.dumps(before), after and json.dumps(after), hid),
            )
