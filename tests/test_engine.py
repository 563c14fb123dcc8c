"""The engine API over a real SQLite file (hash embedder for speed; the local model has its own tests)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memlane import AsyncMemory, Memory
from memlane.model.config import Settings
from memlane.model.enums import HistoryEvent, MemoryState
from memlane.model.errors import DimensionMismatchError, FilterError, NotFoundError, ValidationError
from memlane.providers.embed.hash import HashEmbedder


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    m = Memory(
        str(tmp_path / "m.db"), embedder=HashEmbedder(64), settings=Settings(db=str(tmp_path / "m.db"))
    )
    yield m
    m.close()


def snapshot(mem: Memory, user: str = "maya") -> list[dict[str, Any]]:
    return list(mem.export_user(user))


def test_put_with_key_is_idempotent_and_updates_in_place(mem: Memory) -> None:
    a = mem.put("User lives in Lisbon.", user_id="maya", key="profile:residence:city")
    b = mem.put("User lives in Lisbon.", user_id="maya", key="profile:residence:city")
    assert a.id == b.id and len(mem.list(user_id="maya")) == 1
    assert [h.event for h in mem.history(a.id, user_id="maya")] == [HistoryEvent.ADD]
    c = mem.put("User lives in Porto.", user_id="maya", key="profile:residence:city")
    assert c.id == a.id and mem.get(a.id, user_id="maya").summary == "User lives in Porto."
    hist = mem.history(a.id, user_id="maya")
    assert [h.event for h in hist] == [HistoryEvent.ADD, HistoryEvent.UPDATE]
    assert hist[1].old_value and hist[1].old_value["summary"] == "User lives in Lisbon."
    assert mem.search("Porto", user_id="maya")[0].memory.summary == "User lives in Porto."
    other = mem.put("User lives in Lisbon.", user_id="lena", key="profile:residence:city")
    assert other.id != a.id


def test_search_returns_scores_with_breakdown_and_respects_filters(mem: Memory) -> None:
    mem.put("User's dog Luna is 4 years old.", user_id="maya", category="Personal", importance=4)
    mem.put("User saves 200 euros a month.", user_id="maya", category="Finance", pinned=True)
    mem.put("User's dog Rex is 2 years old.", user_id="lena", category="Personal")
    hits = mem.search("how old is the dog Luna", user_id="maya")
    assert hits[0].memory.summary.startswith("User's dog Luna")
    b = hits[0].breakdown
    assert b.final == pytest.approx(hits[0].score)
    assert b.final == pytest.approx(
        0.55 * b.similarity + 0.20 * b.importance + 0.15 * b.recency + 0.50 * b.pinned
    )
    assert all(h.memory.user_id == "maya" for h in hits)
    fin = mem.search("dog", user_id="maya", filters={"category": "Finance"})
    assert [h.memory.category for h in fin] == ["Finance"]
    assert mem.search("dog", user_id="maya", threshold=0.99) == []
    assert len(mem.search("dog", user_id="maya", limit=1, offset=1)) == 1


def test_delete_restore_purge_lifecycle(mem: Memory) -> None:
    r = mem.put("User's passport expires in May.", user_id="maya")
    mem.delete(r.id, user_id="maya")
    assert mem.search("passport", user_id="maya") == []
    assert mem.list(user_id="maya") == []
    assert mem.list(user_id="maya", include_inactive=True)[0].state is MemoryState.SOFT_DELETED
    mem.restore(r.id, user_id="maya")
    assert mem.search("passport", user_id="maya")[0].memory.id == r.id
    with pytest.raises(ValidationError, match="cannot restore"):
        mem.restore(r.id, user_id="maya")
    mem.purge(r.id, user_id="maya")
    gone = mem.get(r.id, user_id="maya")
    assert gone.state is MemoryState.PURGED and "passport" not in gone.summary
    events = [h.event for h in mem.history(r.id, user_id="maya")]
    assert events == [HistoryEvent.ADD, HistoryEvent.DELETE, HistoryEvent.RESTORE, HistoryEvent.PURGE]


def test_update_reembeds_only_when_the_summary_changes(mem: Memory) -> None:
    r = mem.put("User likes tea.", user_id="maya")
    calls: list[int] = []
    inner_embed = mem.embedder.embed
    mem.embedder.embed = lambda texts: calls.append(len(texts)) or inner_embed(texts)  # type: ignore[method-assign]
    mem.update(r.id, user_id="maya", importance=5)
    assert calls == []
    mem.update(r.id, user_id="maya", summary="User likes green tea.")
    assert calls == [1]
    assert mem.search("green tea", user_id="maya")[0].memory.summary == "User likes green tea."


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda m: m.put("   ", user_id="maya"), ValidationError),
        (lambda m: m.put("x" * 5000, user_id="maya"), ValidationError),
        (lambda m: m.put("User likes tea.", user_id="maya", type="diary"), ValidationError),
        (lambda m: m.put("User likes tea.", user_id="bad user!"), ValidationError),
        (lambda m: m.put("User likes tea.", user_id="", importance=9), ValidationError),
        (lambda m: m.put("User likes tea.", user_id="maya", colour="red"), ValidationError),
        (lambda m: m.put_many([{"summary": "ok"}, {"summary": ""}], user_id="maya"), ValidationError),
        (lambda m: m.search("tea", user_id="maya", filters={"colour": "red"}), FilterError),
        (lambda m: m.search("", user_id="maya"), ValidationError),
        (lambda m: m.list(user_id="maya", filters={"importance": {"$regex": 1}}), FilterError),
        (lambda m: m.get("nope", user_id="maya"), NotFoundError),
        (lambda m: m.update("nope", user_id="maya", summary="x"), NotFoundError),
        (lambda m: m.delete("nope", user_id="maya"), NotFoundError),
    ],
)
def test_bad_input_raises_a_typed_error_and_changes_nothing(mem: Memory, call: Any, error: type) -> None:
    mem.put("User likes tea.", user_id="maya", key="pref:tea")
    before = snapshot(mem)
    with pytest.raises(error) as info:
        call(mem)
    assert str(info.value)  # an actionable message, not an empty one
    assert snapshot(mem) == before


def test_a_store_refuses_an_embedder_of_another_size(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    Memory(path, embedder=HashEmbedder(64)).close()
    with pytest.raises(DimensionMismatchError, match=r"64.*128|128.*64"):
        Memory(path, embedder=HashEmbedder(128))


def test_export_then_import_into_a_new_store(mem: Memory, tmp_path: Path) -> None:
    a = mem.put("User lives in Lisbon.", user_id="maya", key="profile:residence:city")
    mem.put("User lives in Porto.", user_id="maya", key="profile:residence:city")
    mem.put("User likes jazz.", user_id="maya", tags=["music"])
    rows = snapshot(mem)
    other = Memory(str(tmp_path / "copy.db"), embedder=HashEmbedder(64))
    assert other.import_rows(rows) == 2
    assert snapshot(other) == rows
    assert other.search("Porto", user_id="maya")[0].memory.id == a.id
    before = snapshot(other)  # the search counted a read of what it returned
    with pytest.raises(ValidationError, match="row 1"):
        other.import_rows([{"kind": "memory", "id": "x", "user_id": "bad user!", "summary": "s"}])
    assert snapshot(other) == before


def test_delete_user_leaves_other_users_alone(mem: Memory) -> None:
    mem.put("User likes tea.", user_id="maya")
    mem.put("User likes tea.", user_id="lena")
    assert mem.delete_user("maya") == 1
    assert snapshot(mem) == [] and len(snapshot(mem, "lena")) == 2


def test_async_memory_wraps_the_same_engine(mem: Memory) -> None:
    amem = AsyncMemory(memory=mem)

    async def run() -> list[str]:
        r = await amem.put("User plays chess.", user_id="maya")
        hits = await amem.search("chess", user_id="maya")
        assert (await amem.get(r.id, user_id="maya")).summary == "User plays chess."
        await amem.add_facts([{"summary": "User lives in Lisbon."}], user_id="maya", wait=True)
        block = await amem.context("where does the user live?", user_id="maya")
        assert "Lisbon" in block.text
        return [h.memory.summary for h in hits]

    assert asyncio.run(run()) == ["User plays chess."]


def test_settings_read_the_seeds_knobs_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_RERANK_WEIGHTS", "0.6,0.2,0.1,0.1")
    monkeypatch.setenv("MEMLANE_CATEGORIES", "Personal,Work")
    monkeypatch.setenv("SEMANTIC_AUTO_UPDATE", "0.93")
    monkeypatch.setenv("MEMORY_SEM_LOW", "0.7")  # seed 002's name for the same knob
    monkeypatch.setenv("MEMORY_NEIGHBORS_K", "7")
    s = Settings()
    assert s.memory_rerank_weights == {"similarity": 0.6, "importance": 0.2, "recency": 0.1, "pinned": 0.1}
    assert s.categories == ["Personal", "Work"]
    assert (s.semantic_auto_update, s.semantic_check_low, s.memory_neighbors_k) == (0.93, 0.7, 7)
