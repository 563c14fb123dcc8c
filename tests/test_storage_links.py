"""The storage contract for memory links (shared and global memories), on SQLite and PostgreSQL.

A read with ``shared=True`` sees the user's own memories plus the active memories linked to them by
an open link; a read without it, and every user without a link, sees only their own.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from memlane.model.enums import HistoryEvent, MemoryState, MemoryType
from memlane.model.filters import parse_filters
from memlane.model.ids import GLOBAL_USER
from memlane.model.jobs import Change
from memlane.model.link import MemoryLink
from memlane.model.record import HistoryEntry
from memlane.storage.base import Backend, Purge, Unlink, Upsert, WriteBatch
from tests.test_storage_contract import T0, ids, rec, vec


@pytest.fixture
def backend(any_backend: Backend) -> Backend:
    """SQLite, PostgreSQL, and the S3 Vectors vector channel (linked memories are ranked from the database)."""
    return any_backend


def link(user: str, memory_id: str, by: str = "alice") -> MemoryLink:
    return MemoryLink(user_id=user, memory_id=memory_id, linked_at=T0, linked_by=by)


@pytest.fixture
def shared(backend: Backend) -> Backend:
    """alice owns a1 (shared with bob), a2 (shared with bob, but superseded) and a3 (not shared);
    bob owns b1; carol owns nothing."""
    backend.apply(
        WriteBatch(
            upserts=[
                Upsert(
                    rec("a1", "alice", "User's team deploys with Postgres.", category="Work"), vec(1, 0.1)
                ),
                Upsert(
                    rec(
                        "a2",
                        "alice",
                        "User's team deploys with MySQL.",
                        category="Work",
                        state=MemoryState.SUPERSEDED,
                    ),
                    vec(1, 0.2),
                ),
                Upsert(rec("a3", "alice", "User's team deploys on Fridays.", category="Work"), vec(1, 0.3)),
                Upsert(rec("b1", "bob", "User likes Postgres tuning.", category="Interests"), vec(1, 0.5)),
            ],
            links=[link("bob", "a1"), link("bob", "a2")],
        )
    )
    return backend


def test_shared_reads_see_own_and_active_linked_memories(shared: Backend) -> None:
    b = shared
    assert b.memories.get("bob", "a1") is None and b.memories.get("bob", "a1", shared=True) is not None
    assert b.memories.get("bob", "a2", shared=True) is None  # linked, but not active
    assert b.memories.get("bob", "a3", shared=True) is None  # not linked
    assert [r.id for r in b.memories.get_many("bob", ["a1", "a2", "a3", "b1"], shared=True)] == ["a1", "b1"]
    assert ids(b.memories.list("bob", shared=True)) == ["b1", "a1"]  # updated_at, then id, newest first
    assert ids(b.memories.list("bob")) == ["b1"]
    assert (b.memories.count("bob"), b.memories.count("bob", shared=True)) == (1, 2)
    assert set(ids(b.memories.vector_search("bob", vec(1), shared=True))) == {"a1", "b1"}
    assert ids(b.memories.vector_search("bob", vec(1))) == ["b1"]
    assert set(ids(b.memories.keyword_search("bob", "Postgres", shared=True))) == {"a1", "b1"}
    assert ids(b.memories.keyword_search("bob", "Postgres")) == ["b1"]
    assert {i for i, _ in b.memories.vector_ids("bob", vec(1), shared=True)} == {"a1", "b1"}
    assert {i for i, _ in b.memories.keyword_ids("bob", "deploys", shared=True)} == {"a1"}
    assert set(b.memories.vectors("bob", ["a1", "a3", "b1"], shared=True)) == {"a1", "b1"}
    assert set(b.memories.vectors("bob", ["a1", "b1"])) == {"b1"}
    for reader in ("carol", "alice"):  # no link: exactly the own reads
        assert set(ids(b.memories.list(reader, shared=True))) == set(ids(b.memories.list(reader)))
        assert ids(b.memories.vector_search(reader, vec(1), shared=True)) == ids(
            b.memories.vector_search(reader, vec(1))
        )
    assert (
        b.memories.list("carol", shared=True) == []
        and b.memories.keyword_search("carol", "Postgres", shared=True) == []
    )


def test_filters_and_scores_apply_to_linked_memories(shared: Backend) -> None:
    b = shared
    work = parse_filters({"category": "Work"})
    assert ids(b.memories.list("bob", work, shared=True)) == ["a1"]
    assert ids(
        b.memories.vector_search("bob", vec(1), parse_filters({"category": "Interests"}), shared=True)
    ) == ["b1"]
    assert b.memories.count("bob", work, shared=True) == 1
    hits = b.memories.vector_search("bob", vec(1, 0.1), shared=True)
    assert ids(hits) == ["a1", "b1"] and hits[0].score == pytest.approx(1.0, abs=1e-5)  # merged by cosine
    assert ids(b.memories.vector_search("bob", vec(1, 0.1), limit=1, offset=1, shared=True)) == ["b1"]
    assert ids(b.memories.list("bob", limit=1, offset=1, newest_first=False, shared=True)) == ["b1"]
    assert ids(b.memories.list("bob", limit=1, offset=1, shared=True)) == ["a1"]


def test_a_closed_link_hides_the_memory_and_is_kept(shared: Backend) -> None:
    b = shared
    b.apply(WriteBatch(unlinks=[Unlink("bob", "a1", T0 + timedelta(hours=1))]))
    assert b.memories.get("bob", "a1", shared=True) is None and b.memories.count("bob", shared=True) == 1
    assert ids(b.memories.vector_search("bob", vec(1), shared=True)) == ["b1"]
    closed = {k.memory_id: k for k in b.memories.links("bob")}
    assert closed["a1"].unlinked_at == T0 + timedelta(hours=1) and closed["a2"].is_open
    b.apply(WriteBatch(links=[link("bob", "a1")]))  # reopened
    assert b.memories.get("bob", "a1", shared=True) is not None


def test_links_are_read_by_the_owner_in_full_and_by_a_linked_user_for_themselves(shared: Backend) -> None:
    b = shared
    b.apply(WriteBatch(links=[link("carol", "a1")]))
    assert [k.user_id for k in b.memories.links("alice", "a1")] == ["bob", "carol"]
    assert [k.user_id for k in b.memories.links("bob", "a1")] == ["bob"]
    assert b.memories.links("dave", "a1") == [] and b.memories.links("bob", "b1") == []
    assert sorted(k.memory_id for k in b.memories.links("bob")) == ["a1", "a2"]
    assert b.memories.links("alice") == []


def test_shared_history_shows_the_owners_rows_but_not_whom_they_shared_with(shared: Backend) -> None:
    b = shared
    b.apply(
        WriteBatch(
            history=[
                HistoryEntry(id="h1", memory_id="a1", user_id="alice", event=HistoryEvent.ADD, at=T0),
                HistoryEntry(
                    id="h2",
                    memory_id="a1",
                    user_id="alice",
                    event=HistoryEvent.SHARE,
                    reason="with bob",
                    at=T0,
                ),
                HistoryEntry(
                    id="h3", memory_id="a1", user_id="bob", event=HistoryEvent.SHARE, reason="by alice", at=T0
                ),
                HistoryEntry(id="h4", memory_id="a3", user_id="alice", event=HistoryEvent.ADD, at=T0),
            ]
        )
    )
    assert [h.id for h in b.memories.history("bob", "a1", shared=True)] == ["h1", "h3"]
    assert [h.id for h in b.memories.history("bob", "a1")] == ["h3"]
    assert [h.id for h in b.memories.history("bob", "a3", shared=True)] == []  # not linked
    b.apply(WriteBatch(unlinks=[Unlink("bob", "a1", T0)]))
    assert [h.id for h in b.memories.history("bob", "a1", shared=True)] == ["h3"]


def test_a_linked_users_reads_count_as_accesses(shared: Backend) -> None:
    b = shared
    b.memories.record_access("bob", ["a1", "a3"], T0)
    b.memories.record_access("carol", ["a1"], T0)
    assert b.memories.get("alice", "a1").access_count == 1  # type: ignore[union-attr]
    assert b.memories.get("alice", "a3").access_count == 0  # type: ignore[union-attr]


def test_purging_a_shared_memory_removes_its_links_and_what_linked_users_hold_of_it(shared: Backend) -> None:
    b = shared
    b.apply(
        WriteBatch(
            history=[
                HistoryEntry(
                    id="h1",
                    memory_id="a1",
                    user_id="bob",
                    event=HistoryEvent.UNSHARE,
                    old_value={"memory_id": "a1"},
                    reason="superseded by b1: a1 was wrong",
                    at=T0,
                ),
                HistoryEntry(
                    id="h2",
                    memory_id="b1",
                    user_id="bob",
                    event=HistoryEvent.ADD,
                    reason="supersedes a1",
                    at=T0,
                ),
            ],
            changes=[
                Change(
                    id="c1", user_id="bob", memory_id="a1", event="shared", meta={"summary": "deploys"}, at=T0
                ),
                Change(
                    id="c2", user_id="bob", memory_id="b1", event="created", meta={"replaces": "a1"}, at=T0
                ),
            ],
            links=[link("carol", "a1")],
        )
    )
    b.apply(WriteBatch(purges=[Purge("alice", "a1")]))
    assert (
        b.memories.links("alice", "a1") == []
        and b.memories.links("bob", "a1") == []
        and b.memories.links("carol") == []
    )
    assert b.memories.get("bob", "a1", shared=True) is None
    rows = {h.id: h for h in b.memories.history("bob")}
    assert rows["h1"].event is HistoryEvent.UNSHARE and (rows["h1"].old_value, rows["h1"].reason) == (
        None,
        None,
    )
    assert rows["h2"].reason is None
    assert [c.meta for c in b.changes.changes_after("bob", 0)] == [{}, {}]
    assert ids(b.memories.list("bob", shared=True)) == ["b1"]  # bob's own memory stays


def test_deleting_a_user_removes_the_links_they_hold_and_the_links_to_their_memories(shared: Backend) -> None:
    b = shared
    b.upsert(rec("c1", "carol", "User runs the on-call rota."), vec(0, 1))
    b.apply(WriteBatch(links=[link("bob", "c1", by="carol"), link("carol", "a1")]))
    b.delete_user("bob")
    assert b.memories.links("alice", "a1")[0].user_id == "carol" and b.memories.get("alice", "a1") is not None
    assert b.memories.links("carol", "c1") == []
    b.delete_user("alice")
    assert b.memories.links("carol") == [] and b.memories.list("carol", shared=True)[0].id == "c1"


def test_global_memories_belong_to_no_listed_user(backend: Backend) -> None:
    backend.upsert(
        rec("g1", GLOBAL_USER, "The office is closed on Sundays.", type=MemoryType.SEMANTIC), vec(1)
    )
    backend.upsert(rec("m1", "maya"), vec(1))
    backend.apply(WriteBatch(links=[link("maya", "g1", by="system:bootstrap")]))
    assert backend.memories.list_users() == ["maya"]
    assert set(ids(backend.memories.vector_search("maya", vec(1), shared=True))) == {"g1", "m1"}


def test_linked_memories_rank_beside_a_large_indexed_own_partition(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The own arm takes its fast path (PostgreSQL: the HNSW index; SQLite: vec0 KNN or the in-memory
    copy, per fixture) and the linked arm is searched beside it."""
    if backend.name == "postgres":
        from memlane.storage.postgres import writes

        monkeypatch.setattr(writes, "INDEX_AFTER", 0)  # every vector in the HNSW index
    backend.apply(
        WriteBatch(
            upserts=[Upsert(rec(f"b{i}", "bob", f"Bob's note {i}."), vec(1, i / 50, 0.3)) for i in range(60)]
        )
    )
    backend.apply(
        WriteBatch(
            upserts=[Upsert(rec("a1", "alice", "Alice's exact match."), vec(0, 0, 1))],
            links=[link("bob", "a1")],
        )
    )
    assert ids(backend.memories.vector_search("bob", vec(0, 0, 1), limit=3, shared=True))[0] == "a1"
    assert "a1" not in ids(backend.memories.vector_search("bob", vec(0, 0, 1), limit=3))
    assert ids(
        backend.memories.vector_search(
            "bob", vec(0, 0, 1), parse_filters({"type": "semantic"}), limit=1, shared=True
        )
    ) == ["a1"]
