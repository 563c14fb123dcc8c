"""A recall-intent question widens the context block's episodic part (seed 002: episodic top-k raised on
recall intent), within the budget the semantic part leaves; any other question keeps at most three.

Real parts: SQLite files, the bundled all-MiniLM-L6-v2 embedder, the offline rules LLM."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memlane import Memory
from memlane.model.config import Settings
from memlane.providers.embed import get_embedder
from memlane.providers.llm.rules import RulesLLM
from memlane.retrieval.context import EPISODIC_MAX

U = "maya"
NOW = "2026-03-20T12:00:00Z"
TRIP = [
    "planned the train route from Lisbon to Porto for the trip",
    "booked a guesthouse in Porto for the trip",
    "compared ferry times to the Berlengas island for the trip",
    "made a packing list for the Portugal trip",
    "chose a day trip to Sintra during the Portugal trip",
    "budgeted 900 euros for the Portugal trip",
    "picked restaurants in Porto to try on the trip",
    "planned a wine tasting in the Douro valley for the trip",
    "decided to rent a car for the Algarve part of the trip",
    "looked up surf lessons in Peniche for the trip",
]


def open_mem(tmp_path: Path, **settings: Any) -> Memory:
    db = str(tmp_path / "m.db")
    return Memory(db, embedder=get_embedder("local"), llm=RulesLLM(), settings=Settings(db=db, **settings))


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    m = open_mem(tmp_path)
    seed(m)
    yield m
    m.close()


def seed(mem: Memory) -> None:
    mem.put_many(
        [
            {"summary": "User's name is Maya.", "category": "Personal", "importance": 4},
            {"summary": "User is travelling to Portugal in May.", "category": "Travel"},
            {"summary": "User is allergic to shellfish.", "category": "Health", "importance": 5},
        ],
        user_id=U,
    )
    for n, what in enumerate(TRIP, start=1):
        day = f"2026-03-{n:02d}"
        mem.put(
            f"On {day} the user and the assistant {what}.",
            user_id=U,
            type="episodic",
            category="Travel",
            at=f"{day}T09:00:00Z",
        )


@pytest.mark.parametrize(
    "question",
    ["what did we talk about for the trip last week?", "remember what I told you about the trip?"],
)
def test_a_recall_question_lists_more_than_three_episodes(mem: Memory, question: str) -> None:
    block = mem.context(question, user_id=U, at=NOW)
    wanted = Settings().memory_context_recall_episodic
    assert EPISODIC_MAX < len(block.episodic) <= wanted, block.text
    assert block.semantic, block.text  # the semantic part is still there, first
    assert block.text.index("Known about the user:") < block.text.index("Recent events:")
    assert all(h.memory.type.value == "episodic" for h in block.episodic)


def test_a_plain_question_lists_at_most_three_episodes(mem: Memory) -> None:
    block = mem.context("which trains go from Lisbon to Porto on the trip?", user_id=U, at=NOW)
    assert 1 <= len(block.episodic) <= EPISODIC_MAX, block.text


def test_the_wider_part_is_a_setting(tmp_path: Path) -> None:
    with open_mem(tmp_path, memory_context_recall_episodic=5) as m:
        seed(m)
        block = m.context("remember what I told you about the trip?", user_id=U, at=NOW)
        assert len(block.episodic) == 5, block.text
    with pytest.raises(ValueError, match="memory_context_recall_episodic|MEMORY_CONTEXT_RECALL_EPISODIC"):
        Settings(memory_context_recall_episodic=2)


def test_the_episodes_take_only_the_budget_the_semantic_part_leaves(mem: Memory) -> None:
    full = mem.context("remember what I told you about the trip?", user_id=U, at=NOW)
    tight = mem.context(
        "remember what I told you about the trip?", user_id=U, at=NOW, budget_tokens=full.tokens // 2
    )
    assert [h.memory.id for h in tight.semantic] == [h.memory.id for h in full.semantic]
    assert len(tight.episodic) < len(full.episodic) and tight.dropped > 0
    assert tight.tokens <= full.tokens // 2
