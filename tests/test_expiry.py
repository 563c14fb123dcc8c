"""A memory past its ``expires_at`` leaves every read of current memories (list, count, both search
channels, the context block), in the database query, on SQLite (vector index and in-memory vectors)
and PostgreSQL alike; ``include_inactive`` still shows it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest

from memlane import Memory
from memlane.model.filters import live
from memlane.model.record import utcnow
from memlane.providers.embed.hash import HashEmbedder
from memlane.storage.base import Backend

U = "maya"


@pytest.fixture
def mem(backend: Backend) -> Iterator[Memory]:
    emb = HashEmbedder(int(backend.get_meta("embed_dims") or 8))
    backend.set_meta("embedder", emb.identity)  # the fixture's empty store, made for this embedder
    yield Memory(backend=backend, embedder=emb)


@pytest.fixture
def ids(mem: Memory) -> dict[str, str]:
    now = utcnow()
    gone = mem.put(
        "User's gym pass code is 4417.", user_id=U, category="Personal", expires_at=now - timedelta(minutes=1)
    )
    later = mem.put(
        "User's parking pass code is 9921.",
        user_id=U,
        category="Personal",
        expires_at=now + timedelta(days=1),
    )
    kept = mem.put("User's locker code is 1234.", user_id=U, category="Personal")
    return {"expired": gone.id, "later": later.id, "kept": kept.id}


def test_expired_memories_leave_list_count_and_search(mem: Memory, ids: dict[str, str]) -> None:
    current = {ids["later"], ids["kept"]}
    assert {r.id for r in mem.list(user_id=U)} == current
    assert mem.backend.memories.count(U, live()) == 2
    hits = mem.search("gym pass code 4417", user_id=U, limit=10)
    assert {h.memory.id for h in hits} == current
    assert {r.id for r in mem.list(user_id=U, include_inactive=True)} == set(ids.values())
    assert ids["expired"] in {
        h.memory.id for h in mem.search("gym pass code", user_id=U, include_inactive=True)
    }


def test_expired_memories_leave_both_search_channels(mem: Memory, ids: dict[str, str]) -> None:
    vector = mem.embedder.embed_one(mem.get(ids["expired"], user_id=U).summary)
    assert ids["expired"] not in {
        s.record.id for s in mem.backend.memories.vector_search(U, vector, live(), limit=10)
    }
    assert ids["expired"] not in {i for i, _ in mem.backend.memories.vector_ids(U, vector, live(), limit=10)}
    assert ids["expired"] not in {
        s.record.id for s in mem.backend.memories.keyword_search(U, "gym 4417", live(), limit=10)
    }
    assert ids["expired"] in {
        s.record.id for s in mem.backend.memories.keyword_search(U, "gym 4417", [], limit=10)
    }


def test_expired_memories_stay_out_of_the_context_block(mem: Memory, ids: dict[str, str]) -> None:
    block = mem.context("what is the gym pass code?", user_id=U)
    assert "4417" not in block.text and "9921" in block.text
    assert ids["expired"] not in {h.memory.id for h in block.semantic}


def test_a_fact_told_again_after_expiry_is_a_new_live_memory(mem: Memory, ids: dict[str, str]) -> None:
    mem.add_facts(
        [{"summary": "User's gym pass code is 4417.", "category": "Personal"}], user_id=U, wait=True
    )
    found = [r for r in mem.list(user_id=U) if "4417" in r.summary]
    assert len(found) == 1 and found[0].id != ids["expired"] and found[0].expires_at is None
