"""Storage backends behind one contract; :func:`open_backend` picks one from a path or URL."""

from __future__ import annotations

from memlane.model.config import Settings
from memlane.storage.base import Backend, Purge, ScoredRecord, Upsert, WriteBatch
from memlane.storage.location import backend_kind


def open_backend(location: str, settings: Settings | None = None) -> Backend:
    """``postgresql://...`` opens PostgreSQL; a file path (or ``:memory:``) SQLite; any other URL
    scheme is a ValidationError. With ``settings.vectors == "s3vectors"`` the dense search goes to an
    Amazon S3 Vectors index (:mod:`memlane.storage.s3vectors.channel`)."""
    if settings is not None and settings.vectors == "s3vectors":
        from memlane.storage.s3vectors.channel import check_settings

        check_settings(settings)
    inner: Backend
    if backend_kind(location) == "postgres":
        from memlane.storage.postgres.backend import PostgresBackend

        inner = PostgresBackend(location, pg_vector="auto" if settings is None else settings.pg_vector)
    else:
        from memlane.storage.sqlite.backend import SqliteBackend

        inner = SqliteBackend(
            location, secure_delete=True if settings is None else settings.sqlite_secure_delete
        )
    if settings is None or settings.vectors != "s3vectors":
        return inner
    try:
        from memlane.storage.s3vectors.channel import channel_from_settings

        return channel_from_settings(inner, settings)
    except BaseException:
        inner.close()
        raise


__all__ = ["Backend", "Purge", "ScoredRecord", "Upsert", "WriteBatch", "open_backend"]
