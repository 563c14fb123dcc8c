"""The context block (seed 000/002/004) and its delta header (seed 001 §1), over real stores.

The hash embedder keeps these fast; change-log rows come from real formation (``add_facts``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from memlane import Memory
from memlane.model.config import Settings
from memlane.model.errors import ValidationError
from memlane.providers.embed.hash import HashEmbedder
from memlane.retrieval.allowlist import PermissionDeniedError
from memlane.retrieval.tokens import estimate_tokens
from memlane.storage.base import Backend

U = "maya"


def open_mem(tmp_path: Path, **settings: Any) -> Memory:
    db = str(tmp_path / "m.db")
    return Memory(db, embedder=HashEmbedder(128), settings=Settings(db=db, **settings))


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    m = open_mem(tmp_path)
    yield m
    m.close()


def seed_user(mem: Memory, user: str = U) -> None:
    mem.put_many(
        [
            {"summary": "User's name is Maya.", "category": "Personal", "importance": 4},
            {"summary": "User's dog Luna is 4 years old.", "category": "Relationships"},
            {"summary": "User wants to run a marathon in October.", "category": "Goals"},
            {"summary": "User must renew the dog license on Friday.", "category": "Tasks"},
            {"summary": "User is allergic to peanuts.", "category": "Health", "importance": 5},
        ],
        user_id=user,
    )
    for day in range(1, 6):
        mem.put(
            f"On 2026-03-0{day} the user walked the dog Luna in the park.",
            user_id=user,
            type="episodic",
            category="Relationships",
            at=f"2026-03-0{day}T09:00:00Z",
        )
    mem.put(
        "Discussed the dog's vet visit and vaccination schedule.",
        user_id=user,
        type="session",
        category="Conversation_Summary",
        at="2026-03-02T14:00:00Z",
        tags=["vet", "dog"],
    )


def test_sections_come_semantic_first_then_up_to_three_episodic_then_sessions(mem: Memory) -> None:
    seed_user(mem)
    block = mem.context("how is the dog Luna doing?", user_id=U, at="2026-03-10T00:00:00Z")
    text = block.text
    assert (
        text.index("Known about the user:")
        < text.index("Recent events:")
        < text.index("Relevant earlier session summaries:")
    )
    assert 1 <= len(block.episodic) <= 3
    assert all(h.memory.type.value == "episodic" for h in block.episodic)
    assert [h.memory.type.value for h in block.sessions] == ["session"]
    assert "2026-03-02 14:00: Discussed the dog's vet visit" in text and "(topics: vet, dog)" in text
    assert "- 2026-03-05: [Relationships] On 2026-03-05 the user walked" in text
    assert all(h.memory.type.value in ("semantic", "insight") for h in block.semantic)
    shown = [ln for ln in text.splitlines() if ln.startswith("- ")]
    assert len(shown) == len(block.semantic) + len(block.episodic) + len(block.sessions)
    assert (
        block.tokens
        == estimate_tokens(text)
        <= block.budget_tokens
        == mem.settings.memory_context_budget_tokens
    )


def test_many_matching_episodes_do_not_crowd_out_semantic_memories(mem: Memory) -> None:
    mem.put_many(
        [
            {
                "summary": f"On day {i} the user played jazz records with friends.",
                "type": "episodic",
                "category": "Interests",
                "at": f"2026-03-{i:02d}T09:00:00Z",
            }
            for i in range(1, 29)
        ],
        user_id=U,
    )
    mem.put("User likes old maps.", user_id=U, category="Interests")
    block = mem.context("user played jazz records with friends", user_id=U, at="2026-03-30T00:00:00Z")
    assert "User likes old maps." in [h.memory.summary for h in block.semantic]
    assert len(block.episodic) == 3


class CountingEmbedder(HashEmbedder):
    def __init__(self) -> None:
        super().__init__(128)
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts.extend(texts)
        return super().embed(texts)


def test_the_query_is_embedded_once_per_block(tmp_path: Path) -> None:
    emb = CountingEmbedder()
    m = Memory(str(tmp_path / "c.db"), embedder=emb, settings=Settings(db=str(tmp_path / "c.db")))
    seed_user(m)
    emb.texts.clear()
    m.context("how is the dog Luna doing?", user_id=U, agent="supervisor")
    assert len(emb.texts) == 1
    m.close()


def test_context_mode_all_is_always_included_and_rag_needs_relevance(tmp_path: Path) -> None:
    m = open_mem(tmp_path, memory_context_topn=1)
    seed_user(m)
    block = m.context("must renew the dog license on Friday", user_id=U)
    cats = [h.memory.category for h in block.semantic]
    assert cats[0] == "Personal"  # `personal: all` in the default config: shown though unrelated
    assert [h.memory.summary for h in block.semantic[1:]] == ["User must renew the dog license on Friday."]
    assert block.semantic[0].breakdown.similarity == 0.0 or block.semantic[0].breakdown.similarity < 0.5
    m.close()


def test_rag_length_caps_items_and_sessions_can_be_switched_off(tmp_path: Path) -> None:
    cfg = tmp_path / "cats.yaml"
    cfg.write_text(
        "categories:\n  system:\n    - {name: tasks, context: rag, rag_length: 24}\n"
        "allowlists:\n  supervisor: [tasks, relationships, conversation_summary]\n"
    )
    m = open_mem(tmp_path, categories_file=str(cfg), context_session_memory_enabled=False)
    seed_user(m)
    block = m.context("dog license renewal", user_id=U)
    line = next(ln for ln in block.text.splitlines() if "[Tasks]" in ln)
    assert line.endswith("…") and len(line.split("] ", 1)[1]) <= 24
    assert block.sessions == [] and "session summaries" not in block.text
    m.close()


def test_budget_is_respected_and_semantic_has_priority(mem: Memory) -> None:
    seed_user(mem)
    full = mem.context("dog", user_id=U, budget_tokens=2000)
    assert full.dropped == 0 and full.episodic and full.sessions
    small = mem.context("dog", user_id=U, budget_tokens=30)
    assert 0 < small.tokens <= 30 and small.dropped > 0
    assert small.semantic and not small.episodic and not small.sessions
    assert small.text.startswith("Known about the user:")
    tiny = mem.context("dog", user_id=U, budget_tokens=1)
    assert (
        tiny.text == ""
        and tiny.tokens == 0
        and tiny.dropped == full.dropped + len(full.semantic) + len(full.episodic) + len(full.sessions)
    )


def test_empty_store_gives_an_empty_block(mem: Memory) -> None:
    block = mem.context("anything", user_id=U, thread_id="t1", since_rev=0)
    assert (block.text, block.tokens, block.rev, block.delta) == ("", 0, 0, [])


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"budget_tokens": -5}, "budget_tokens must be an integer from 1"),
        ({"budget_tokens": 0}, "budget_tokens"),
        ({"budget_tokens": "100"}, "budget_tokens"),
        ({"budget_tokens": True}, "budget_tokens"),
        ({"since_rev": -1}, "since_rev must be a revision number"),
        ({"since_rev": "3"}, "since_rev"),
        ({"agent": "nobody"}, "known agents: executor, planner, researcher, stylist, supervisor"),
    ],
)
def test_invalid_inputs_are_refused_with_actionable_messages(
    mem: Memory, kwargs: dict[str, Any], fragment: str
) -> None:
    with pytest.raises(ValidationError, match=fragment):
        mem.context("dog", user_id=U, **kwargs)
    with pytest.raises(ValidationError, match="query must be a non-empty string"):
        mem.context("  ", user_id=U)


def test_agent_allowlist_limits_every_section(mem: Memory) -> None:
    seed_user(mem)
    block = mem.context("dog Luna peanuts marathon license", user_id=U, agent="planner")
    cats = {h.memory.category for h in [*block.semantic, *block.episodic, *block.sessions]}
    assert cats and cats <= {"Goals", "Tasks", "Projects", "Procedural"}
    assert "peanuts" not in block.text and "Maya" not in block.text
    with pytest.raises(PermissionDeniedError):
        mem.context("dog", user_id=U, agent="intruder")


def facts(m: Memory, thread: str, *items: tuple[str, str], user: str = U, **kw: Any) -> None:
    m.add_facts(
        [{"summary": s, "category": c, "importance": 2, **kw} for s, c in items],
        user_id=user,
        thread_id=thread,
        wait=True,
    )


def test_delta_header_lists_changes_since_the_revision_the_thread_saw(mem: Memory) -> None:
    first = mem.context("name", user_id=U, thread_id="t1")
    assert first.rev == 0 and "Memory updates" not in first.text
    facts(mem, "t1", ("User prefers to be called Ana.", "Personal"))
    facts(mem, "t1", ("User wants to ship v1 by September.", "Goals"))
    facts(mem, "t1", ("User is lactose intolerant.", "Health"))
    facts(mem, "t1", ("User plays the cello on Sundays.", "Interests"))
    block = mem.context("name", user_id=U, thread_id="t1", since_rev=first.rev)
    assert block.rev == 4 == mem.backend.changes.thread_revision(U, "t1")
    lines = block.text.splitlines()
    assert lines[0] == "Memory updates since rev 0:"
    bullets = lines[1 : 1 + len(block.delta)]
    assert len(bullets) == 3  # at most 3, the newest first
    assert bullets[0] == "- +created: [Interests] User plays the cello on Sundays. (imp=2)"
    assert [c.rev for c in block.delta] == [4, 3, 2]
    assert lines[4] == "Known about the user:"
    again = mem.context("name", user_id=U, thread_id="t1", since_rev=block.rev)
    assert "Memory updates" not in again.text and again.delta == []
    assert "Memory updates" not in mem.context("name", user_id=U, thread_id="t1").text  # no since_rev
    other = mem.context("name", user_id=U, thread_id="t2", since_rev=0)
    assert other.rev == 0 and other.delta == []  # another thread's changes are its own


def test_delta_shows_updates_and_merges_once_per_memory(tmp_path: Path) -> None:
    with open_mem(
        tmp_path, memory_consent_fields=[]
    ) as mem:  # city changes apply at once (see test_consent.py)
        facts(mem, "t1", ("User lives in Lisbon.", "Personal"), key="profile:residence:city")
        facts(mem, "t1", ("User lives in Porto.", "Personal"), key="profile:residence:city")
        block = mem.context("city", user_id=U, thread_id="t1", since_rev=1)
        assert block.text.splitlines()[:2] == [
            "Memory updates since rev 1:",
            "- ↑updated: [Personal] User lives in Porto.",
        ]
        both = mem.context("city", user_id=U, thread_id="t1", since_rev=0)
        assert len(both.delta) == 1  # created then updated: the latest event of that memory
        facts(mem, "t1", ("User plays the cello.", "Interests"))
        facts(mem, "t1", ("User lives in Braga.", "Personal"), key="profile:residence:city")
        order = mem.context("city", user_id=U, thread_id="t1", since_rev=0)
        assert [c.rev for c in order.delta] == [4, 3]  # newest first, one bullet per memory
        facts(mem, "t1", ("User lives in Braga now.", "Personal"))
        merged = mem.context("city", user_id=U, thread_id="t1", since_rev=4)
        assert merged.delta and merged.delta[0].event == "merged"
        assert merged.text.splitlines()[1].startswith("- ↔merged: [Personal] User lives in Braga")


def test_delta_respects_the_agent_allowlist_and_the_budget(mem: Memory) -> None:
    facts(
        mem, "t1", ("User is lactose intolerant.", "Health"), ("User wants to ship v1 by September.", "Goals")
    )
    planner = mem.context("plans", user_id=U, thread_id="t1", since_rev=0, agent="planner")
    assert [ln for ln in planner.text.splitlines() if ln.startswith("- +")] == [
        "- +created: [Goals] User wants to ship v1 by September. (imp=2)"
    ]
    assert "lactose" not in planner.text
    tight = mem.context("plans", user_id=U, thread_id="t1", since_rev=0, budget_tokens=30)
    assert (
        tight.tokens <= 30 and tight.text.startswith("Memory updates since rev 0:") and len(tight.delta) == 1
    )


def test_users_are_isolated_in_the_block_and_the_delta(backend: Backend) -> None:
    emb = HashEmbedder(backend_dims(backend))
    backend.set_meta("embedder", emb.identity)  # the fixture's empty store, made for this embedder
    m = Memory(backend=backend, embedder=emb)
    seed_user(m, "maya")
    facts(m, "t1", ("User's secret plan is to move to Oslo.", "Goals"), user="maya")
    m.put("User likes tea.", user_id="lena", category="Preferences")
    lena = m.context("dog Luna secret plan Oslo peanuts", user_id="lena", thread_id="t1", since_rev=0)
    assert lena.rev == 0 and lena.delta == []
    assert {h.memory.user_id for h in [*lena.semantic, *lena.episodic, *lena.sessions]} == {"lena"}
    assert "Luna" not in lena.text and "Oslo" not in lena.text
    maya = m.context("secret plan", user_id="maya", thread_id="t1", since_rev=0)
    assert maya.rev == 1 and "Oslo" in maya.text and "tea" not in maya.text


def backend_dims(backend: Backend) -> int:
    return int(backend.get_meta("embed_dims") or 8)
