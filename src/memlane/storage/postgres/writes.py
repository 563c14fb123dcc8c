"""Commit a :class:`WriteBatch`: every statement in one transaction, so a failure leaves nothing."""

from __future__ import annotations

from typing import Any

import numpy as np
import psycopg

from memlane.model.errors import BackendError, DimensionMismatchError
from memlane.storage.base import WriteBatch
from memlane.storage.postgres import jobs
from memlane.storage.postgres.rows import (
    INSERT_HISTORY,
    INSERT_RELATION,
    UPSERT_RECORD,
    history_params,
    record_params,
    relation_params,
)

UPSERT_VECTOR = (
    "INSERT INTO memory_vectors (id, user_id, embedding) VALUES (%s, %s, %s) "
    "ON CONFLICT (id) DO UPDATE SET user_id = EXCLUDED.user_id, embedding = EXCLUDED.embedding"
)
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
        if vectors:
            cur.executemany(UPSERT_VECTOR, vectors)
        if batch.purge_ids:
            cur.execute(PURGE_RECORDS, (list(batch.purge_ids),))
            if dims is not None:
                cur.execute("DELETE FROM memory_vectors WHERE id = ANY(%s)", (list(batch.purge_ids),))
        if batch.history:
            cur.executemany(INSERT_HISTORY, [history_params(h) for h in batch.history])
        if batch.relations:
            cur.executemany(INSERT_RELATION, [relation_params(r) for r in batch.relations])
        jobs.write_in_batch(cur, batch.changes, batch.op_events, batch.jobs, batch.complete_job)
