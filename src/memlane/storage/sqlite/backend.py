"""SQLite backend: ordinary tables, sqlite-vec ``vec0`` vectors partitioned by user, FTS5 keywords."""

from __future__ import annotations

import builtins
import fcntl
import json
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from memlane.model.errors import BackendError, DimensionMismatchError, LeaseLostError, SchemaVersionError
from memlane.model.record import MemoryRecord, utcnow
from memlane.storage import links as link_sql
from memlane.storage.base import Backend, Upsert, WriteBatch
from memlane.storage.filter_sql import SQLITE, iso
from memlane.storage.sqlite.changes import SqliteChangeLog
from memlane.storage.sqlite.checkpoint import Checkpointer, defer_checkpoints
from memlane.storage.sqlite.compact import compact as compact_store
from memlane.storage.sqlite.connect import connect, sqlite3
from memlane.storage.sqlite.fts import fts_row
from memlane.storage.sqlite.job_methods import SqliteJobQueue
from memlane.storage.sqlite.jobs import (
    JOB_COLS,
    job_params,
    write_changes,
    write_op_events,
)
from memlane.storage.sqlite.memories import SqliteMemories
from memlane.storage.sqlite.migrations import MIGRATIONS, SQLITE_SCHEMA_VERSION
from memlane.storage.sqlite.proposals import SqliteProposals, write_proposals
from memlane.storage.sqlite.purge import purge
from memlane.storage.sqlite.rows import (
    RECORD_FIELDS,
    history_params,
    record_params,
    vector_blob,
)
from memlane.storage.sqlite.sessions import SqliteSessions, write_sessions
from memlane.storage.sqlite.vector_cache import compact as compact_journal
from memlane.storage.sqlite.vector_cache import forget_user, journal

_COLS = ", ".join(RECORD_FIELDS)
_MARKS = ", ".join("?" for _ in RECORD_FIELDS)
_UPDATES = ", ".join(f"{f} = excluded.{f}" for f in RECORD_FIELDS if f != "id")
# vec0 allocates a whole chunk per partition (user) up front: 1,024 vectors by default, 1.5 MB per
# user at 384 dims. 64 keeps a store of many small users small and its inserts cheap, while a
# 100-memory user is still scanned in two chunks (each chunk read costs a blob open).
VEC0_CHUNK_SIZE = 64
ID_LOOKUP_CHUNK = 500  # ids per `IN (...)` lookup


VECTOR_LAYOUT = ("type TEXT PARTITION KEY", f"chunk_size={VEC0_CHUNK_SIZE}")


def _vector_table_sql(dims: int) -> str:
    """Vectors partitioned by user and type (the context block searches semantic and timed memories
    separately: each scan reads only its types' vectors), the state filtered inside the scan."""
    return (
        "CREATE VIRTUAL TABLE IF NOT EXISTS memory_vectors USING vec0(user_id TEXT PARTITION KEY, "
        f"{VECTOR_LAYOUT[0]}, state TEXT, embedding float[{int(dims)}] distance_metric=cosine, "
        f"{VECTOR_LAYOUT[1]})"
    )


class SqliteBackend(Backend):
    name = "sqlite"
    local_reads = True

    def __init__(self, path: str | Path, *, secure_delete: bool = True) -> None:
        self.path = str(path)
        self._conn = connect(path, secure_delete=secure_delete)
        self._checkpointer: Checkpointer | None = None
        self._known_dims: int | None = None
        if self.path != ":memory:":
            defer_checkpoints(self._conn)
            self._checkpointer = Checkpointer(str(Path(self.path).expanduser()), owner=self)
        self._lock = threading.RLock()
        self._held = threading.local()  # depth of user_lock held by this thread
        self.memories = SqliteMemories(self)
        self.jobs = SqliteJobQueue(self)
        self.sessions = SqliteSessions(self)
        self.changes = SqliteChangeLog(self)
        self.proposals = SqliteProposals(self)
        self.migrate()

    @contextmanager
    def user_lock(self, user_id: str) -> Iterator[None]:
        """Formation decisions are serialised across threads (per instance) and across instances and
        processes on the same file (``flock`` on ``<db>.lock``): decisions read, then write."""
        with super().user_lock(user_id):
            depth: int = getattr(self._held, "depth", 0)
            if self.path == ":memory:" or depth:
                self._held.depth = depth + 1
                try:
                    yield
                finally:
                    self._held.depth -= 1
                return
            with open(Path(self.path).expanduser().with_suffix(".lock"), "a+b") as fh:
                fcntl.flock(fh, fcntl.LOCK_EX)
                self._held.depth = 1
                try:
                    yield
                finally:
                    self._held.depth = 0
                    fcntl.flock(fh, fcntl.LOCK_UN)

    # --- plumbing --------------------------------------------------------------------------
    @contextmanager
    def _tx(self) -> Iterator[Any]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> builtins.list[Any]:
        with self._lock:
            return list(self._conn.execute(sql, params).fetchall())

    def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.stop()
        with self._lock:
            self._conn.close()

    def compact(self) -> dict[str, int]:
        with self._lock:
            return compact_store(self._conn, self.path)

    # --- schema ------------------------------------------------------------------------------
    def migrate(self) -> int:
        with self._tx() as c:
            c.execute("CREATE TABLE IF NOT EXISTS memlane_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            row = c.execute("SELECT value FROM memlane_meta WHERE key = 'schema_version'").fetchone()
            current = int(row[0]) if row else 0
            if current > SQLITE_SCHEMA_VERSION:
                raise SchemaVersionError(
                    f"database {self.path} has schema version {current}, newer than the {SQLITE_SCHEMA_VERSION} "
                    "this memlane understands; upgrade memlane (pip install -U memlane)"
                )
            for version, statements in MIGRATIONS:
                if version > current:
                    for step in statements:
                        c.execute(step) if isinstance(step, str) else step(c)
                    current = version
            c.execute(
                "INSERT INTO memlane_meta(key, value) VALUES ('schema_version', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (str(current),),
            )
            self._upgrade_vector_table(c)
            compact_journal(c)
        return current

    def _upgrade_vector_table(self, c: Any) -> None:
        """A vector table of an older layout (vec0's default 1,024-vector chunks; ``type`` not yet a
        partition key) is rebuilt in the current one, vectors and rowids unchanged."""
        row = c.execute("SELECT sql FROM sqlite_master WHERE name = 'memory_vectors'").fetchone()
        dims = c.execute("SELECT value FROM memlane_meta WHERE key = 'embed_dims'").fetchone()
        if row is None or dims is None or all(part in row[0] for part in VECTOR_LAYOUT):
            return
        c.execute(
            "CREATE TEMP TABLE vec_copy AS SELECT rowid AS rid, user_id, state, type, embedding "
            "FROM memory_vectors"
        )
        c.execute("DROP TABLE memory_vectors")
        c.execute(_vector_table_sql(int(dims[0])))
        c.execute(
            "INSERT INTO memory_vectors(rowid, user_id, state, type, embedding) "
            "SELECT rid, user_id, state, type, embedding FROM vec_copy"
        )
        c.execute("DROP TABLE vec_copy")

    def schema_version(self) -> int:
        return int(self.get_meta("schema_version") or 0)

    def get_meta(self, key: str) -> str | None:
        rows = self._rows("SELECT value FROM memlane_meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self._tx() as c:
            c.execute(
                "INSERT INTO memlane_meta(key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    def create_vector_index(self, dims: int) -> None:
        with self._tx() as c:
            c.execute(_vector_table_sql(dims))

    def _dims(self) -> int | None:
        """The store's vector size; remembered once set (it never changes: other sizes are refused)."""
        if self._known_dims is None:
            value = self.get_meta("embed_dims")
            self._known_dims = int(value) if value else None
        return self._known_dims

    # --- writes ------------------------------------------------------------------------------
    def apply(self, batch: WriteBatch) -> None:
        self._check_dims(batch)
        self._commit(lambda c: batch)

    def apply_planned(
        self, reads: Mapping[str, Sequence[str]], plan: Callable[[dict[str, MemoryRecord]], WriteBatch]
    ) -> WriteBatch:
        def planned(c: Any) -> WriteBatch:  # BEGIN IMMEDIATE holds the write lock: no writer in between
            batch = plan({r.id: r for user, ids in reads.items() for r in self.memories.get_many(user, ids)})
            self._check_dims(batch)
            return batch

        return self._commit(planned)

    def _check_dims(self, batch: WriteBatch) -> None:
        dims = self._dims()
        for up in batch.upserts:
            if up.embedding is not None and len(up.embedding) != dims:
                raise DimensionMismatchError(
                    f"memory {up.record.id}: embedding has {len(up.embedding)} dims, the store expects {dims}"
                )

    def _commit(self, make: Callable[[Any], WriteBatch]) -> WriteBatch:
        if self._checkpointer is not None:
            self._checkpointer.start()
        try:
            with self._tx() as c:
                batch = make(c)
                self._write_records(c, batch.upserts)
                c.executemany(
                    "INSERT INTO history(id, memory_id, user_id, event, old_value, new_value, reason, actor, at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [history_params(h) for h in batch.history],
                )
                c.executemany(
                    "INSERT INTO relations(from_id, to_id, user_id, relation_type, strength, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(from_id, to_id) DO NOTHING",
                    [
                        (r.from_id, r.to_id, r.user_id, r.relation_type, r.strength, iso(r.created_at))
                        for r in batch.relations
                    ],
                )
                link_sql.write_links(
                    c, SQLITE, batch.links, [(u.user_id, u.memory_id, u.at) for u in batch.unlinks]
                )
                for target in batch.purges:
                    purge(c, target.user_id, target.memory_id, target.absorbed_by, target.brought)
                write_changes(c, batch.changes)
                write_op_events(c, batch.op_events)
                marks = ", ".join("?" for _ in JOB_COLS.split(","))
                c.executemany(
                    f"INSERT INTO jobs({JOB_COLS}) VALUES ({marks})", [job_params(j) for j in batch.jobs]
                )
                c.executemany(
                    f"INSERT INTO jobs({JOB_COLS}) VALUES ({marks}) ON CONFLICT(id) DO NOTHING",
                    [job_params(j) for j in batch.schedule],
                )
                c.executemany(
                    "INSERT INTO pair_checks(user_id, pair, checked_at) VALUES (?, ?, ?) "
                    "ON CONFLICT(user_id, pair) DO UPDATE SET checked_at = excluded.checked_at",
                    [(u, pair, iso(at)) for u, pair, at in batch.pair_checks],
                )
                write_proposals(c, batch.proposals)
                write_sessions(c, batch.sessions, batch.messages, batch.dropped_sessions)
                if batch.complete_job:  # a done job keeps its outcome, not the user's text
                    owner = " AND locked_by = ? AND status = 'running'" if batch.job_owner else ""
                    done = c.execute(
                        "UPDATE jobs SET status = 'done', payload = ?, locked_by = NULL, "
                        f"locked_until = NULL, updated_at = ? WHERE id = ?{owner}",
                        (
                            json.dumps(batch.job_result or {}),
                            iso(utcnow()),
                            batch.complete_job,
                            *([batch.job_owner] if batch.job_owner else []),
                        ),
                    )
                    if batch.job_owner and done.rowcount == 0:
                        raise LeaseLostError(
                            f"job {batch.complete_job} is no longer leased to {batch.job_owner}"
                        )
        except sqlite3.Error as exc:
            raise BackendError(f"SQLite write failed, nothing was written: {exc}") from exc
        return batch

    def _write_records(self, c: Any, upserts: Sequence[Upsert]) -> None:
        """New records in three ``executemany`` inserts with rids assigned here (the transaction holds
        the write lock); records that exist, or appear twice in the batch, one by one."""
        ids = [up.record.id for up in upserts]
        taken: set[str] = set()
        for i in range(0, len(ids), ID_LOOKUP_CHUNK):
            part = ids[i : i + ID_LOOKUP_CHUNK]
            marks = ", ".join("?" for _ in part)
            taken.update(r[0] for r in c.execute(f"SELECT id FROM memories WHERE id IN ({marks})", part))
        counts = Counter(ids)
        fresh = [up for up in upserts if up.record.id not in taken and counts[up.record.id] == 1]
        if fresh:
            rid = int(c.execute("SELECT coalesce(max(rid), 0) FROM memories").fetchone()[0])
            rows, fts, vecs = [], [], []
            for up in fresh:
                rid += 1
                rec = up.record
                rows.append((rid, *record_params(rec), int(up.embedding is not None)))
                fts.append(fts_row(rid, rec.user_id, rec.summary, rec.tags))
                if up.embedding is not None:
                    vecs.append(
                        (rid, rec.user_id, rec.state.value, rec.type.value, vector_blob(up.embedding))
                    )
            c.executemany(f"INSERT INTO memories(rid, {_COLS}, has_vector) VALUES (?, {_MARKS}, ?)", rows)
            c.executemany("INSERT INTO memories_fts(rowid, uid, summary, tags) VALUES (?, ?, ?, ?)", fts)
            c.executemany(
                "INSERT INTO memory_vectors(rowid, user_id, state, type, embedding) VALUES (?, ?, ?, ?, ?)",
                vecs,
            )
            journal(c, [(v[1], v[0]) for v in vecs])
        done = {id(up) for up in fresh}
        for up in upserts:
            if id(up) not in done:
                self._write_record(c, up.record, up.embedding)

    def _write_record(self, c: Any, record: MemoryRecord, embedding: Sequence[float] | None) -> None:
        row = c.execute(
            f"INSERT INTO memories({_COLS}) VALUES ({_MARKS}) ON CONFLICT(id) DO UPDATE SET {_UPDATES} "
            "WHERE memories.user_id = excluded.user_id RETURNING rid, has_vector",
            record_params(record),
        ).fetchone()
        if row is None:
            raise BackendError(f"memory id {record.id} already belongs to another user")
        rid, has_vector = row[0], bool(row[1])
        c.execute("DELETE FROM memories_fts WHERE rowid = ?", (rid,))
        c.execute(
            "INSERT INTO memories_fts(rowid, uid, summary, tags) VALUES (?, ?, ?, ?)",
            fts_row(rid, record.user_id, record.summary, record.tags),
        )
        if embedding is not None:
            if has_vector:
                c.execute("DELETE FROM memory_vectors WHERE rowid = ?", (rid,))
            c.execute(
                "INSERT INTO memory_vectors(rowid, user_id, state, type, embedding) VALUES (?, ?, ?, ?, ?)",
                (rid, record.user_id, record.state.value, record.type.value, vector_blob(embedding)),
            )
            c.execute("UPDATE memories SET has_vector = 1 WHERE rid = ?", (rid,))
            journal(c, [(record.user_id, rid)])
        elif has_vector:  # keep the vector's filter columns in step with the record
            journal(c, [(record.user_id, rid)])
            old = c.execute("SELECT type, embedding FROM memory_vectors WHERE rowid = ?", (rid,)).fetchone()
            if old is not None and old[0] != record.type.value:  # a partition key: move the vector
                c.execute("DELETE FROM memory_vectors WHERE rowid = ?", (rid,))
                c.execute(
                    "INSERT INTO memory_vectors(rowid, user_id, state, type, embedding) VALUES (?, ?, ?, ?, ?)",
                    (rid, record.user_id, record.state.value, record.type.value, old[1]),
                )
            else:
                c.execute("UPDATE memory_vectors SET state = ? WHERE rowid = ?", (record.state.value, rid))

    def delete_user(self, user_id: str) -> int:
        with self._tx() as c:
            link_sql.forget_user_links(c, SQLITE, user_id)
            rids = [r[0] for r in c.execute("SELECT rid FROM memories WHERE user_id = ?", (user_id,))]
            if self._dims() is not None:
                c.execute("DELETE FROM memory_vectors WHERE user_id = ?", (user_id,))
            forget_user(c, user_id)
            c.executemany("DELETE FROM memories_fts WHERE rowid = ?", [(r,) for r in rids])
            c.execute("DELETE FROM memories WHERE user_id = ?", (user_id,))
            c.execute("DELETE FROM history WHERE user_id = ?", (user_id,))
            c.execute("DELETE FROM relations WHERE user_id = ?", (user_id,))
            for table in (
                "jobs",
                "change_log",
                "thread_revision",
                "user_revision",
                "op_events",
                "pair_checks",
                "proposals",
                "sessions",
                "messages",
            ):
                c.execute(f"DELETE FROM {table} WHERE user_id = ?", (user_id,))
        return len(rids)
