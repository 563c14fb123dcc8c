"""MemlaneStore beyond LangGraph's own suites: how items map onto memlane memories, history, tenancy,
TTL (omit_expired, refresh, sweep) and LangMem's value shapes, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import timedelta

import langgraph.store.base  # noqa: F401 - in the test extra: a broken install fails, not skips
import pytest

from memlane import Memory  # noqa: E402
from memlane.integrations.langgraph import AsyncMemlaneStore, MemlaneStore  # noqa: E402
from memlane.integrations.langgraph.items import LG, record_id  # noqa: E402
from memlane.model.enums import HistoryEvent, MemoryState  # noqa: E402
from memlane.model.ids import deterministic_id  # noqa: E402
from memlane.model.record import utcnow  # noqa: E402
from memlane.storage.base import Upsert, WriteBatch  # noqa: E402


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def memory(request: pytest.FixtureRequest, tmp_path: object) -> Iterator[Memory]:
    location = f"{tmp_path}/m.db" if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    mem = Memory(location, embedder="hash", llm="rules")
    yield mem
    mem.close()


@pytest.fixture
def store(memory: Memory) -> MemlaneStore:
    return MemlaneStore(memory, ttl={"refresh_on_read": True})


def test_seed_namespace_item_is_the_keyed_memory(store: MemlaneStore, memory: Memory) -> None:
    value = {
        "summary": "Luna the cat is 3 years old.",
        "category": "personal",
        "tags": ["pet"],
        "importance": 4,
    }
    store.put(("maya", "semantic"), "profile:pet:luna:age", value, index=["summary"])
    rec = memory.get(deterministic_id("maya", "semantic", "profile:pet:luna:age"), user_id="maya")
    assert (rec.summary, rec.category, rec.tags, rec.importance, rec.key) == (
        "Luna the cat is 3 years old.",
        "Personal",
        ["pet"],
        4,
        "profile:pet:luna:age",
    )
    assert store.get(("maya", "semantic"), "profile:pet:luna:age").value == value  # verbatim
    assert [(h.event, h.actor) for h in memory.history(rec.id, user_id="maya")] == [
        (HistoryEvent.ADD, "langgraph")
    ]
    hits = memory.search("how old is the cat?", user_id="maya")  # memlane's own retrieval finds it
    assert hits[0].memory.id == rec.id
    memory.put(
        "Luna the cat turned 4.", user_id="maya", key="profile:pet:luna:age"
    )  # same memory via memlane
    item = store.get(("maya", "semantic"), "profile:pet:luna:age")
    assert item.value == {**value, "summary": "Luna the cat turned 4."}  # memlane's change shows


def test_memlane_memories_show_in_user_type_namespaces(store: MemlaneStore, memory: Memory) -> None:
    rec = memory.put("Maya lives in Lisbon.", user_id="maya", category="Personal")
    item = store.get(("maya", "semantic"), rec.id)
    assert (
        item is not None
        and item.value["summary"] == "Maya lives in Lisbon."
        and item.value["category"] == "Personal"
    )
    found = store.search(("maya", "semantic"), query="where does maya live")
    assert [i.key for i in found] == [rec.id] and found[0].score is not None
    store.put(("maya", "semantic"), rec.id, {**item.value, "summary": "Maya lives in Porto."})
    again = memory.get(rec.id, user_id="maya")
    assert again.summary == "Maya lives in Porto." and again.key is None  # updated in place, still key-less
    assert len(memory.list(user_id="maya")) == 1
    assert store.list_namespaces(prefix=("maya",)) == [("maya", "semantic")]


def test_delete_is_a_restorable_soft_delete(store: MemlaneStore, memory: Memory) -> None:
    store.put(("test", "docs"), "d1", {"text": "hello"})
    user, rid = record_id(("test", "docs"), "d1")
    store.delete(("test", "docs"), "d1")
    assert store.get(("test", "docs"), "d1") is None and store.search(("test",)) == []
    assert memory.get(rid, user_id=user).state is MemoryState.SOFT_DELETED
    memory.restore(rid, user_id=user)
    assert store.get(("test", "docs"), "d1").value == {"text": "hello"}
    assert [h.event for h in memory.history(rid, user_id=user)] == [
        HistoryEvent.ADD,
        HistoryEvent.DELETE,
        HistoryEvent.RESTORE,
    ]


def test_any_first_label_is_a_user_scope(store: MemlaneStore, memory: Memory) -> None:
    store.put(("my docs", "a"), "k", {"text": "x"})
    store.put(("maya", "b"), "k", {"text": "y"})
    assert [i.value for i in store.search(("my docs",))] == [{"text": "x"}]
    assert [i.value for i in store.search(("maya",))] == [{"text": "y"}]  # tenancy: one user's memories
    wide = MemlaneStore(memory, cross_user=True)  # reads across users are an explicit opt-in
    assert sorted(wide.list_namespaces()) == [("maya", "b"), ("my docs", "a")]
    assert {i.namespace for i in wide.search(())} == {("maya", "b"), ("my docs", "a")}
    assert len(memory.users()) == 2 and "maya" in memory.users()


def test_value_filters_and_unknown_operators(store: MemlaneStore) -> None:
    for n in range(4):
        store.put(
            ("u1", "items"), f"k{n}", {"n": n, "tag": "even" if n % 2 == 0 else "odd", "nested": {"a": n}}
        )
    assert sorted(i.key for i in store.search(("u1",), filter={"n": {"$gte": 2}})) == ["k2", "k3"]
    assert sorted(i.key for i in store.search(("u1",), filter={"tag": "odd", "nested": {"a": 3}})) == ["k3"]
    assert [i.key for i in store.search(("u1",), filter={"missing": {"$gt": 1}})] == []
    with pytest.raises(ValueError, match="unsupported filter operator"):
        store.search(("u1",), filter={"n": {"$regex": "1"}})


def test_index_false_items_rank_after_scored_ones(store: MemlaneStore, memory: Memory) -> None:
    store.put(("u1", "notes"), "plain", {"text": "apple pie recipe"}, index=False)
    store.put(("u1", "notes"), "indexed", {"text": "apple pie recipe"})
    found = store.search(("u1", "notes"), query="apple pie")
    assert [(i.key, i.score is None) for i in found] == [("indexed", False), ("plain", True)]
    user, rid = record_id(("u1", "notes"), "plain")
    assert memory.backend.memories.vectors(user, [rid]) == {}


def test_langmem_values_become_searchable_memories(store: MemlaneStore, memory: Memory) -> None:
    value = {"kind": "Memory", "content": {"content": "User prefers green tea over coffee."}}
    store.put(("maya", "memories"), "m1", value)
    store.put(("maya", "memories"), "m2", {"content": "User works as a nurse."})
    assert store.get(("maya", "memories"), "m1").value == value
    summaries = {r.summary for r in memory.list(user_id="maya")}
    assert summaries == {"User prefers green tea over coffee.", "User works as a nurse."}
    assert memory.search("what does the user drink", user_id="maya")[0].memory.summary.startswith(
        "User prefers"
    )


def _backdate(memory: Memory, namespace: tuple[str, ...], key: str) -> None:
    user, rid = record_id(namespace, key)
    rec = memory.backend.memories.get(user, rid)
    assert rec is not None
    memory.backend.apply(
        WriteBatch(upserts=[Upsert(rec.model_copy(update={"expires_at": utcnow() - timedelta(minutes=1)}))])
    )


def test_omit_expired_and_refresh(store: MemlaneStore, memory: Memory) -> None:
    store.put(("u1", "ttl"), "gone", {"v": 1}, ttl=5)
    store.put(("u1", "ttl"), "live", {"v": 2}, ttl=5)
    store.put(("u1", "keep"), "k", {"v": 3})
    _backdate(memory, ("u1", "ttl"), "gone")
    assert (
        store.get(("u1", "ttl"), "gone", refresh_ttl=False) is not None
    )  # expired, unswept: shown by default
    assert store.ttl_config is not None
    store.ttl_config["omit_expired"] = True
    assert store.get(("u1", "ttl"), "gone", refresh_ttl=True) is None
    assert [i.key for i in store.search(("u1", "ttl"), refresh_ttl=True)] == ["live"]
    assert store.list_namespaces(prefix=("u1",)) == [("u1", "keep"), ("u1", "ttl")]
    _backdate(memory, ("u1", "ttl"), "live")
    assert ("u1", "ttl") not in store.list_namespaces(prefix=("u1",))
    user, rid = record_id(("u1", "ttl"), "gone")
    before = memory.backend.memories.get(user, rid)
    assert (
        before is not None and before.expires_at is not None and before.expires_at < utcnow()
    )  # not resurrected


def test_refresh_restarts_ttl_and_sweep_soft_deletes(store: MemlaneStore, memory: Memory) -> None:
    store.put(("u1", "ttl"), "a", {"v": 1}, ttl=5)
    store.put(("u1", "ttl"), "b", {"v": 2}, ttl=5)
    memory.put("A memlane memory with its own expiry.", user_id="u1", expires_at=utcnow() - timedelta(days=1))
    _backdate(memory, ("u1", "ttl"), "a")
    _backdate(memory, ("u1", "ttl"), "b")
    assert store.get(("u1", "ttl"), "b", refresh_ttl=True) is not None  # restarts b's TTL
    assert store.sweep_ttl() == 1
    assert store.get(("u1", "ttl"), "a") is None and store.get(("u1", "ttl"), "b") is not None
    user, rid = record_id(("u1", "ttl"), "a")
    assert memory.history(rid, user_id=user)[-1].reason == "ttl expired"
    swept_or_not = memory.list(user_id="u1", filters={"type": "semantic", "state": "active"})
    assert len(swept_or_not) == 2  # only store TTLs are swept (the other expired memory stays active)


def test_async_store_batches_concurrent_calls(memory: Memory) -> None:
    async def run() -> None:
        store = AsyncMemlaneStore(MemlaneStore(memory))
        await asyncio.gather(*(store.aput(("u1", "a"), f"k{i}", {"i": i}) for i in range(20)))
        got = await asyncio.gather(*(store.aget(("u1", "a"), f"k{i}") for i in range(20)))
        assert [g.value["i"] for g in got if g] == list(range(20))
        with pytest.raises(asyncio.InvalidStateError):
            store.get(("u1", "a"), "k1")  # sync calls may not block the store's own loop

    asyncio.run(run())


def test_index_config_needs_the_memory_embedder(memory: Memory, tmp_path: object) -> None:
    with pytest.raises(ValueError, match="memory.embedder"):
        MemlaneStore(memory, index={"dims": 8, "embed": lambda texts: [[0.0] * 8 for _ in texts]})
    embed = lambda texts: [[float(len(t)), 1.0] for t in texts]  # noqa: E731
    with MemlaneStore.open(
        f"{tmp_path}/own.db", index={"dims": 2, "embed": embed, "fields": ["text"]}
    ) as own:
        own.put(("u1",), "k", {"text": "abc", "other": "x"})
        assert own.search(("u1",), query="abc")[0].score == pytest.approx(1.0)
        assert LG in own.memory.list(user_id="u1")[0].metadata


def test_cross_user_reads_can_be_refused_and_values_are_json(memory: Memory) -> None:
    from datetime import UTC, datetime

    from langgraph.store.base import InvalidNamespaceError

    store = MemlaneStore(memory, cross_user=False)
    store.put(("maya", "a"), "k", {"at": datetime(2026, 1, 2, tzinfo=UTC)})
    assert store.get(("maya", "a"), "k").value == {
        "at": "2026-01-02T00:00:00Z"
    }  # as PostgresStore returns it
    assert store.list_namespaces(prefix=("maya",)) == [("maya", "a")]
    with pytest.raises(InvalidNamespaceError, match="cross_user"):
        store.search(())
    with pytest.raises(InvalidNamespaceError, match="cross_user"):
        store.list_namespaces()
