"""PostgreSQL's vector layout: small users searched exactly, large ones through the partial HNSW
index, and the ``vector_users`` counts that move a user between them."""

from __future__ import annotations

import numpy as np
import psycopg
import pytest

from memlane.model.errors import BackendError, DimensionMismatchError
from memlane.model.filters import parse_filters
from memlane.storage.base import Upsert, WriteBatch
from memlane.storage.postgres import PostgresBackend, writes
from memlane.storage.postgres.writes import check_vectors
from tests.postgres_helpers import DIMS, in_threads, query, rec, vec

pytestmark = pytest.mark.postgres


def test_vector_table_has_an_hnsw_cosine_index(pg: PostgresBackend, postgres_url: str) -> None:
    rows = query(postgres_url, "SELECT indexdef FROM pg_indexes WHERE tablename = 'memory_vectors'")
    defs = [r[0] for r in rows]
    assert any("USING hnsw" in d and "vector_cosine_ops" in d for d in defs), defs
    (coltype,) = query(
        postgres_url,
        "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
        "WHERE attrelid = 'memory_vectors'::regclass AND attname = 'embedding'",
    )
    assert coltype == (f"vector({DIMS})",)


def test_vector_index_of_another_size_is_refused(pg: PostgresBackend) -> None:
    pg.create_vector_index(DIMS)  # same size again: nothing to do
    with pytest.raises(DimensionMismatchError):
        pg.create_vector_index(DIMS * 2)


def test_embedding_of_wrong_size_writes_nothing(pg: PostgresBackend) -> None:
    batch = WriteBatch(upserts=[Upsert(rec("ok"), vec(1)), Upsert(rec("bad"), [1.0, 2.0])])
    with pytest.raises(DimensionMismatchError, match="2 dims"):
        pg.apply(batch)
    assert pg.memories.count("u1") == 0
    with pytest.raises(BackendError, match="bind_embedder"):
        check_vectors(batch, None)


@pytest.mark.parametrize("index_after", [writes.INDEX_AFTER, 0], ids=["exact", "hnsw"])
def test_filtered_search_still_fills_the_page(
    pg: PostgresBackend, monkeypatch: pytest.MonkeyPatch, index_after: int
) -> None:
    monkeypatch.setattr(writes, "INDEX_AFTER", index_after)  # 0: every vector goes into the HNSW index
    # The crowd sits right on the query vector, so an unfiltered HNSW candidate list is all theirs.
    crowd = [Upsert(rec(f"c{i}", "crowd"), vec(1, i / 1000)) for i in range(400)]
    mine = [
        Upsert(rec(f"m{i}", "me", category="Work" if i % 2 else "Personal"), vec(0.2, 1, i / 10))
        for i in range(30)
    ]
    pg.apply(WriteBatch(upserts=crowd + mine))
    hits = pg.memories.vector_search("me", vec(1), limit=10)
    assert len(hits) == 10 and {h.record.user_id for h in hits} == {"me"}
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    work = pg.memories.vector_search("me", vec(1), parse_filters({"category": "Work"}), limit=10)
    assert len(work) == 10 and {h.record.category for h in work} == {"Work"}
    pages = [
        h.record.id
        for off in (0, 7, 14)
        for h in pg.memories.vector_search("me", vec(1), limit=7, offset=off)
    ]
    assert pages == [h.record.id for h in pg.memories.vector_search("me", vec(1), limit=21)]


def indexed_flags(url: str, user: str) -> set[bool]:
    return {r[0] for r in query(url, "SELECT indexed FROM memory_vectors WHERE user_id = %s", (user,))}


def exact_order(pg: PostgresBackend, user: str, q: list[float]) -> list[str]:
    stored = pg.memories.vectors(user, [r.id for r in pg.memories.list(user, limit=1000)])
    cos = {i: float(np.dot(v, q) / np.linalg.norm(v) / np.linalg.norm(q)) for i, v in stored.items()}
    return sorted(cos, key=lambda i: (-cos[i], i))


def test_small_users_stay_out_of_the_hnsw_index_until_they_grow(
    pg: PostgresBackend, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writes, "INDEX_AFTER", 20)
    rng = np.random.default_rng(3)
    batch = [Upsert(rec(f"a{i}", "big"), rng.standard_normal(DIMS).tolist()) for i in range(15)]
    pg.apply(WriteBatch(upserts=[*batch, Upsert(rec("s1", "small"), vec(1))]))
    assert indexed_flags(postgres_url, "big") == {False} == indexed_flags(postgres_url, "small")
    q = rng.standard_normal(DIMS).tolist()
    assert [h.record.id for h in pg.memories.vector_search("big", q, limit=15)] == exact_order(pg, "big", q)

    pg.apply(
        WriteBatch(
            upserts=[Upsert(rec(f"b{i}", "big"), rng.standard_normal(DIMS).tolist()) for i in range(10)]
        )
    )
    assert indexed_flags(postgres_url, "big") == {True}  # past 20: the user's vectors all joined the index
    assert indexed_flags(postgres_url, "small") == {False}
    pg.upsert(rec("a0", "big", summary="changed"), vec(0, 1))  # a replaced vector stays in the index
    pg.apply(WriteBatch(upserts=[Upsert(rec("c0", "big"), vec(1))]))
    assert indexed_flags(postgres_url, "big") == {True}
    assert pg.memories.vectors("big", ["a0"])["a0"] == pytest.approx(vec(0, 1))
    assert [h.record.id for h in pg.memories.vector_search("big", q, limit=26)] == exact_order(pg, "big", q)
    assert [h.record.id for h in pg.memories.vector_search("small", vec(1), limit=5)] == ["s1"]


def test_vectors_outside_the_index_of_an_indexed_user_are_still_found(
    pg: PostgresBackend, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two writers racing past INDEX_AFTER can leave a few of the user's vectors outside the index.
    monkeypatch.setattr(writes, "INDEX_AFTER", 0)
    rng = np.random.default_rng(4)
    pg.apply(
        WriteBatch(
            upserts=[Upsert(rec(f"m{i}", "me"), rng.standard_normal(DIMS).tolist()) for i in range(30)]
        )
    )
    with psycopg.connect(postgres_url) as conn:
        conn.execute("UPDATE memory_vectors SET indexed = false WHERE id IN ('m3', 'm7', 'm11')")
    assert indexed_flags(postgres_url, "me") == {True, False}
    q = rng.standard_normal(DIMS).tolist()
    assert [h.record.id for h in pg.memories.vector_search("me", q, limit=30)] == exact_order(pg, "me", q)
    nearest = exact_order(pg, "me", pg.memories.vectors("me", ["m7"])["m7"])[0]
    assert (
        nearest == "m7"
        and pg.memories.vector_search("me", pg.memories.vectors("me", ["m7"])["m7"], limit=1)[0].record.id
        == "m7"
    )


def test_concurrent_writers_move_a_user_into_the_index_whole(
    pg: PostgresBackend, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writes, "INDEX_AFTER", 10)

    def write(i: int) -> None:  # batches naming the same users in opposite orders
        users = ["a", "b"] if i % 2 else ["b", "a"]
        for j in range(8):
            pg.apply(WriteBatch(upserts=[Upsert(rec(f"w{i}-{j}-{u}", u), vec(1, j)) for u in users]))

    in_threads(4, write)
    assert indexed_flags(postgres_url, "a") == {True} == indexed_flags(postgres_url, "b")
    assert query(postgres_url, "SELECT count(*) FROM memory_vectors") == [(64,)]


def test_vector_table_of_the_old_layout_is_upgraded_on_open(pg: PostgresBackend, postgres_url: str) -> None:
    pg.apply(WriteBatch(upserts=[Upsert(rec(f"m{i}"), vec(1, i / 10)) for i in range(5)]))
    with psycopg.connect(postgres_url) as conn:  # back to the layout before the partial HNSW index
        conn.execute("DROP INDEX memory_vectors_hnsw")
        conn.execute("DROP INDEX memory_vectors_user")
        conn.execute("ALTER TABLE memory_vectors DROP COLUMN indexed")
        conn.execute("DROP TABLE vector_users")
        conn.execute("CREATE INDEX memory_vectors_user ON memory_vectors (user_id)")
        conn.execute(
            "CREATE INDEX memory_vectors_hnsw ON memory_vectors USING hnsw (embedding vector_cosine_ops)"
        )
    with PostgresBackend(postgres_url) as reopened:
        assert indexed_flags(postgres_url, "u1") == {True}  # old users keep the index they had
        defs = [
            r[0]
            for r in query(postgres_url, "SELECT indexdef FROM pg_indexes WHERE tablename = 'memory_vectors'")
        ]
        assert any("USING hnsw" in d and "WHERE indexed" in d for d in defs), defs
        assert [h.record.id for h in reopened.memories.vector_search("u1", vec(1), limit=2)] == ["m0", "m1"]
        reopened.upsert(rec("new"), vec(0, 1))
        assert indexed_flags(postgres_url, "u1") == {True}
        assert query(postgres_url, "SELECT user_id, indexed FROM vector_users") == [("u1", True)]


def test_user_counts_of_a_store_without_them_are_made_on_open(
    pg: PostgresBackend, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writes, "INDEX_AFTER", 6)
    pg.apply(WriteBatch(upserts=[Upsert(rec(f"m{i}", "me"), vec(1, i / 10)) for i in range(5)]))
    with psycopg.connect(postgres_url) as conn:
        conn.execute("DROP TABLE vector_users")
    with PostgresBackend(postgres_url) as reopened:
        assert query(postgres_url, "SELECT user_id, exact, indexed FROM vector_users") == [("me", 5, False)]
        reopened.apply(WriteBatch(upserts=[Upsert(rec("n1", "me"), vec(0, 1))]))
        assert indexed_flags(postgres_url, "me") == {False}  # 6 written: not past 6 yet
        reopened.apply(WriteBatch(upserts=[Upsert(rec("n2", "me"), vec(0, 1))]))
        assert indexed_flags(postgres_url, "me") == {True}
        reopened.delete_user("me")
        assert query(postgres_url, "SELECT count(*) FROM vector_users") == [(0,)]


def hnsw_scans(conn: psycopg.Connection) -> int:  # type: ignore[type-arg]
    conn.execute("SELECT pg_stat_force_next_flush()")  # this backend's counts, at its next commit
    conn.commit()
    conn.execute("SELECT pg_stat_clear_snapshot()")
    row = conn.execute(
        "SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = 'memory_vectors_hnsw'"
    ).fetchone()
    conn.commit()
    return int(row[0]) if row else 0


def test_an_indexed_users_search_takes_the_hnsw_index(
    pg: PostgresBackend, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The planner's estimates put an exact scan and sort ahead of the index for a large user of a large
    store (docs/postgres.md, "At a million memories"); an indexed user's search does not sort where the
    index orders, whatever the statistics say, and still ranks as the exact search does."""
    from pgvector.psycopg import register_vector

    from memlane.model.filters import live
    from memlane.storage.postgres import search

    monkeypatch.setattr(writes, "INDEX_AFTER", 0)  # every vector in the HNSW index
    rng = np.random.default_rng(3)
    pg.apply(
        WriteBatch(
            upserts=[
                Upsert(rec(f"{u}{i}", u), [float(x) for x in rng.standard_normal(DIMS)])
                for u in ("me", "other")
                for i in range(60)
            ]
        )
    )
    q = [float(x) for x in rng.standard_normal(DIMS)]
    with psycopg.connect(postgres_url) as conn:
        register_vector(conn)
        before = hnsw_scans(conn)
        hits = search.vector_search(conn, "me", q, live(), limit=10, offset=0, iterative_scan=True)
        conn.commit()
        assert hnsw_scans(conn) > before
    assert [h.record.id for h in hits] == exact_order(pg, "me", q)[:10]
