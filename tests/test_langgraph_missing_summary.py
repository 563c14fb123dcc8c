"""An indexed put whose value has no text to embed fails fast: a ``MissingSummaryError`` naming the field
to add, and nothing stored (the batch's other puts included). ``index=False`` still stores it.

Real parts: SQLite file, the bundled all-MiniLM-L6-v2 embedder, the rules LLM.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from langgraph.store.base import PutOp

from memlane import Memory
from memlane.integrations.langgraph import AsyncMemlaneStore, MemlaneStore
from memlane.model.errors import MissingSummaryError, ValidationError
from memlane.providers.embed import get_embedder

MAYA = ("maya", "semantic")
NO_TEXT = {"category": "Personal", "importance": 4, "tags": ["home"]}


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    with Memory(str(tmp_path / "m.db"), embedder=get_embedder("local"), llm="rules") as m:
        yield m


@pytest.fixture
def store(memory: Memory) -> MemlaneStore:
    return MemlaneStore(memory, index={"dims": 384, "fields": ["summary"]})


def unchanged(memory: Memory) -> bool:
    return memory.list(user_id="maya", include_inactive=True) == [] and memory.jobs.list(user_id="maya") == []


def test_an_indexed_put_without_a_summary_names_the_field_and_stores_nothing(
    store: MemlaneStore, memory: Memory
) -> None:
    with pytest.raises(MissingSummaryError, match="add a 'summary' field") as raised:
        store.put(MAYA, "home", NO_TEXT)
    assert raised.value.field == "summary"
    assert isinstance(raised.value, ValidationError) and isinstance(raised.value, ValueError)
    assert "index=False" in str(raised.value)
    assert store.get(MAYA, "home") is None and unchanged(memory)


def test_the_put_s_own_index_fields_are_the_ones_named(store: MemlaneStore, memory: Memory) -> None:
    with pytest.raises(MissingSummaryError, match="add a 'note' field") as raised:
        store.put(MAYA, "home", {**NO_TEXT, "summary": "   "}, index=["note"])
    assert raised.value.field == "note" and unchanged(memory)


def test_one_bad_put_leaves_the_whole_batch_unstored(store: MemlaneStore, memory: Memory) -> None:
    good = PutOp(MAYA, "city", {"summary": "Maya lives in Lisbon."})
    with pytest.raises(MissingSummaryError):
        store.batch([good, PutOp(MAYA, "home", NO_TEXT)])
    assert store.get(MAYA, "city") is None and unchanged(memory)


def test_aput_fails_the_same_way(store: MemlaneStore, memory: Memory) -> None:
    async def run() -> None:
        with pytest.raises(MissingSummaryError, match="'summary'"):
            await store.aput(MAYA, "home", NO_TEXT)
        with pytest.raises(MissingSummaryError, match="'summary'"):
            await AsyncMemlaneStore(store).aput(MAYA, "home", NO_TEXT)  # the batched async store

    asyncio.run(run())
    assert unchanged(memory)


def test_a_summary_or_index_false_is_stored(store: MemlaneStore, memory: Memory) -> None:
    store.put(MAYA, "sys", NO_TEXT, index=False)  # a non-indexed system record
    store.put(MAYA, "city", {"summary": "Maya lives in Lisbon.", "category": "Personal"})
    store.put(MAYA, "pet", {"text": "Maya has a cat named Miso."}, index=["summary"])  # text is a summary
    assert {i.key for i in store.search(MAYA, query="where does Maya live")} >= {"city", "pet"}
    assert store.get(MAYA, "sys") is not None and len(memory.list(user_id="maya")) == 3
