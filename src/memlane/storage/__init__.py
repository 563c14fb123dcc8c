"""Storage backends behind one contract; :func:`open_backend` picks one from a path or URL."""

from __future__ import annotations

from memlane.storage.base import Backend, Purge, ScoredRecord, Upsert, WriteBatch
from memlane.storage.location import backend_kind


def open_backend(location: str) -> Backend:
    """``postgresql://...`` opens PostgreSQL; a file path (or ``:memory:``) SQLite; any other URL
    scheme is a ValidationError."""
    if backend_kind(location) == "postgres":
        from memlane.storage.postgres.backend import PostgresBackend

        return PostgresBackend(location)
    from memlane.storage.sqlite.backend import SqliteBackend

    return SqliteBackend(location)


__all__ = ["Backend", "Purge", "ScoredRecord", "Upsert", "WriteBatch", "open_backend"]
