"""What every part of a :class:`~memlane.storage.postgres.backend.PostgresBackend` shares: its
connection pool (``_connection``: a pooled connection whose transaction commits on success)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import psycopg

if TYPE_CHECKING:
    from memlane.storage.postgres.backend import PostgresBackend


class PostgresPart:
    def __init__(self, db: PostgresBackend) -> None:
        self._db = db
        self._connection: Callable[[], AbstractContextManager[psycopg.Connection[Any]]] = db._connection
