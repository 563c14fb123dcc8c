"""Neighbours are scoped by category before a merge (seed 000), in the form that keeps paraphrases
together: within a category a neighbour close enough (the embedder's auto band) merges on similarity
alone; across categories the judge must call it the same fact first. So "User's husband works at
Google." (Relationships) is not merged into "User works at Google." (Work) by closeness, while "User's
dog is called Biscuit." still joins "User has a dog named Biscuit." filed under another category.

Real parts: SQLite files, the bundled local embedder, the offline rules judge."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlane.providers.llm.rules import RulesLLM
from tests.formation_helpers import cosine, local_embedder, open_memory

U = "dana"


def stored_after(tmp_path: Path, first: tuple[str, str], second: tuple[str, str]) -> list[str]:
    with open_memory(str(tmp_path / "m.db"), RulesLLM(), worker=False) as mem:
        for (summary, category), at in ((first, "2026-01-01T09:00:00Z"), (second, "2026-02-01T09:00:00Z")):
            mem.add_facts([{"summary": summary, "category": category}], user_id=U, at=at, wait=True)
        return sorted(m.summary for m in mem.list(user_id=U))


def test_a_close_fact_of_another_category_is_not_merged_by_closeness(tmp_path: Path) -> None:
    mine, his = "User works at Google.", "User's husband works at Google."
    assert cosine(local_embedder(), mine, his) >= 0.78  # in the local embedder's auto-merge band
    assert stored_after(tmp_path, (mine, "Work"), (his, "Relationships")) == sorted([mine, his])


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (("User runs a bakery in Leeds.", "Work"), ("User owns a bakery in Leeds.", "Work")),
        (("User has a dog named Biscuit.", "Personal"), ("User's dog is called Biscuit.", "Relationships")),
    ],
    ids=["same category, by closeness", "another category, confirmed by the judge"],
)
def test_paraphrases_still_merge(tmp_path: Path, first: tuple[str, str], second: tuple[str, str]) -> None:
    assert len(stored_after(tmp_path, first, second)) == 1
