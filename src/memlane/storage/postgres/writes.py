"""Commit a :class:`WriteBatch`: every statement in one transaction, so a failure leaves nothing."""

from __future__ import annotations

from typing import Any

import numpy as np
import psycopg

from memlane.model.errors import BackendError, DimensionMismatchError
from memlane.storage.base import WriteBatch
from memlane.storage.postgres import jobs
from memlane.storage.postgres.migrations import HNSW_MAX_DIMS
from memlane.storage.postgres.rows import (
    INSERT_HISTORY,
    INSERT_RELATION,
    UPSERT_RECORD,
    history_params,
    record_params,
    relation_params,
)

UPSERT_VECTOR = (
    "INSERT INTO memory_vectors (id, user_id, indexed, embedding) VALUES (%s, %s, %s, %s) "
    "ON CONFLICT (id) DO UPDATE SET user_id = EXCLUDED.user_id, indexed = EXCLUDED.indexed, "
    "embedding = EXCLUDED.embedding"
)
# A user's vectors join the HNSW index once there are more than this many (see migrations.py);
# up to here an exact scan of the user's vectors is as fast as the index and exact.
INDEX_AFTER = 1000
# Per user of the batch: already in the HNSW index?, and how many vectors are searched exactly.
_VECTOR_PLACES = (
    "SELECT u, EXISTS (SELECT 1 FROM memory_vectors v WHERE v.user_id = u AND v.indexed), "
    "(SELECT count(*) FROM memory_vectors v WHERE v.user_id = u AND NOT v.indexed) "
    "FROM unnest(%s::text[]) AS u"
)
_INDEX_USERS = "UPDATE memory_vectors SET indexed = true WHERE user_id = ANY(%s) AND NOT indexed"
PURGE_RECORDS = (
    "UPDATE memories SET summary = '[purged]', tags = '{}', entities = '{}', metadata = '{}', "
    "state = 'purged' WHERE id = ANY(%s)"
)


def check_vectors(batch: WriteBatch, dims: int | None) -> list[tuple[str, str, np.ndarray]]:
    """The batch's vectors as rows, after checking their size (before anything is written)."""
    rows: list[tuple[str, str, np.ndarray]] = []
    for up in batch.upserts:
        if up.embedding is None:
            continue
        if dims is None:
            raise BackendError(
                "this store has no vector index yet; call bind_embedder() (or create_vector_index) "
                "before writing embeddings"
            )
        vec = np.asarray(up.embedding, dtype=np.float32)
        if vec.shape != (dims,):
            raise DimensionMismatchError(
                f"memory {up.record.id}: embedding has {vec.size} dims but this store holds {dims}-dim "
                "vectors; nothing was written"
            )
        rows.append((up.record.id, up.record.user_id, vec))
    return rows


def place_vectors(
    cur: psycopg.Cursor[Any], rows: list[tuple[str, str, np.ndarray]], dims: int
) -> list[tuple[str, str, bool, np.ndarray]]:
    """The rows with their ``indexed`` flag: true for users already in the HNSW index, and for users
    this batch takes past :data:`INDEX_AFTER` (whose exact vectors join the index now)."""
    if dims > HNSW_MAX_DIMS:
        return [(mid, user, False, vec) for mid, user, vec in rows]
    adding: dict[str, int] = {}
    for _, user, _ in rows:
        adding[user] = adding.get(user, 0) + 1
    indexed: set[str] = set()
    grown: list[str] = []
    for user, in_index, exact in cur.execute(_VECTOR_PLACES, (sorted(adding),)).fetchall():
        if in_index:
            indexed.add(user)
        elif exact + adding[user] > INDEX_AFTER:
            grown.append(user)
    if grown:
        cur.execute(_INDEX_USERS, (grown,))
        indexed.update(grown)
    return [(mid, user, user in indexed, vec) for mid, user, vec in rows]


def apply_batch(conn: psycopg.Connection[Any], batch: WriteBatch, dims: int | None) -> None:
    vectors = check_vectors(batch, dims)
    with conn.transaction(), conn.cursor() as cur:
        if batch.upserts:
            cur.executemany(UPSERT_RECORD, [record_params(u.record) for u in batch.upserts], returning=True)
            written: set[str] = set()
            while True:
                written.update(row[0] for row in cur.fetchall())
                if not cur.nextset():
                    break
            refused = sorted({u.record.id for u in batch.upserts} - written)
            if refused:
                raise BackendError(
                    f"memory id(s) {', '.join(refused)} already belong to another user; nothing was written"
                )
        if vectors and dims is not None:
            cur.executemany(UPSERT_VECTOR, place_vectors(cur, vectors, dims))
        if batch.purge_ids:
            cur.execute(PURGE_RECORDS, (list(batch.purge_ids),))
            if dims is not None:
                cur.execute("DELETE FROM memory_vectors WHERE id = ANY(%s)", (list(batch.purge_ids),))
        if batch.history:
            cur.executemany(INSERT_HISTORY, [history_params(h) for h in batch.history])
        if batch.relations:
            cur.executemany(INSERT_RELATION, [relation_params(r) for r in batch.relations])
        jobs.write_in_batch(cur, batch.changes, batch.op_events, batch.jobs, batch.complete_job)
