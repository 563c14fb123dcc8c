"""Vector (pgvector HNSW) and keyword (tsvector) search SQL, filtered and paged in the database."""

from __future__ import annotations

import math
import re
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import psycopg
from psycopg.rows import dict_row

from memlane.model.filters import Condition
from memlane.storage.base import ScoredRecord
from memlane.storage.filter_sql import POSTGRES, compile_conditions
from memlane.storage.links import has_links, linked_arm, union
from memlane.storage.postgres.rows import RECORD_COLUMNS, record_from_row

_HAS_WORD = re.compile(r"[^\W_]")
_MAX_EF_SEARCH = 1000  # pgvector's upper bound for hnsw.ef_search

# Keyword search adds candidates, so any word of the query may match: an OR of the query's lexemes.
# The lexemes come from to_tsvector, the parser the documents went through, so "3.5", "e-mail" or
# "ana@example.com" match as they were indexed. Each is quoted as a tsquery literal (backslashes
# and quotes escaped), so nothing in the user's text is read as tsquery syntax. No lexemes
# (only stop words) gives NULL, which matches nothing.
OR_TSQUERY = r"""
    SELECT string_agg('''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | ')::tsquery::text
    FROM unnest(tsvector_to_array(to_tsvector('english', %s))) AS lexeme WHERE lexeme <> ALL(%s::text[])
"""
# Words in more than COMMON_SHARE of all memories are left out of the keyword query, as stop words
# are: they carry no evidence (every memory says "user"), and ranking every memory of a large user
# that holds one cost 38 ms at 10,000 memories. The shares are the planner's statistics of the `fts`
# column (ANALYZE / autovacuum), read at most once a minute; without statistics nothing is left out.
COMMON_SHARE = 0.5
_COMMON_REFRESH_SECONDS = 60.0
_COMMON_WORDS = """
    SELECT e.word FROM pg_stats s,
        unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(word, share)
    WHERE s.schemaname = current_schema() AND s.tablename = 'memories' AND s.attname = 'fts'
        AND e.word IS NOT NULL AND e.share > %s
"""


class CommonWords:
    """The lexemes in more than :data:`COMMON_SHARE` of the store's memories (see above)."""

    def __init__(self) -> None:
        self._words: list[str] = []
        self._read_at = -math.inf

    def get(self, conn: psycopg.Connection[Any]) -> list[str]:
        if time.monotonic() - self._read_at > _COMMON_REFRESH_SECONDS:
            self._words = [r[0] for r in conn.execute(_COMMON_WORDS, (COMMON_SHARE,)).fetchall()]
            self._read_at = time.monotonic()
        return self._words


def keyword_search(
    conn: psycopg.Connection[Any],
    user_id: str,
    query: str,
    conditions: Sequence[Condition],
    limit: int,
    offset: int,
    common: Sequence[str] = (),
    *,
    shared: bool = False,
) -> list[ScoredRecord]:
    """Memories matching any word of ``query`` but the ``common`` ones, best first (with ``shared``,
    the memories linked to the user too).

    The tsquery is made first and the search planned with it in view (never a prepared, generic
    plan): a word in most memories ("user") makes the GIN index return the whole store, which the
    planner can only know from the word. Blind, it intersected that with the user's rows (8 ms at
    100k memories); seeing it, it reads the user's rows and checks them (under 1 ms), and it still
    takes the GIN index for rare words."""
    if limit <= 0 or not _HAS_WORD.search(query):
        return []
    text = query.replace("\x00", " ")  # PostgreSQL text cannot hold NUL
    # the user's open links come with the query words (no round trip of their own)
    words = conn.execute(
        f"SELECT ({OR_TSQUERY}), {has_links(POSTGRES)}", [text, list(common), user_id]
    ).fetchone()
    if words is None or words[0] is None:
        return []
    shared = shared and bool(words[1])
    where, params = compile_conditions(conditions, POSTGRES)
    q = words[0]
    cols, order = (
        f"{RECORD_COLUMNS}, ts_rank_cd(m.fts, %s::tsquery) AS score",
        "score DESC, m.updated_at DESC, m.id",
    )
    if shared:  # each arm's best limit + offset, then the two merged
        want = limit + offset
        sql = union(POSTGRES, cols, f"m.fts @@ %s::tsquery AND {where}", order)
        args = [q, user_id, q, *params, want, q, user_id, user_id, q, *params, want, limit, offset]
    else:
        sql = (
            f"SELECT {cols} FROM memories m WHERE m.user_id = %s AND m.fts @@ %s::tsquery AND {where} "
            f"ORDER BY {order} LIMIT %s OFFSET %s"
        )
        args = [q, user_id, q, *params, limit, offset]
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(sql, args, prepare=False).fetchall()
    return [ScoredRecord(record_from_row(r), float(r["score"])) for r in rows]


# whether the user's vectors are in the HNSW index, and whether the user holds an open link
_PLACE = f"SELECT EXISTS (SELECT 1 FROM memory_vectors WHERE user_id = %s AND indexed), {has_links(POSTGRES)}"


_EF_SEARCH = "SELECT set_config('hnsw.ef_search', %s, true)"
# An indexed user's search, for this transaction: iterative HNSW scans, and no sort where the index can
# order the rows instead. The planner takes a user's rows for about as many as the average user's (a
# large user is not among the most common values) and their vectors in the index as independent of the
# user, so it put a large user's exact scan and sort ahead of the index: 109 to 194 ms for a user of
# 20,000 memories in a store of a million, 7 ms through the index (benchmarks/pg_scale_bench.py,
# docs/postgres.md). The sorts that are left (the exact part, the merged order) have no other plan.
# Only with iterative scans: without them a filtered HNSW scan can return too few of the user's rows.
_HNSW_SETTINGS = (
    f"{_EF_SEARCH}, set_config('hnsw.iterative_scan', 'relaxed_order', true), "
    "set_config('enable_sort', 'off', true)"
)


def _nearest(where: str, part: str) -> str:
    """The ``limit`` nearest of the user's vectors in one part of the layout (see migrations.py)."""
    return (
        f"SELECT {RECORD_COLUMNS}, v.embedding <=> %s AS distance "
        "FROM memory_vectors v JOIN memories m ON m.id = v.id "
        f"WHERE v.user_id = %s AND {part} AND m.user_id = %s AND {where} "
        "ORDER BY distance LIMIT %s"
    )


def vector_search(
    conn: psycopg.Connection[Any],
    user_id: str,
    embedding: Sequence[float],
    conditions: Sequence[Condition],
    limit: int,
    offset: int,
    *,
    iterative_scan: bool,
    shared: bool = False,
) -> list[ScoredRecord]:
    """Nearest first. A user whose vectors are not in the HNSW index (fewer than
    ``writes.INDEX_AFTER``) is searched exactly. Otherwise the HNSW part is searched through the
    index, and any vectors still outside it (written while the user was joining it) exactly.
    ``iterative_scan`` (pgvector >= 0.8) lets HNSW keep scanning until enough rows pass the user and
    metadata filters; its relaxed order is restored by the outer ORDER BY. With ``shared``, the
    memories linked to the user are ranked too (exactly: a user has few links)."""
    if limit <= 0:
        return []
    wanted = limit + offset
    where, params = compile_conditions(conditions, POSTGRES)
    query_vec = np.asarray(embedding, dtype=np.float32)
    part_params = [query_vec, user_id, user_id, *params, wanted]
    row = conn.execute(_PLACE, (user_id, user_id)).fetchone()
    shared = shared and row is not None and bool(row[1])
    if row is not None and row[0]:
        ef_search = min(max(40, wanted), _MAX_EF_SEARCH)
        conn.execute(_HNSW_SETTINGS if iterative_scan else _EF_SEARCH, (str(ef_search),))
        nearest = f"({_nearest(where, 'v.indexed')}) UNION ALL ({_nearest(where, 'NOT v.indexed')})"
        part_params = [*part_params, *part_params]
    else:
        nearest = _nearest(where, "true")
    if shared:
        nearest = (
            f"({nearest}) UNION ALL (SELECT {RECORD_COLUMNS}, v.embedding <=> %s AS distance "
            f"{linked_arm(POSTGRES, 'JOIN memory_vectors v ON v.id = m.id')} AND {where} "
            "ORDER BY distance LIMIT %s)"
        )
        part_params = [*part_params, query_vec, user_id, user_id, *params, wanted]
    sql = f"WITH nearest AS MATERIALIZED ({nearest}) SELECT * FROM nearest ORDER BY distance, id LIMIT %s OFFSET %s"
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(sql, [*part_params, limit, offset]).fetchall()
    return [ScoredRecord(record_from_row(r), 1.0 - float(r["distance"])) for r in rows]
