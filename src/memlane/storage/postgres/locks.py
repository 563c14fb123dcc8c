"""Per-user advisory locks, so formation decisions of one user are serialised across processes."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from psycopg_pool import ConnectionPool

from memlane.storage.postgres.errors import translate_errors

# First key of the two-key advisory lock: keeps memlane's user locks apart from other users of
# advisory locks in the same database (and from the migration lock).
USER_LOCK_CLASS = 0x6D6C


class UserLocks:
    """Session-level ``pg_advisory_lock`` held on a connection of a small pool of its own.

    A separate pool, because the code run under the lock needs connections from the main pool: holding
    locks there could exhaust it and deadlock.
    """

    def __init__(self, url: str, connect_kwargs: dict[str, Any], max_size: int, timeout: float) -> None:
        self._url = url
        self._kwargs = {**connect_kwargs, "autocommit": True}
        self._max_size = max_size
        self._timeout = timeout
        self._pool: ConnectionPool | None = None
        self._guard = threading.Lock()

    def _get_pool(self) -> ConnectionPool:
        with self._guard:
            if self._pool is None:  # opened on first use: many stores never take a user lock
                self._pool = ConnectionPool(
                    self._url,
                    min_size=0,
                    max_size=self._max_size,
                    timeout=self._timeout,
                    kwargs=self._kwargs,
                    open=True,
                    name="memlane-locks",
                )
            return self._pool

    @contextmanager
    def hold(self, user_id: str) -> Iterator[None]:
        with translate_errors(self._url), self._get_pool().connection() as conn:
            key = (USER_LOCK_CLASS, user_id)
            conn.execute("SELECT pg_advisory_lock(%s, hashtext(%s))", key)
            try:
                yield
            finally:
                row = conn.execute("SELECT pg_advisory_unlock(%s, hashtext(%s))", key).fetchone()
                if row != (True,):  # never hand a connection still holding the lock back to the pool
                    conn.close()

    def close(self) -> None:
        with self._guard:
            if self._pool is not None:
                self._pool.close()
