"""Open a SQLite connection that can load sqlite-vec and has FTS5.

The stdlib ``sqlite3`` of this Python cannot load extensions; ``pysqlite3-binary`` bundles a SQLite
that can. We fall back to the stdlib module only where it supports extensions.
"""

from __future__ import annotations

import sqlite3 as _std_sqlite3
from pathlib import Path
from types import ModuleType
from typing import Any

import sqlite_vec

from memlane.model.errors import BackendError


def _driver() -> ModuleType:
    try:
        import pysqlite3.dbapi2 as driver

        return driver
    except ImportError:
        if hasattr(_std_sqlite3.Connection, "enable_load_extension"):
            return _std_sqlite3
        raise BackendError(
            "this Python's sqlite3 cannot load extensions; install pysqlite3-binary (pip install pysqlite3-binary)"
        ) from None


sqlite3: Any = _driver()


def connect(path: str | Path, *, secure_delete: bool = True) -> Any:
    """Autocommit connection (transactions are explicit), WAL, sqlite-vec loaded. ``secure_delete``:
    deleted content is overwritten with zeros, so a purged text stays in no free page or free cell of
    the file (measured cost: benchmarks/secure_delete_bench.py, docs/lifecycle.md)."""
    target = str(path)
    try:
        if target != ":memory:":
            Path(target).expanduser().parent.mkdir(parents=True, exist_ok=True)
            target = str(Path(target).expanduser())
        conn = sqlite3.connect(target, isolation_level=None, check_same_thread=False, timeout=30.0)
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
        conn.execute(
            "PRAGMA journal_mode=WAL"
        )  # the first read of the file: fails on one that is no database
    except (sqlite3.Error, OSError) as exc:
        raise BackendError(
            f"cannot open SQLite database {target!r}: {exc}; give the path of a memlane "
            "database, or of a new file in a directory you can write"
        ) from exc
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=30000")
    conn.execute(f"PRAGMA secure_delete={'ON' if secure_delete else 'OFF'}")
    # Search reads a user's vector chunks, rows and keyword postings scattered over the file: a 64 MB
    # page cache and memory-mapped reads (no read() call per page) keep that off the syscall path.
    conn.execute("PRAGMA cache_size=-65536")
    conn.execute("PRAGMA mmap_size=268435456")
    return conn
