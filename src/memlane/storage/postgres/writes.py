"""Commit a :class:`WriteBatch`: every statement in one transaction, so a failure leaves nothing."""

from __future__ import annotations

from typing import Any

import numpy as np
import psycopg

from memlane.model.errors import BackendError, DimensionMismatchError
from memlane.storage.base import WriteBatch
from memlane.storage.filter_sql import POSTGRES
from memlane.storage.links import write_links
from memlane.storage.postgres import jobs
from memlane.storage.postgres.migrations import HNSW_MAX_DIMS
from memlane.storage.postgres.proposals import write_proposals
from memlane.storage.postgres.purge import purge
from memlane.storage.postgres.rows import (
    INSERT_HISTORY_ROWS,
    INSERT_RELATION,
    UPSERT_RECORDS,
    history_json,
    records_json,
    relation_params,
)
from memlane.storage.postgres.sessions import write_sessions

UPSERT_VECTOR = (
    "INSERT INTO memory_vectors (id, user_id, indexed, embedding) VALUES (%s, %s, %s, %s) "
    "ON CONFLICT (id) DO UPDATE SET user_id = EXCLUDED.user_id, indexed = EXCLUDED.indexed, "
    "embedding = EXCLUDED.embedding"
)
# A user's vectors join the HNSW index once there are more than this many (see migrations.py);
# up to here an exact scan of the user's vectors is as fast as the index and exact.
INDEX_AFTER = 1000
# Counts the batch's vectors into each user's ``vector_users`` row and returns the rows of users
# still outside the HNSW index (an indexed user's row is neither changed nor returned). Rows are
# taken in user order, so two batches sharing users lock them in the same order; the row lock also
# makes a user's move into the index wait for that user's writes in flight.
_COUNT_VECTORS = (
    "INSERT INTO vector_users AS vu (user_id, exact, indexed) "
    "SELECT u, n, false FROM unnest(%s::text[], %s::int[]) AS t(u, n) ORDER BY u "
    "ON CONFLICT (user_id) DO UPDATE SET exact = vu.exact + EXCLUDED.exact WHERE NOT vu.indexed "
    "RETURNING user_id, exact"
)
_INDEX_USERS = (
    "UPDATE memory_vectors SET indexed = true WHERE user_id = ANY(%s) AND NOT indexed",
    "UPDATE vector_users SET indexed = true, exact = 0 WHERE user_id = ANY(%s)",
)


def check_vectors(
    batch: WriteBatch, dims: int | None, vectors: bool = True
) -> list[tuple[str, str, np.ndarray]]:
    """The batch's vectors as rows, after checking their size (before anything is written); none
    where the store keeps no vectors (no pgvector: ``vectors`` false)."""
    rows: list[tuple[str, str, np.ndarray]] = []
    for up in batch.upserts:
        if up.embedding is None or not vectors:
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
    this batch takes past :data:`INDEX_AFTER` (whose exact vectors join the index now).

    A user's count is of vectors written while outside the index (a replaced vector counts again):
    an upper bound, read from one row per user instead of counting the user's vectors, which cost
    time in proportion to the store."""
    if dims > HNSW_MAX_DIMS:
        return [(mid, user, False, vec) for mid, user, vec in rows]
    adding: dict[str, int] = {}
    for _, user, _ in rows:
        adding[user] = adding.get(user, 0) + 1
    users = sorted(adding)
    exact = dict(cur.execute(_COUNT_VECTORS, (users, [adding[u] for u in users])).fetchall())
    grown = [user for user, n in exact.items() if n > INDEX_AFTER]
    for statement in _INDEX_USERS if grown else ():
        cur.execute(statement, (grown,))
    return [(mid, user, user not in exact or user in grown, vec) for mid, user, vec in rows]


def apply_batch(
    conn: psycopg.Connection[Any], batch: WriteBatch, dims: int | None, *, vectors: bool = True
) -> None:
    """Commit ``batch``; ``vectors`` false (no pgvector) writes everything but its embeddings."""
    rows = check_vectors(batch, dims, vectors)
    with conn.transaction(), conn.cursor() as cur:
        if batch.upserts:
            # One statement cannot update a row twice: the last upsert of an id wins, as in order.
            records = list({u.record.id: u.record for u in batch.upserts}.values())
            written = {row[0] for row in cur.execute(UPSERT_RECORDS, (records_json(records),)).fetchall()}
            refused = sorted({r.id for r in records} - written)
            if refused:
                raise BackendError(
                    f"memory id(s) {', '.join(refused)} already belong to another user; nothing was written"
                )
        if rows and dims is not None:
            cur.executemany(UPSERT_VECTOR, place_vectors(cur, rows, dims))
        write_links(cur, POSTGRES, batch.links, [(u.user_id, u.memory_id, u.at) for u in batch.unlinks])
        for target in batch.purges:
            purge(cur, target.user_id, target.memory_id, dims is not None, target.absorbed_by, target.brought)
        if batch.history:
            cur.execute(INSERT_HISTORY_ROWS, (history_json(batch.history),))
        if batch.relations:
            cur.executemany(INSERT_RELATION, [relation_params(r) for r in batch.relations])
        write_proposals(cur, batch.proposals)
        write_sessions(cur, batch.sessions, batch.messages, batch.dropped_sessions)
        jobs.write_in_batch(
            cur,
            batch.changes,
            batch.op_events,
            batch.jobs,
            batch.complete_job,
            batch.job_result,
            batch.schedule,
            batch.job_owner,
            batch.pair_checks,
        )
