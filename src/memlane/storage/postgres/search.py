"""Vector (pgvector HNSW) and keyword (tsvector) search SQL, filtered and paged in the database."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import psycopg
from psycopg.rows import dict_row

from memlane.model.filters import Condition
from memlane.storage.base import ScoredRecord
from memlane.storage.filter_sql import POSTGRES, compile_conditions
from memlane.storage.postgres.rows import RECORD_COLUMNS, record_from_row

_WORD = re.compile(r"[^\W_]+")  # letters and digits only: nothing to_tsquery could read as syntax
_MAX_WORDS = 64
_MAX_EF_SEARCH = 1000  # pgvector's upper bound for hnsw.ef_search


def or_tsquery(query: str) -> str | None:
    """``'w1 | w2 | ...'`` for ``to_tsquery``: keyword search adds candidates, so any word may match.
    None when the query has no words."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(query)))[:_MAX_WORDS]
    return " | ".join(words) if words else None


def keyword_search(
    conn: psycopg.Connection[Any],
    user_id: str,
    query: str,
    conditions: Sequence[Condition],
    limit: int,
    offset: int,
) -> list[ScoredRecord]:
    tsquery = or_tsquery(query)
    if tsquery is None or limit <= 0:
        return []
    where, params = compile_conditions(conditions, POSTGRES)
    sql = (
        f"SELECT {RECORD_COLUMNS}, ts_rank_cd(m.fts, q) AS score "
        "FROM memories m, to_tsquery('english', %s) q "
        f"WHERE m.user_id = %s AND m.fts @@ q AND {where} "
        "ORDER BY score DESC, m.updated_at DESC, m.id LIMIT %s OFFSET %s"
    )
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(sql, [tsquery, user_id, *params, limit, offset]).fetchall()
    return [ScoredRecord(record_from_row(r), float(r["score"])) for r in rows]


def vector_search(
    conn: psycopg.Connection[Any],
    user_id: str,
    embedding: Sequence[float],
    conditions: Sequence[Condition],
    limit: int,
    offset: int,
    *,
    iterative_scan: bool,
) -> list[ScoredRecord]:
    """Nearest first. ``iterative_scan`` (pgvector >= 0.8) lets HNSW keep scanning until enough rows
    pass the user and metadata filters; its relaxed order is restored by the outer ORDER BY."""
    if limit <= 0:
        return []
    wanted = limit + offset
    ef_search = min(max(40, wanted), _MAX_EF_SEARCH)
    conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(ef_search),))
    if iterative_scan:
        conn.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)")
    where, params = compile_conditions(conditions, POSTGRES)
    sql = (
        "WITH nearest AS MATERIALIZED ("
        f"  SELECT {RECORD_COLUMNS}, v.embedding <=> %s AS distance "
        "  FROM memory_vectors v JOIN memories m ON m.id = v.id "
        f"  WHERE v.user_id = %s AND m.user_id = %s AND {where} "
        "  ORDER BY distance LIMIT %s"
        ") SELECT * FROM nearest ORDER BY distance, id LIMIT %s OFFSET %s"
    )
    query_vec = np.asarray(embedding, dtype=np.float32)
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            sql, [query_vec, user_id, user_id, *params, wanted, limit, offset]
        ).fetchall()
    return [ScoredRecord(record_from_row(r), 1.0 - float(r["distance"])) for r in rows]
