"""Storage backends behind one contract; :func:`open_backend` picks one from a path or URL."""

from __future__ import annotations

from memlane.storage.base import Backend, Purge, ScoredRecord, Upsert, WriteBatch


def open_backend(location: str) -> Backend:
    """``postgresql://...`` opens PostgreSQL; anything else is a SQLite file path (or ``:memory:``)."""
    if location.startswith(("postgresql://", "postgres://", "postgresql+psycopg://")):
        from memlane.storage.postgres.backend import PostgresBackend

        return PostgresBackend(location)
    from memlane.storage.sqlite.backend import SqliteBackend

    return SqliteBackend(location)


__all__ = ["Backend", "Purge", "ScoredRecord", "Upsert", "WriteBatch", "open_backend"]
