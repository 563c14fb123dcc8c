"""SQLite-only behaviour: the vec0 table's layout, its upgrade, and batched inserts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memlane.model.enums import MemoryState, MemoryType
from memlane.model.filters import Condition
from memlane.storage.base import Purge, Upsert, WriteBatch
from memlane.storage.sqlite.backend import VEC0_CHUNK_SIZE, SqliteBackend
from memlane.storage.sqlite.migrations import SQLITE_SCHEMA_VERSION
from tests.test_storage_contract import ids, rec, vec

DIMS = 8


def open_store(path: Path) -> SqliteBackend:
    b = SqliteBackend(path)
    b.bind_embedder(f"test:unit:{DIMS}", DIMS)
    return b


def vec_table_sql(b: SqliteBackend) -> str:
    return str(b._rows("SELECT sql FROM sqlite_master WHERE name = 'memory_vectors'")[0][0])


def test_many_small_users_keep_the_file_small(tmp_path: Path) -> None:
    b = open_store(tmp_path / "m.db")
    b.apply(WriteBatch(upserts=[Upsert(rec(f"m{i}", f"user{i}"), vec(1, i)) for i in range(300)]))
    b.close()
    size_mb = os.path.getsize(tmp_path / "m.db") / 1e6
    # vec0's default reserves 1,024 vectors per partition: 300 users x 32 KB at 8 dims was ~10 MB
    assert size_mb < 3, f"{size_mb:.1f} MB for 300 one-memory users"


def test_a_store_with_the_old_vector_layout_is_rebuilt_on_open(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    b = open_store(path)
    with b._tx() as c:  # what stores made before the explicit chunk size have
        c.execute("DROP TABLE memory_vectors")
        c.execute(
            "CREATE VIRTUAL TABLE memory_vectors USING vec0(user_id TEXT PARTITION KEY, state TEXT, "
            f"type TEXT, embedding float[{DIMS}] distance_metric=cosine)"
        )
    b.apply(
        WriteBatch(
            upserts=[
                Upsert(rec("a", summary="User likes tea."), vec(1, 0)),
                Upsert(rec("b", summary="User likes jazz."), vec(0, 1)),
                Upsert(rec("c", "u2"), vec(1, 0)),
            ]
        )
    )
    b.close()

    b = open_store(path)
    assert f"chunk_size={VEC0_CHUNK_SIZE}" in vec_table_sql(b) and "type TEXT PARTITION KEY" in vec_table_sql(
        b
    )
    assert ids(b.memories.vector_search("u1", vec(0, 1))) == ["b", "a"]
    assert ids(b.memories.vector_search("u2", vec(1, 0))) == ["c"]
    b.apply(WriteBatch(upserts=[Upsert(rec("d"), vec(1, 1))]))
    assert ids(b.memories.vector_search("u1", vec(1, 1)))[0] == "d"
    b.close()
    b = open_store(path)  # a second open leaves the rebuilt table alone
    assert ids(b.memories.vector_search("u1", vec(0, 1))) == ["b", "d", "a"]
    b.close()


def test_a_batch_mixing_new_existing_and_repeated_ids(tmp_path: Path) -> None:
    b = open_store(tmp_path / "mix.db")
    b.apply(WriteBatch(upserts=[Upsert(rec("old", summary="User likes tea."), vec(1, 0))]))
    b.apply(
        WriteBatch(
            upserts=[
                Upsert(rec("new1", summary="User plays chess."), vec(0, 1)),
                Upsert(rec("old", summary="User likes green tea."), vec(1, 1)),
                Upsert(rec("twice", summary="User owns a bike."), vec(0, 0, 1)),
                Upsert(rec("twice", summary="User owns two bikes."), vec(0, 0, 1)),
                Upsert(rec("new2", "u2", summary="User plays chess."), vec(0, 1)),
            ]
        )
    )
    assert {r.id: r.summary for r in b.memories.list("u1")} == {
        "old": "User likes green tea.",
        "new1": "User plays chess.",
        "twice": "User owns two bikes.",
    }
    assert ids(b.memories.vector_search("u1", vec(1, 1)))[0] == "old"
    assert ids(b.memories.keyword_search("u1", "chess")) == ["new1"]
    assert ids(b.memories.keyword_search("u1", "bikes")) == ["twice"]
    assert ids(b.memories.keyword_search("u2", "chess")) == ["new2"]
    assert len(b.memories.vector_search("u1", vec(0, 0, 1))) == 3  # one vector per memory, none left behind
    b.close()


def test_wal_checkpoints_run_in_the_background_and_stop_on_close(tmp_path: Path) -> None:
    import gc
    import time

    b = open_store(tmp_path / "wal.db")
    assert b._rows("PRAGMA wal_autocheckpoint")[0][0] > 1000  # the writer only checkpoints as a backstop
    b.apply(WriteBatch(upserts=[Upsert(rec(f"m{i}", f"user{i}"), vec(1, i)) for i in range(200)]))
    assert b._checkpointer is not None
    thread = b._checkpointer._thread
    assert thread is not None and thread.is_alive()
    db = tmp_path / "wal.db"
    written = os.path.getsize(db)  # the new pages are in the WAL until a checkpoint copies them over
    deadline = time.monotonic() + 10
    while os.path.getsize(db) == written and time.monotonic() < deadline:
        time.sleep(0.05)
    assert os.path.getsize(db) > written
    b.close()
    assert not thread.is_alive()

    forgotten = open_store(tmp_path / "forgotten.db")  # never closed: its thread ends with it
    forgotten.apply(WriteBatch(upserts=[Upsert(rec("m"), vec(1))]))
    assert forgotten._checkpointer is not None and forgotten._checkpointer._thread is not None
    orphan = forgotten._checkpointer._thread
    del forgotten
    gc.collect()
    orphan.join(timeout=5)
    assert not orphan.is_alive()


def test_a_schema_2_keyword_index_is_rebuilt_with_per_user_terms(tmp_path: Path) -> None:
    path = tmp_path / "v2.db"
    b = open_store(path)
    b.apply(
        WriteBatch(
            upserts=[
                Upsert(rec("a", summary="User goes hiking on Sundays."), vec(1)),
                Upsert(rec("b", "u2", summary="User likes hiking boots."), vec(1)),
                Upsert(rec("c", summary="User plays chess."), vec(1)),
            ]
        )
    )
    b.apply(WriteBatch(purges=[Purge("u1", "c")]))
    with b._tx() as c:  # schema 2 indexed the bare words
        c.execute("DELETE FROM memories_fts")
        c.execute(
            "INSERT INTO memories_fts(rowid, uid, summary, tags) SELECT rid, '0', summary, '' FROM memories "
            "WHERE state != 'purged'"
        )
        c.execute("UPDATE memlane_meta SET value = '2' WHERE key = 'schema_version'")
    assert b.memories.keyword_search("u1", "hiking") == []
    b.close()

    b = open_store(path)
    assert b.schema_version() == SQLITE_SCHEMA_VERSION
    assert ids(b.memories.keyword_search("u1", "hike")) == ["a"]  # stemmed, and only the user's own
    assert ids(b.memories.keyword_search("u2", "hiking")) == ["b"]
    assert b.memories.keyword_search("u1", "chess") == []  # a purged memory stays out of the index
    b.close()


def test_a_type_change_moves_the_vector_to_its_partition(tmp_path: Path) -> None:
    b = open_store(tmp_path / "type.db")
    b.apply(
        WriteBatch(
            upserts=[
                Upsert(rec("a", summary="User met Ana."), vec(1, 0)),
                Upsert(rec("b", summary="User likes tea."), vec(0, 1)),
            ]
        )
    )
    b.apply(WriteBatch(upserts=[Upsert(rec("a", summary="User met Ana.", type=MemoryType.EPISODIC))]))

    def found(kind: str) -> list[str]:
        return ids(b.memories.vector_search("u1", vec(1, 0), [Condition("type", "$eq", kind)]))

    assert found("episodic") == ["a"]
    assert found("semantic") == ["b"]
    assert ids(b.memories.vector_search("u1", vec(1, 0))) == ["a", "b"]
    b.close()


def test_in_memory_vectors_rank_like_vec0(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import random

    from memlane.storage.sqlite import vector_cache

    rng = random.Random(5)
    b = open_store(tmp_path / "same.db")
    kinds = [MemoryType.SEMANTIC, MemoryType.EPISODIC]
    b.apply(
        WriteBatch(
            upserts=[
                Upsert(
                    rec(
                        f"m{i}",
                        summary=f"memory {i}",
                        type=kinds[i % 2],
                        category=["Work", "Health"][i % 3 == 0],
                        state=MemoryState.SOFT_DELETED if i % 7 == 0 else MemoryState.ACTIVE,
                    ),
                    vec(*[rng.uniform(-1, 1) for _ in range(DIMS)]),
                )
                for i in range(300)
            ]
        )
    )
    queries = [vec(*[rng.uniform(-1, 1) for _ in range(DIMS)]) for _ in range(5)]
    filters = [
        [],
        [Condition("type", "$eq", "episodic")],
        [Condition("state", "$eq", "active")],
        [Condition("state", "$eq", "active"), Condition("category", "$eq", "Health")],
    ]

    def run() -> list[list[tuple[str, float]]]:
        return [
            [
                (h.record.id, round(h.score, 5))
                for h in b.memories.vector_search("u1", q, f, limit=12, offset=3)
            ]
            for q in queries
            for f in filters
        ]

    monkeypatch.setattr(vector_cache, "MIN_VECTORS", 10**9)
    by_vec0 = run()
    monkeypatch.setattr(vector_cache, "MIN_VECTORS", 0)
    assert run() == by_vec0
    b.close()


def test_in_memory_vectors_follow_writes_from_another_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memlane.storage.sqlite import vector_cache

    monkeypatch.setattr(vector_cache, "MIN_VECTORS", 0)
    reader, writer = open_store(tmp_path / "two.db"), open_store(tmp_path / "two.db")
    writer.apply(WriteBatch(upserts=[Upsert(rec("a"), vec(1, 0)), Upsert(rec("b"), vec(0, 1))]))
    active = [Condition("state", "$eq", "active")]

    def found(query: list[float], conds: list[Condition] = active) -> list[str]:
        return ids(reader.memories.vector_search("u1", query, conds))

    assert found(vec(1, 0)) == ["a", "b"]  # cached now
    writer.apply(WriteBatch(upserts=[Upsert(rec("c"), vec(1, 0.1))]))  # a new memory
    assert found(vec(1, 0)) == ["a", "c", "b"]
    writer.apply(WriteBatch(upserts=[Upsert(rec("a", state=MemoryState.SOFT_DELETED))]))  # state change only
    assert found(vec(1, 0)) == ["c", "b"]
    writer.apply(WriteBatch(upserts=[Upsert(rec("b"), vec(1, 0))]))  # re-embedded
    assert found(vec(1, 0)) == ["b", "c"]
    writer.apply(WriteBatch(upserts=[Upsert(rec("c", type=MemoryType.EPISODIC))]))  # moved to another type
    assert found(vec(1, 0), [*active, Condition("type", "$eq", "episodic")]) == ["c"]
    writer.apply(WriteBatch(purges=[Purge("u1", "b")]))
    assert found(vec(1, 0)) == ["c"]
    writer.delete_user("u1")
    assert found(vec(1, 0), []) == []
    writer.apply(WriteBatch(upserts=[Upsert(rec("d"), vec(0, 1))]))
    assert found(vec(1, 0)) == ["d"]
    # another held user's changes, read from the journal while searching u1, apply when u2 is searched
    writer.apply(WriteBatch(upserts=[Upsert(rec("x", "u2"), vec(0, 1))]))
    assert ids(reader.memories.vector_search("u2", vec(0, 1), active)) == ["x"]
    writer.apply(WriteBatch(upserts=[Upsert(rec("y", "u2"), vec(0, 1)), Upsert(rec("e"), vec(1, 0))]))
    assert found(vec(1, 0)) == ["e", "d"]
    assert ids(reader.memories.vector_search("u2", vec(0, 1), active)) == ["x", "y"]
    assert (
        reader._rows("SELECT name FROM sqlite_master WHERE tbl_name = 'vector_journal' AND type = 'index'")
        == []
    )
    reader.close()
    writer.close()


def test_a_deleted_users_vectors_leave_the_journal_and_every_in_memory_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memlane.storage.sqlite import vector_cache

    monkeypatch.setattr(vector_cache, "MIN_VECTORS", 0)
    reader, writer = open_store(tmp_path / "del.db"), open_store(tmp_path / "del.db")
    writer.apply(
        WriteBatch(
            upserts=[Upsert(rec("a", "gone-user"), vec(1, 0)), Upsert(rec("b", "kept-user"), vec(0, 1))]
        )
    )
    for user in ("gone-user", "kept-user"):  # the reader holds a copy of both users' vectors
        assert len(reader.memories.vector_search(user, vec(1, 1))) == 1
    writer.delete_user("gone-user")
    assert writer._rows("SELECT user_id FROM vector_journal WHERE user_id = 'gone-user'") == []
    assert ids(reader.memories.vector_search("kept-user", vec(0, 1))) == [
        "b"
    ]  # reloaded from the reset, still right
    assert reader.memories.vector_search("gone-user", vec(1, 0)) == []
    held = reader.memories._cache._users.get("gone-user") if reader.memories._cache else None
    assert held is None or len(held.rids) == 0  # no copy of the deleted user's vectors stays in memory
    reader.close()
    writer.close()


def test_the_vector_journal_is_compacted_on_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memlane.storage.sqlite import vector_cache

    monkeypatch.setattr(vector_cache, "MIN_VECTORS", 0)
    monkeypatch.setattr(vector_cache, "JOURNAL_KEEP", 10)
    reader = open_store(tmp_path / "j.db")
    reader.apply(WriteBatch(upserts=[Upsert(rec(f"m{i}", f"user{i % 2}"), vec(1, i)) for i in range(30)]))
    assert len(reader.memories.vector_search("user0", vec(1, 0), limit=50)) == 15  # cached
    other = open_store(tmp_path / "j.db")  # opening compacts: one reset per user
    assert sorted(tuple(r) for r in other._rows("SELECT user_id, rid FROM vector_journal")) == [
        ("user0", -1),
        ("user1", -1),
    ]
    other.apply(WriteBatch(purges=[Purge("user0", "m0")]))
    assert len(reader.memories.vector_search("user0", vec(1, 0), limit=50)) == 14
    reader.close()
    other.close()


def test_pinned_and_keyed_lookups_use_their_partial_indexes(tmp_path: Path) -> None:
    from memlane.model.filters import parse_filters
    from memlane.storage.filter_sql import SQLITE, compile_conditions

    b = open_store(tmp_path / "idx.db")
    for filters, index in (
        ({"pinned": True}, "memories_user_pinned"),
        ({"key": "diet"}, "memories_user_keyed"),
    ):
        where, params = compile_conditions(parse_filters(filters, user_id="u1"), SQLITE)
        plan = " ".join(
            str(r[3])
            for r in b._rows(
                f"EXPLAIN QUERY PLAN SELECT m.id FROM memories m WHERE m.user_id = ? AND {where}",
                ("u1", *params),
            )
        )
        assert index in plan, plan
    b.apply(WriteBatch(upserts=[Upsert(rec("p", pinned=True), vec(1)), Upsert(rec("q"), vec(1))]))
    assert ids(b.memories.list("u1", parse_filters({"pinned": True}, user_id="u1"))) == ["p"]
    assert ids(b.memories.list("u1", parse_filters({"pinned": False}, user_id="u1"))) == ["q"]
    b.close()
