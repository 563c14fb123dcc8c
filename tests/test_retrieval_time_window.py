"""A question that names a period ranks what happened in it above a closer wording just outside it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memlane import Memory
from memlane.model.config import Settings
from tests.formation_helpers import local_embedder


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    db = str(tmp_path / "time.db")
    m = Memory(db, embedder=local_embedder(), settings=Settings(db=db))
    yield m
    m.close()


@pytest.mark.parametrize(
    ("inside", "outside", "question", "asked"),
    [
        (
            ("User decided to switch their energy supplier to Octopus.", "2026-03-12T10:00:00Z"),
            ("We decided to repaint the garden shed green.", "2026-04-02T18:00:00Z"),
            "What did I decide last month?",
            "2026-04-03T09:00:00Z",
        ),
        (
            ("User decided to move their savings into a cash ISA.", "2026-03-20T10:00:00Z"),
            ("We decided to get a puppy!", "2026-04-01T18:00:00Z"),
            "what did we decide in March?",
            "2026-04-03T09:00:00Z",
        ),
        (
            ("User chose a standing desk from IKEA.", "2026-04-08T10:00:00Z"),
            ("User chose the blue one.", "2026-04-13T08:00:00Z"),
            "what did I choose last week?",
            "2026-04-15T12:00:00Z",
        ),
    ],
)
def test_a_decision_in_the_named_period_outranks_one_just_after_it(
    mem: Memory, inside: tuple[str, str], outside: tuple[str, str], question: str, asked: str
) -> None:
    for summary, at in (inside, outside):
        mem.put(summary, user_id="u", type="episodic", at=at)
    hits = mem.search(question, user_id="u", at=asked, limit=2)
    assert [h.memory.summary for h in hits] == [inside[0], outside[0]]
