"""PostgreSQL + pgvector backend: a psycopg 3 connection pool over the schema in ``migrations.py``."""

from __future__ import annotations

import builtins
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import psycopg
from pgvector.psycopg import register_vector
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from memlane.model.consent import Proposal, ProposalFilter
from memlane.model.errors import DimensionMismatchError
from memlane.model.filters import Condition
from memlane.model.ids import GLOBAL_USER
from memlane.model.jobs import Change, Job, JobStatus, OpCount, OpEvent
from memlane.model.link import MemoryLink
from memlane.model.record import HistoryEntry, MemoryRecord, Relation
from memlane.model.session import ChatSession, MessageHit, SessionFilter, SessionMessage
from memlane.storage import links as link_sql
from memlane.storage.base import Backend, ScoredRecord, WriteBatch
from memlane.storage.filter_sql import POSTGRES, compile_conditions
from memlane.storage.postgres import jobs, migrations, proposals, search, sessions
from memlane.storage.postgres.compact import compact as compact_tables
from memlane.storage.postgres.errors import normalize_url, translate_errors
from memlane.storage.postgres.locks import USER_LOCK_CLASS, UserLocks
from memlane.storage.postgres.rows import (
    HISTORY_COLUMNS,
    RECORD_COLUMNS,
    RELATION_COLUMNS,
    history_from_row,
    record_from_row,
    relation_from_row,
)
from memlane.storage.postgres.writes import apply_batch

_CONNECT_TIMEOUT = 10  # seconds, unless the URL sets connect_timeout


def _configure(conn: psycopg.Connection[Any]) -> None:
    register_vector(conn)
    conn.commit()  # the pool refuses a connection left inside the type lookup's transaction


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

    def __init__(self, url: str, *, min_size: int = 1, max_size: int = 10, timeout: float = 30.0) -> None:
        self._url = normalize_url(url)
        self._connect_kwargs: dict[str, Any] = {}
        with translate_errors(self._url):
            if "connect_timeout" not in conninfo_to_dict(self._url):
                self._connect_kwargs["connect_timeout"] = _CONNECT_TIMEOUT
        self._dims: int | None = None
        self._common_words = search.CommonWords()
        self.migrate()
        self._pool = ConnectionPool(
            self._url,
            min_size=min_size,
            max_size=max_size,
            timeout=timeout,
            kwargs=self._connect_kwargs,
            configure=_configure,
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
            version = migrations.migrate(conn)
            migrations.upgrade_vector_table(conn)
            return version

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
        with self._connection() as conn:
            migrations.create_vector_table(conn, dims)
        self._dims = dims

    def _vector_dims(self, conn: psycopg.Connection[Any]) -> int | None:
        if self._dims is None:  # another process may have created it since
            self._dims = migrations.vector_dims(conn)
        return self._dims

    # --- writes -------------------------------------------------------------------------------
    def apply(self, batch: WriteBatch) -> None:
        with self._connection() as conn:
            apply_batch(conn, batch, self._vector_dims(conn))

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
            apply_batch(conn, batch, self._vector_dims(conn))  # its transaction nests in this one
        return batch

    # --- reads --------------------------------------------------------------------------------
    def _records(self, sql: str, params: Sequence[Any]) -> builtins.list[MemoryRecord]:
        with self._connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            return [record_from_row(r) for r in cur.execute(sql, params).fetchall()]

    def get(self, user_id: str, memory_id: str, *, shared: bool = False) -> MemoryRecord | None:
        found = self.get_many(user_id, [memory_id], shared=shared)
        return found[0] if found else None

    def get_many(
        self, user_id: str, memory_ids: Sequence[str], *, shared: bool = False
    ) -> builtins.list[MemoryRecord]:
        if not memory_ids:
            return []
        scope = link_sql.seen(POSTGRES) if shared else "m.user_id = %s"
        found = self._records(
            f"SELECT {RECORD_COLUMNS} FROM memories m WHERE {scope} AND m.id = ANY(%s)",
            (user_id, *([user_id] if shared else []), list(memory_ids)),
        )
        by_id = {r.id: r for r in found}
        return [by_id[i] for i in dict.fromkeys(memory_ids) if i in by_id]  # in the order asked

    def list(
        self,
        user_id: str,
        conditions: Sequence[Condition] = (),
        *,
        limit: int = 100,
        offset: int = 0,
        newest_first: bool = True,
        shared: bool = False,
    ) -> builtins.list[MemoryRecord]:
        where, params = compile_conditions(conditions, POSTGRES)
        order = "DESC" if newest_first else "ASC"
        by = f"m.updated_at {order}, m.id {order}"
        if shared:  # own arm and linked arm, each cut to limit + offset first
            want = limit + offset
            return self._records(
                link_sql.union(POSTGRES, RECORD_COLUMNS, where, by),
                [user_id, *params, want, user_id, user_id, *params, want, limit, offset],
            )
        return self._records(
            f"SELECT {RECORD_COLUMNS} FROM memories m WHERE m.user_id = %s AND {where} "
            f"ORDER BY {by} LIMIT %s OFFSET %s",
            [user_id, *params, limit, offset],
        )

    def count(self, user_id: str, conditions: Sequence[Condition] = (), *, shared: bool = False) -> int:
        where, params = compile_conditions(conditions, POSTGRES)
        sql, args = (
            (link_sql.count(POSTGRES, where), [user_id, *params, user_id, user_id, *params])
            if shared
            else (f"SELECT count(*) FROM memories m WHERE m.user_id = %s AND {where}", [user_id, *params])
        )
        with self._connection() as conn:
            row = conn.execute(sql, args).fetchone()
        return int(row[0]) if row else 0

    def vector_search(
        self,
        user_id: str,
        embedding: Sequence[float],
        conditions: Sequence[Condition] = (),
        *,
        limit: int = 10,
        offset: int = 0,
        shared: bool = False,
    ) -> builtins.list[ScoredRecord]:
        with self._connection() as conn:
            dims = self._vector_dims(conn)
            if dims is None:
                return []  # nothing has been embedded in this store yet
            if len(embedding) != dims:
                raise DimensionMismatchError(
                    f"query vector has {len(embedding)} dims but this store holds {dims}-dim vectors"
                )
            return search.vector_search(
                conn,
                user_id,
                embedding,
                conditions,
                limit,
                offset,
                iterative_scan=self._iterative_scan,
                shared=shared,
            )

    def keyword_search(
        self,
        user_id: str,
        query: str,
        conditions: Sequence[Condition] = (),
        *,
        limit: int = 10,
        offset: int = 0,
        shared: bool = False,
    ) -> builtins.list[ScoredRecord]:
        with self._connection() as conn:
            common = self._common_words.get(conn)
            return search.keyword_search(
                conn, user_id, query, conditions, limit, offset, common, shared=shared
            )

    def history(
        self, user_id: str, memory_id: str | None = None, *, limit: int = 100, shared: bool = False
    ) -> builtins.list[HistoryEntry]:
        if shared and memory_id is not None:
            where, params = (
                link_sql.history_scope(POSTGRES),
                [memory_id, user_id, user_id, user_id, memory_id],
            )
        else:
            params = [user_id] if memory_id is None else [user_id, memory_id]
            where = "user_id = %s" + ("" if memory_id is None else " AND memory_id = %s")
        with self._connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(
                f"SELECT {HISTORY_COLUMNS} FROM history WHERE {where} ORDER BY at, seq LIMIT %s",
                [*params, limit],
            ).fetchall()
        return [history_from_row(r) for r in rows]

    def relations(self, user_id: str, memory_ids: Sequence[str]) -> builtins.list[Relation]:
        if not memory_ids:
            return []
        ids = list(memory_ids)
        with self._connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(
                f"SELECT {RELATION_COLUMNS} FROM relations "
                "WHERE user_id = %s AND (from_id = ANY(%s) OR to_id = ANY(%s)) "
                "ORDER BY created_at, from_id, to_id",
                (user_id, ids, ids),
            ).fetchall()
        return [relation_from_row(r) for r in rows]

    def vectors(
        self, user_id: str, memory_ids: Sequence[str], *, shared: bool = False
    ) -> dict[str, builtins.list[float]]:
        if not memory_ids:
            return {}
        sql = "SELECT id, embedding FROM memory_vectors WHERE user_id = %s AND id = ANY(%s)"
        params: builtins.list[Any] = [user_id, list(memory_ids)]
        if shared:
            sql = (
                "SELECT v.id, v.embedding FROM memory_vectors v JOIN memories m ON m.id = v.id "
                f"WHERE {link_sql.seen(POSTGRES)} AND v.id = ANY(%s)"
            )
            params = [user_id, *params]
        with self._connection() as conn:
            if self._vector_dims(conn) is None:
                return {}
            with conn.cursor(binary=True) as cur:  # vectors as float32 bytes, not 384 numbers in text
                rows = cur.execute(sql, params).fetchall()
        return {r[0]: r[1].to_numpy().tolist() for r in rows}

    def links(self, user_id: str, memory_id: str | None = None) -> builtins.list[MemoryLink]:
        params = (user_id,) if memory_id is None else (memory_id, user_id, user_id)
        with self._connection() as conn:
            rows = conn.execute(link_sql.links_sql(POSTGRES, memory_id is not None), params).fetchall()
        return [link_sql.link_from_row(r) for r in rows]

    def list_users(self) -> builtins.list[str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT user_id FROM memories WHERE user_id <> %(g)s UNION "
                "SELECT user_id FROM history WHERE user_id <> %(g)s ORDER BY 1",
                {"g": GLOBAL_USER},
            ).fetchall()
        return [r[0] for r in rows]

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

    def proposals(self, user_id: str, where: ProposalFilter, *, limit: int = 100) -> builtins.list[Proposal]:
        with self._connection() as conn:
            return proposals.list_proposals(conn, user_id, where, limit)

    def get_proposal(self, user_id: str, proposal_id: str) -> Proposal | None:
        with self._connection() as conn:
            return proposals.get_proposal(conn, user_id, proposal_id)

    def chat_sessions(
        self, user_id: str, where: SessionFilter, *, limit: int = 100
    ) -> builtins.list[ChatSession]:
        with self._connection() as conn:
            return sessions.chat_sessions(conn, user_id, where, limit)

    def latest_sessions(self, user_id: str, chat_ids: Sequence[str]) -> dict[str, ChatSession]:
        with self._connection() as conn:
            return sessions.latest_sessions(conn, user_id, chat_ids)

    def session_messages(
        self, user_id: str, session_id: str, *, limit: int = 1000
    ) -> builtins.list[SessionMessage]:
        with self._connection() as conn:
            return sessions.session_messages(conn, user_id, session_id, limit)

    def messages_by_id(self, user_id: str, ids: Sequence[str]) -> builtins.list[SessionMessage]:
        with self._connection() as conn:
            return sessions.messages_by_id(conn, user_id, ids)

    def search_messages(
        self,
        user_id: str,
        *,
        text: str,
        vector: Sequence[float] | None,
        embedder: str,
        chat_id: str | None = None,
        limit: int = 20,
    ) -> builtins.list[MessageHit]:
        with self._connection() as conn:
            return sessions.search_messages(conn, user_id, text, vector, embedder, chat_id, limit)

    def messages_without_vector(
        self, user_id: str, embedder: str, *, limit: int = 256
    ) -> builtins.list[SessionMessage]:
        with self._connection() as conn:
            return sessions.messages_without_vector(conn, user_id, embedder, limit)

    def put_message_vectors(self, user_id: str, embedder: str, vectors: Mapping[str, Sequence[float]]) -> int:
        with self._connection() as conn:
            return sessions.put_message_vectors(conn, user_id, embedder, vectors)

    # --- jobs, change log, op events, user locks --------------------------------------------
    def claim_job(
        self, worker_id: str, *, lease_seconds: float, now: datetime, kinds: Sequence[str] | None = None
    ) -> Job | None:
        with self._connection() as conn:
            return jobs.claim_job(conn, worker_id, lease_seconds, now, kinds)

    def scheduled_users(self, kind: str) -> set[str]:
        with self._connection() as conn:
            return jobs.scheduled_users(conn, kind)

    def checked_pairs(self, user_id: str, since: datetime) -> set[str]:
        with self._connection() as conn:
            return jobs.checked_pairs(conn, user_id, since)

    def record_access(
        self, user_id: str, memory_ids: Sequence[str], at: datetime, ops: Sequence[OpEvent] = ()
    ) -> None:
        if memory_ids or ops:
            with self._connection() as conn:
                jobs.record_access(conn, user_id, memory_ids, at, ops)

    def op_counts(
        self, since: datetime, until: datetime, *, user_id: str | None = None
    ) -> builtins.list[OpCount]:
        with self._connection() as conn:
            return jobs.op_counts(conn, since, until, user_id)

    def fail_job(self, job_id: str, error: str, *, retry_at: datetime | None) -> None:
        with self._connection() as conn:
            jobs.fail_job(conn, job_id, error, retry_at)

    def list_jobs(
        self, status: JobStatus | None = None, *, user_id: str | None = None, limit: int = 100
    ) -> builtins.list[Job]:
        with self._connection() as conn:
            return jobs.list_jobs(conn, status, user_id, limit)

    def retry_jobs(
        self, job_ids: Sequence[str] | None = None, *, user_id: str | None = None
    ) -> builtins.list[str]:
        with self._connection() as conn:
            return jobs.retry_jobs(conn, job_ids, user_id)

    def count_jobs(self, user_id: str, kind: str, since: datetime) -> int:
        with self._connection() as conn:
            return jobs.count_jobs(conn, user_id, kind, since)

    def recent_jobs(self, user_id: str, kind: str, *, before: datetime, limit: int) -> builtins.list[Job]:
        with self._connection() as conn:
            return jobs.recent_jobs(conn, user_id, kind, before, limit)

    def thread_revision(self, user_id: str, thread_id: str) -> int:
        with self._connection() as conn:
            return jobs.thread_revision(conn, user_id, thread_id)

    def changes_since(
        self, user_id: str, thread_id: str, rev: int, *, limit: int = 50
    ) -> builtins.list[Change]:
        with self._connection() as conn:
            return jobs.changes_since(conn, user_id, thread_id, rev, limit)

    def get_jobs(self, user_id: str, job_ids: Sequence[str]) -> builtins.list[Job]:
        with self._connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(
                f"SELECT {jobs.JOB_COLUMNS} FROM jobs WHERE id = ANY(%s) AND user_id = %s",
                (list(job_ids), user_id),
            ).fetchall()
        return [Job.model_validate(r) for r in rows]

    def changes_after(self, user_id: str, seq: int, *, limit: int = 100) -> builtins.list[Change]:
        with self._connection() as conn:
            return jobs.changes_after(conn, user_id, seq, limit)

    def op_events(self, user_id: str, *, limit: int = 100) -> builtins.list[OpEvent]:
        with self._connection() as conn:
            return jobs.op_events(conn, user_id, limit)

    @contextmanager
    def user_lock(self, user_id: str) -> Iterator[None]:
        """In-process lock first (threads of this process queue without holding a connection), then
        a PostgreSQL advisory lock for other processes on the same database."""
        with super().user_lock(user_id), self._locks.hold(user_id):
            yield
