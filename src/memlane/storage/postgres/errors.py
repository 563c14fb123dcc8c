"""Turn psycopg failures into :class:`BackendError` messages a user can act on."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg import errors as pg_errors

from memlane.model.errors import BackendError
from memlane.storage.location import redact_url

__all__ = ["normalize_url", "redact_url", "translate_errors"]


def normalize_url(url: str) -> str:
    """Accept SQLAlchemy-style ``postgresql+psycopg://`` URLs too; psycopg wants the plain scheme."""
    scheme, sep, rest = url.partition("://")
    if sep and scheme.startswith(("postgresql+", "postgres+")):
        return f"postgresql://{rest}"
    return url


def _describe(exc: psycopg.Error, url: str) -> str:
    where = redact_url(url)
    if isinstance(exc, pg_errors.InsufficientPrivilege):
        return f"PostgreSQL at {where} refused the operation ({exc}); grant the memlane user the privilege"
    if isinstance(exc, pg_errors.UndefinedFile | pg_errors.FeatureNotSupported) and "vector" in str(exc):
        return (
            f"the pgvector extension is not installed on the PostgreSQL server at {where} ({exc}); "
            "install pgvector (https://github.com/pgvector/pgvector) or use a server that has it"
        )
    if isinstance(exc, pg_errors.CharacterNotInRepertoire | pg_errors.UntranslatableCharacter):
        return f"PostgreSQL text cannot hold this value ({exc}); remove NUL characters from text fields"
    if isinstance(exc, psycopg.OperationalError):
        return f"cannot use the PostgreSQL server at {where}: {exc}".rstrip()
    return f"PostgreSQL error at {where}: {exc}".rstrip()


@contextmanager
def translate_errors(url: str) -> Iterator[None]:
    """Re-raise psycopg errors (connection, SQL, data) as :class:`BackendError`, naming the server."""
    try:
        yield
    except psycopg.Error as exc:
        raise BackendError(_describe(exc, url)) from exc
