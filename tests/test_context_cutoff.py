"""The context block's relevance cutoff (``MEMORY_CONTEXT_MIN_RELEVANCE``), over a real SQLite store and
the bundled local embedder: what the block (and so the chat proxy) leaves out, what always stays."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from memlane import Memory
from memlane.model.config import Settings
from memlane.providers.embed import Embedder, get_embedder
from memlane.retrieval.context import MIN_RELEVANCE, min_relevance
from tests.chat_proxy_helpers import OWUI, sdk, serve
from tests.scripted_upstream import MODEL, ScriptedUpstream

U = "maya"
QUESTION = "How old is my dog Luna?"
RELEVANT = "User's dog Luna is 4 years old."
UNRELATED = "User prefers window seats on long flights."


@pytest.fixture(scope="module")
def local() -> Embedder:
    return get_embedder("local")


def open_mem(tmp_path: Path, embedder: Embedder, **settings: Any) -> Memory:
    db = str(tmp_path / "m.db")
    mem = Memory(db, embedder=embedder, settings=Settings(db=db, **settings))
    mem.put(RELEVANT, user_id=U, category="Relationships")
    mem.put(UNRELATED, user_id=U, category="Travel")
    return mem


@pytest.fixture
def mem(tmp_path: Path, local: Embedder) -> Iterator[Memory]:
    m = open_mem(tmp_path, local)
    yield m
    m.close()


def shown(mem: Memory, query: str = QUESTION) -> list[str]:
    block = mem.context(query, user_id=U)
    return [h.memory.summary for h in block.semantic]


def test_the_default_keeps_the_relevant_memory_and_leaves_out_the_unrelated_one(mem: Memory) -> None:
    assert mem.settings.memory_context_min_relevance is None
    assert min_relevance(mem.settings, "local") == MIN_RELEVANCE["local"] > 0
    block = mem.context(QUESTION, user_id=U)
    assert [h.memory.summary for h in block.semantic] == [RELEVANT]
    assert UNRELATED not in block.text


def test_cutoff_zero_keeps_the_old_block(tmp_path: Path, local: Embedder) -> None:
    m = open_mem(tmp_path, local, memory_context_min_relevance=0.0)
    try:
        assert shown(m) == [RELEVANT, UNRELATED]
    finally:
        m.close()


def test_a_pinned_memory_stays_whatever_its_relevance(mem: Memory) -> None:
    rec = mem.put("User's favourite colour is teal.", user_id=U, category="Preferences", pinned=True)
    assert rec.pinned
    got = shown(mem)
    assert RELEVANT in got and rec.summary in got and UNRELATED not in got


def test_a_context_mode_all_category_stays_whatever_its_relevance(mem: Memory) -> None:
    mem.put("User's name is Maya.", user_id=U, category="Personal")  # `personal` is context: all
    got = shown(mem)
    assert "User's name is Maya." in got and UNRELATED not in got


def test_an_embedder_with_no_measured_cutoff_has_none(tmp_path: Path) -> None:
    assert min_relevance(Settings(), "some-hosted-embedder") == 0.0
    assert min_relevance(Settings(memory_context_min_relevance=0.4), "some-hosted-embedder") == 0.4


@pytest.mark.parametrize("value", [-0.1, 1.5, float("nan")])
def test_a_cutoff_outside_zero_to_one_is_refused(value: float) -> None:
    with pytest.raises(ValidationError, match="MEMORY_CONTEXT_MIN_RELEVANCE must be a relevance from 0 to 1"):
        Settings(memory_context_min_relevance=value)


def test_a_cutoff_that_is_not_a_number_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_CONTEXT_MIN_RELEVANCE", "high")
    with pytest.raises(ValidationError, match="MEMORY_CONTEXT_MIN_RELEVANCE"):
        Settings()
    monkeypatch.setenv("MEMORY_CONTEXT_MIN_RELEVANCE", "0.3")
    assert Settings().memory_context_min_relevance == 0.3


def test_the_chat_proxy_injects_only_what_passes_the_cutoff(
    tmp_path: Path, upstream: tuple[ScriptedUpstream, str]
) -> None:
    fake, up_url = upstream
    mem, running = serve(tmp_path, up_url, local=True)
    mem.put(RELEVANT, user_id=U, category="Relationships")
    mem.put(UNRELATED, user_id=U, category="Travel")
    with running as url:
        client = sdk(url, **OWUI)
        client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": QUESTION}])
        system = fake.requests[-1]["messages"][0]
        assert system["role"] == "system"
        assert RELEVANT in system["content"] and UNRELATED not in system["content"]
    mem.close()
