"""Dedup stays within a category: a candidate is never merged into a neighbour of another category,
while a correction still replaces what it corrects across categories, and ``Other`` (no category in
particular) merges as before.

Real parts: SQLite file, the bundled all-MiniLM-L6-v2 embedder, the rules LLM.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memlane import Memory
from memlane.model.enums import MemoryState
from memlane.providers.embed import get_embedder

U = "maya"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with Memory(str(tmp_path / "m.db"), embedder=get_embedder("local"), llm="rules") as m:
        yield m


def add(mem: Memory, summary: str, category: str, minutes: int) -> None:
    fact = {"summary": summary, "category": category}
    mem.add_facts([fact], user_id=U, at=T0 + timedelta(minutes=minutes), wait=True)


@pytest.mark.parametrize(
    "second",
    ["User saves 500 euros a month.", "User saves 500 euros every month."],  # same text, a near paraphrase
)
def test_near_identical_texts_of_different_categories_both_stay(mem: Memory, second: str) -> None:
    add(mem, "User saves 500 euros a month.", "Finance", 0)
    add(mem, second, "Goals", 1)
    stored = {(r.category, r.summary) for r in mem.list(user_id=U)}
    assert stored == {("Finance", "User saves 500 euros a month."), ("Goals", second)}


def test_the_same_texts_in_one_category_still_merge(mem: Memory) -> None:
    add(mem, "User saves 500 euros a month.", "Finance", 0)
    add(mem, "User saves 500 euros a month.", "finance", 1)
    add(mem, "User saves 500 euros a month.", "Other", 2)  # Other: not categorised, no other category
    [rec] = mem.list(user_id=U)
    assert rec.category == "Finance" and rec.access_count == 2


def test_a_correction_replaces_its_fact_across_categories(mem: Memory) -> None:
    add(mem, "User lives in Lisbon.", "Personal", 0)
    add(mem, "User moved to Porto.", "Travel", 60)
    [live] = mem.list(user_id=U)
    assert live.summary == "User moved to Porto."
    old = [r for r in mem.list(user_id=U, include_inactive=True) if r.summary == "User lives in Lisbon."]
    assert [r.state for r in old] == [MemoryState.SUPERSEDED]
