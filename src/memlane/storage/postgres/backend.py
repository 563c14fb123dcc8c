"""PostgreSQL + pgvector backend: a psycopg 3 connection pool over the schema in ``migrations.py``."""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from pgvector.psycopg import register_vector
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from memlane.model.record import MemoryRecord
from memlane.storage import links as link_sql
from memlane.storage.base import Backend, WriteBatch
from memlane.storage.filter_sql import POSTGRES
from memlane.storage.postgres import jobs, migrations, search
from memlane.storage.postgres.compact import compact as compact_tables
from memlane.storage.postgres.errors import normalize_url, translate_errors
from memlane.storage.postgres.locks import USER_LOCK_CLASS, UserLocks
from memlane.storage.postgres.memories import PostgresMemories
from memlane.storage.postgres.parts import (
    PostgresChangeLog,
    PostgresJobQueue,
    PostgresProposals,
    PostgresSessions,
)
from memlane.storage.postgres.rows import (
    RECORD_COLUMNS,
    record_from_row,
)
from memlane.storage.postgres.writes import apply_batch

_CONNECT_TIMEOUT = 10  # seconds, unless the URL sets connect_timeout


def _configure(conn: psycopg.Connection[Any]) -> None:
    register_vector(conn)
    conn.commit()  # the pool refuses a connection left inside the type lookup's transaction


log = logging.getLogger(__name__)


def vectors_notice(reason: str) -> str:
    """What a store without pgvector does, and how to get vectors back."""
    return (
        f"PostgreSQL without pgvector: {reason}. memlane stores no vectors here and searches by keyword "
        "only (PostgreSQL full-text search); formation compares a new fact only with the memories that "
        "share its words, so a paraphrase in other words is stored as a new memory. To get vector search: "
        "install pgvector on the server (https://github.com/pgvector/pgvector, e.g. the "
        "postgresql-<version>-pgvector package), let this role create it (or CREATE EXTENSION vector as "
        "a superuser), unset MEMLANE_PG_VECTOR=off if set, restart memlane, then run "
        "`memlane reembed --missing-only`."
    )


# A connection back in the pool within this many seconds is handed out unchecked: checking costs a
# round trip, and a search takes the pool five times (a fifth of its time on a local server). One
# idle longer (the server may have restarted or dropped it) is checked, and replaced if broken.
_CHECK_AFTER_IDLE = 5.0
_returned: weakref.WeakKeyDictionary[psycopg.Connection[Any], float] = weakref.WeakKeyDictionary()


def _stamp_return(conn: psycopg.Connection[Any]) -> None:
    _returned[conn] = time.monotonic()


def _check_if_idle(conn: psycopg.Connection[Any]) -> None:
    if time.monotonic() - _returned.get(conn, 0.0) > _CHECK_AFTER_IDLE:
        ConnectionPool.check_connection(conn)


class PostgresBackend(Backend):
    """Memories in any PostgreSQL with pgvector, e.g. ``PostgresBackend("postgresql://u:p@host/db")``.

    The constructor applies pending migrations, so a new database is ready to use.
    """

    name = "postgres"

    def __init__(
        self,
        url: str,
        *,
        min_size: int = 1,
        max_size: int = 10,
        timeout: float = 30.0,
        pg_vector: str = "auto",
    ) -> None:
        """``pg_vector`` (``MEMLANE_PG_VECTOR``): ``auto`` uses pgvector where the server has it and
        runs keyword-only where it has not; ``off`` runs keyword-only as if the server had none."""
        if pg_vector not in ("auto", "off"):
            raise ValueError(f"pg_vector must be 'auto' or 'off', got {pg_vector!r}")
        self._url = normalize_url(url)
        self._pg_vector = pg_vector
        self._no_vectors: str | None = None  # why this store has no vectors (set by the first migrate)
        self._migrated = False
        self._connect_kwargs: dict[str, Any] = {}
        with translate_errors(self._url):
            if "connect_timeout" not in conninfo_to_dict(self._url):
                self._connect_kwargs["connect_timeout"] = _CONNECT_TIMEOUT
        self._dims: int | None = None
        self._common_words = search.CommonWords()
        self.memories = PostgresMemories(self)
        self.jobs = PostgresJobQueue(self)
        self.sessions = PostgresSessions(self)
        self.changes = PostgresChangeLog(self)
        self.proposals = PostgresProposals(self)
        self.migrate()
        if self._no_vectors is not None:
            log.warning("%s", vectors_notice(self._no_vectors))
        self._pool = ConnectionPool(
            self._url,
            min_size=min_size,
            max_size=max_size,
            timeout=timeout,
            kwargs=self._connect_kwargs,
            configure=_configure if self._no_vectors is None else None,
            check=_check_if_idle,
            reset=_stamp_return,
            open=False,
            name="memlane",
        )
        opened = False
        try:
            with translate_errors(self._url):
                self._pool.open(wait=True, timeout=timeout)
            with self._connection() as conn:
                row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
            opened = True
        finally:
            if not opened:  # stop the pool's background workers
                self._pool.close()
        version = tuple(int(p) for p in str(row[0] if row else "0").split(".")[:2] if p.isdigit())
        self._iterative_scan = version >= (0, 8)
        self._locks = UserLocks(self._url, self._connect_kwargs, max_size, timeout)

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection; its transaction commits on success and rolls back on error."""
        with translate_errors(self._url), self._pool.connection() as conn:
            yield conn

    # --- lifecycle ----------------------------------------------------------------------------
    def migrate(self) -> int:
        # A connection of its own: pool connections register pgvector's types, which the first
        # migration is what creates.
        with translate_errors(self._url), psycopg.connect(self._url, **self._connect_kwargs) as conn:
            version, no_vectors = migrations.migrate(conn, self._pg_vector)
            if no_vectors is None:
                migrations.upgrade_vector_table(conn)
            # The first migrate decides the mode: the pool's connections are set up for it, so
            # pgvector installed while this process runs takes a restart to be used.
            if not self._migrated:
                self._no_vectors, self._migrated = no_vectors, True
            return version

    @property
    def has_vectors(self) -> bool:
        return self._no_vectors is None

    def notices(self) -> list[str]:
        return [] if self._no_vectors is None else [vectors_notice(self._no_vectors)]

    def schema_version(self) -> int:
        with self._connection() as conn:
            return migrations.read_version(conn)

    def close(self) -> None:
        self._locks.close()
        self._pool.close()

    def compact(self) -> dict[str, int]:
        with translate_errors(self._url):
            return compact_tables(self._url, self._connect_kwargs)

    def get_meta(self, key: str) -> str | None:
        with self._connection() as conn:
            row = conn.execute("SELECT value FROM memlane_meta WHERE key = %s", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self._connection() as conn:
            conn.execute(
                "INSERT INTO memlane_meta (key, value) VALUES (%s, %s) "
                "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (key, value),
            )

    def create_vector_index(self, dims: int) -> None:
        if self._no_vectors is not None:  # no vectors without pgvector (the notice says so)
            return
        with self._connection() as conn:
            migrations.create_vector_table(conn, dims)
        self._dims = dims

    def _vector_dims(self, conn: psycopg.Connection[Any]) -> int | None:
        if self._no_vectors is not None:
            return None
        if self._dims is None:  # another process may have created it since
            self._dims = migrations.vector_dims(conn)
        return self._dims

    # --- writes -------------------------------------------------------------------------------
    def apply(self, batch: WriteBatch) -> None:
        with self._connection() as conn:
            apply_batch(conn, batch, self._vector_dims(conn), vectors=self.has_vectors)

    def apply_planned(
        self, reads: Mapping[str, Sequence[str]], plan: Callable[[dict[str, MemoryRecord]], WriteBatch]
    ) -> WriteBatch:
        if len(reads) == 1:  # the user lock: threads of this process queue without holding a connection
            with self.user_lock(next(iter(reads))):
                return self._apply_planned(reads, plan, lock=False)
        return self._apply_planned(reads, plan, lock=True)

    def _apply_planned(
        self,
        reads: Mapping[str, Sequence[str]],
        plan: Callable[[dict[str, MemoryRecord]], WriteBatch],
        lock: bool,
    ) -> WriteBatch:
        with self._connection() as conn, conn.transaction():
            rows = []
            with conn.cursor(row_factory=dict_row) as cur:
                for user in sorted(reads):  # in one order: two writers cannot deadlock
                    if (
                        lock
                    ):  # transaction-scoped, on the user locks' key (rows not yet written cannot be locked)
                        cur.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (USER_LOCK_CLASS, user))
                    rows += cur.execute(
                        f"SELECT {RECORD_COLUMNS} FROM memories m WHERE m.user_id = %s AND m.id = ANY(%s)",
                        (user, list(reads[user])),
                    ).fetchall()
            batch = plan({r.id: r for r in map(record_from_row, rows)})
            apply_batch(
                conn, batch, self._vector_dims(conn), vectors=self.has_vectors
            )  # its transaction nests in this one
        return batch

    def delete_user(self, user_id: str) -> int:
        with self._connection() as conn, conn.transaction():
            with conn.cursor() as cur:
                link_sql.forget_user_links(cur, POSTGRES, user_id)
            conn.execute("DELETE FROM history WHERE user_id = %s", (user_id,))
            conn.execute("DELETE FROM relations WHERE user_id = %s", (user_id,))
            if self._vector_dims(conn) is not None:
                conn.execute("DELETE FROM memory_vectors WHERE user_id = %s", (user_id,))
                conn.execute("DELETE FROM vector_users WHERE user_id = %s", (user_id,))
            jobs.delete_user(conn, user_id)
            return conn.execute("DELETE FROM memories WHERE user_id = %s", (user_id,)).rowcount

    @contextmanager
    def user_lock(self, user_id: str) -> Iterator[None]:
        """In-process lock first (threads of this process queue without holding a connection), then
        a PostgreSQL advisory lock for other processes on the same database."""
        with super().user_lock(user_id), self._locks.hold(user_id):
            yield
