"""Compacting a SQLite store (``memlane compact``): what was deleted leaves the file.

With ``secure_delete`` (the default) a purge or ``delete_user`` already overwrites the deleted content
with zeros, but the pages stay in the file (as free pages) and the write-ahead log keeps the page
images written before the deletion until it is checkpointed and overwritten. Compacting empties the
log (``wal_checkpoint(TRUNCATE)``), rebuilds the file without free pages (``VACUUM``) and empties the
log again, so neither file holds a deleted row's bytes and the file shrinks to what is live.
"""

from __future__ import annotations

import os
from typing import Any

from memlane.model.errors import BackendError
from memlane.storage.sqlite.connect import sqlite3


def file_bytes(path: str) -> int:
    """The database file and its write-ahead log, in bytes (0 for ``:memory:``)."""
    if path == ":memory:":
        return 0
    base = os.path.expanduser(path)
    return sum(os.path.getsize(p) for p in (base, f"{base}-wal") if os.path.exists(p))


def _empty_log(conn: Any, path: str) -> None:
    busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    if busy is not None and busy[0]:
        raise BackendError(
            f"cannot compact {path!r}: another connection is reading or writing it; "
            "stop the other memlane processes on this file and run it again"
        )


def compact(conn: Any, path: str) -> dict[str, int]:
    """Run on the backend's connection, outside any transaction; returns the sizes before and after."""
    before = file_bytes(path)
    try:
        _empty_log(conn, path)
        conn.execute("VACUUM")
        _empty_log(conn, path)
    except sqlite3.Error as exc:
        raise BackendError(f"cannot compact {path!r}: {exc}") from exc
    return {"bytes_before": before, "bytes_after": file_bytes(path)}
