"""Compacting a PostgreSQL store (``memlane compact``): ``VACUUM FULL`` of memlane's tables.

A purge or ``delete_user`` leaves the old row versions in the table files until PostgreSQL vacuums
them, and a plain ``VACUUM`` only marks their space reusable. ``VACUUM FULL`` writes each table anew
(and its indexes), so the files no longer hold a deleted row. It takes an exclusive lock on each
table while it rewrites it: run it when the store is quiet. Only memlane's own tables are touched.
"""

from __future__ import annotations

from typing import Any

import psycopg

TABLES = (
    "memories",
    "memory_vectors",
    "history",
    "relations",
    "change_log",
    "jobs",
    "op_events",
    "proposals",
    "sessions",
    "messages",
    "message_vectors",
    "memory_links",
    "pair_checks",
    "thread_revision",
    "user_revision",
    "vector_users",
)
_SIZE = "SELECT coalesce(sum(pg_total_relation_size(to_regclass(t))), 0)::bigint FROM unnest(%s::text[]) AS t"


def compact(url: str, connect_kwargs: dict[str, Any]) -> dict[str, int]:
    """On a connection of its own in autocommit (``VACUUM`` runs outside a transaction)."""
    with psycopg.connect(url, autocommit=True, **connect_kwargs) as conn:
        present = [
            r[0]
            for r in conn.execute(
                "SELECT t FROM unnest(%s::text[]) AS t WHERE to_regclass(t) IS NOT NULL", (list(TABLES),)
            ).fetchall()
        ]
        before = int(conn.execute(_SIZE, (present,)).fetchone()[0])  # type: ignore[index]
        for table in present:  # names from the fixed list above
            conn.execute(f"VACUUM (FULL, ANALYZE) {table}")
        after = int(conn.execute(_SIZE, (present,)).fetchone()[0])  # type: ignore[index]
    return {"bytes_before": before, "bytes_after": after}
