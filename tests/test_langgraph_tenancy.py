"""MemlaneStore tenancy: per-user scope by default, the user read from a configured namespace label
(LangMem's ``("memories", "{user_id}")``), stores bound to one user, cross-user reads only on opt-in,
and search ranked by the database. SQLite and PostgreSQL."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from langgraph.store.base import InvalidNamespaceError

from memlane import Memory
from memlane.integrations.langgraph import MemlaneStore
from tests.write_helpers import BACKENDS, engine


@pytest.fixture(params=BACKENDS)
def mem(request: pytest.FixtureRequest, tmp_path: os.PathLike[str]) -> Iterator[Memory]:
    yield from engine(request, tmp_path)


def test_a_graph_for_alice_never_reads_bob(mem: Memory) -> None:
    store = MemlaneStore(mem)
    store.put(("alice", "semantic"), "pref:drink", {"summary": "Alice drinks green tea."})
    mem.put("Bob drinks black coffee.", user_id="bob")  # formed outside the store (REST, Memory.put)
    with pytest.raises(InvalidNamespaceError, match="cross_user=True"):
        store.search((), query="what does the user drink?")
    with pytest.raises(InvalidNamespaceError, match="cross_user=True"):
        store.list_namespaces()
    found = store.search(("alice",), query="what does the user drink?")
    assert [i.value["summary"] for i in found] == ["Alice drinks green tea."]
    assert store.list_namespaces(prefix=("alice",)) == [("alice", "semantic")]


def test_a_store_bound_to_a_user_reads_only_that_user_and_refuses_others(mem: Memory) -> None:
    mem.put("Bob drinks black coffee.", user_id="bob")
    alice = MemlaneStore(mem, user_id="alice")
    alice.put(("alice", "semantic"), "pref:drink", {"summary": "Alice drinks green tea."})
    assert [i.value["summary"] for i in alice.search((), query="drink")] == ["Alice drinks green tea."]
    assert alice.list_namespaces() == [("alice", "semantic")]
    for call in (
        lambda: alice.put(("bob", "semantic"), "k", {"summary": "Bob likes jazz."}),
        lambda: alice.get(("bob", "semantic"), "k"),
        lambda: alice.search(("bob",), query="drink"),
        lambda: alice.delete(("bob", "semantic"), "k"),
    ):
        with pytest.raises(InvalidNamespaceError, match="acts for user 'alice'"):
            call()
    assert [r.summary for r in mem.list(user_id="bob")] == ["Bob drinks black coffee."]  # untouched


def test_langmem_namespaces_store_under_the_real_user(mem: Memory) -> None:
    store = MemlaneStore(mem, user_namespace_index=("memories", "{user_id}"))
    assert store.user_index == 1
    store.put(("memories", "alice"), "m1", {"kind": "Memory", "content": {"content": "Alice is vegetarian."}})
    store.put(("memories", "bob"), "m1", {"kind": "Memory", "content": {"content": "Bob plays the cello."}})
    assert mem.users() == ["alice", "bob"]  # not one user named "memories"
    assert [r["summary"] for r in mem.export_user("alice") if r["kind"] == "memory"] == [
        "Alice is vegetarian."
    ]
    found = store.search(("memories", "alice"), query="food")
    assert [i.value["content"]["content"] for i in found] == ["Alice is vegetarian."]
    with pytest.raises(InvalidNamespaceError, match="names no user"):
        store.search(("memories",), query="food")
    with pytest.raises(InvalidNamespaceError, match="no user label"):
        store.put(("memories",), "m2", {"content": "x"})
    assert mem.delete_user("alice") == 1
    assert store.search(("memories", "alice"), query="food") == []
    assert [i.key for i in store.search(("memories", "bob"))] == ["m1"]
    with pytest.raises(ValueError, match="exactly one"):
        MemlaneStore(mem, user_namespace_index=("memories", "user"))


def test_cross_user_reads_are_an_explicit_opt_in(mem: Memory) -> None:
    store = MemlaneStore(mem, cross_user=True)
    store.put(("alice", "semantic"), "a", {"summary": "Alice swims."})
    store.put(("bob", "semantic"), "b", {"summary": "Bob runs."})
    assert {i.key for i in store.search(())} == {"a", "b"}
    assert sorted(store.list_namespaces()) == [("alice", "semantic"), ("bob", "semantic")]


def test_search_ranks_in_the_database_like_memory_search(mem: Memory) -> None:
    store = MemlaneStore(mem)
    texts = [
        "User's dog Luna is four.",
        "User works as a nurse in Porto.",
        "User's favourite food is ramen.",
        "User plays the violin on Sundays.",
        "User is allergic to cats.",
    ]
    for n, text in enumerate(texts):
        store.put(("ana", "semantic"), f"k{n}", {"summary": text})
    store.put(("ana", "semantic"), "plain", {"summary": "User has no vector here."}, index=False)
    for query in ("what pet does the user have?", "where does the user work?", "music"):
        got = store.search(("ana",), query=query, limit=10)
        vector = mem.embedder.embed_one(query)
        want = mem.backend.memories.vector_search("ana", vector, limit=10)
        assert [i.value["summary"] for i in got[:5]] == [h.record.summary for h in want]
        assert [round(i.score or 0, 5) for i in got[:5]] == [round(h.score, 5) for h in want]
        assert got[-1].key == "plain" and got[-1].score is None  # unvectored items follow
        page = store.search(("ana",), query=query, limit=2, offset=1)
        assert [i.key for i in page] == [i.key for i in got[1:3]]
    assert [i.key for i in store.search(("ana",), query="nurse", filter={"summary": texts[1]})] == ["k1"]


def test_a_selective_filter_widens_the_database_pool(mem: Memory) -> None:
    store = MemlaneStore(mem)
    for n in range(120):
        store.put(("ana", "notes"), f"n{n}", {"summary": f"User's note number {n} about gardening.", "n": n})
    found = store.search(("ana",), query="gardening notes", filter={"n": 117}, limit=5)
    assert [i.key for i in found] == ["n117"] and found[0].score is not None
    assert len(store.search(("ana",), query="gardening notes", filter={"n": {"$gte": 100}}, limit=50)) == 20


def test_langmem_namespaces_find_the_user_by_default_and_never_merge_users(mem: Memory) -> None:
    store = MemlaneStore(mem)  # no option: LangMem's ("memories", "{user_id}") is detected
    store.put(("memories", "alice"), "m1", {"kind": "Memory", "content": {"content": "Alice is vegetarian."}})
    store.put(("memories", "bob"), "m1", {"kind": "Memory", "content": {"content": "Bob plays the cello."}})
    store.put(("carol", "memories"), "m1", {"content": "Carol runs marathons."})  # LangGraph docs' shape
    assert mem.users() == ["alice", "bob", "carol"]
    for prefix in (("memories",), ("memories", "*"), ()):
        with pytest.raises(InvalidNamespaceError, match="names no user"):
            store.search(prefix, query="food")
    found = store.search(("memories", "alice"), query="food")
    assert [i.value["content"]["content"] for i in found] == ["Alice is vegetarian."]
    assert store.list_namespaces(prefix=("memories", "bob")) == [("memories", "bob")]
    with pytest.raises(InvalidNamespaceError, match="comes the user id"):
        store.put(("memories",), "m2", {"content": "x"})
    assert mem.delete_user("alice") == 1
    assert store.search(("memories", "alice"), query="food") == []
    assert store.get(("memories", "bob"), "m1") is not None
    assert MemlaneStore(mem, user_id="bob").search(("memories",), query="music")[0].key == "m1"


def test_a_label_that_cannot_be_a_user_is_refused_with_the_option_to_set(mem: Memory) -> None:
    fixed = MemlaneStore(mem, user_namespace_index=0)  # the old default, set explicitly
    for namespace in (("memories", "alice"), ("semantic", "alice")):
        with pytest.raises(InvalidNamespaceError, match="user_namespace_index=1"):
            fixed.put(namespace, "m1", {"content": "Alice is vegetarian."})
    with pytest.raises(InvalidNamespaceError, match="not a user id"):
        MemlaneStore(mem, user_namespace_index=1).put(("alice", "semantic"), "k", {"summary": "x"})
    with pytest.raises(ValueError, match="not a user id"):
        MemlaneStore(mem, user_id="memories")
    assert mem.users() == []  # nothing was written
