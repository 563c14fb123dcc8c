"""PostgreSQL + pgvector storage backend."""

from memlane.storage.postgres.backend import PostgresBackend

__all__ = ["PostgresBackend"]
