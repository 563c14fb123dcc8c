"""The writing-constraint checks (seed 001 §9) that benchmarks/writing_format.py counts."""

from __future__ import annotations

import pytest

from memlane.model.enums import MemoryType
from memlane.model.writing import problems, sentences

SEM, EPI = MemoryType.SEMANTIC, MemoryType.EPISODIC


@pytest.mark.parametrize(("summary", "mtype", "expected"), [
    ("User's dog Luna is 4 years old.", SEM, []),
    ("User moved to Lyon in 2024. User works at a bakery.", SEM, []),
    ("User decided to sell the motorbike.", EPI, []),
    ("User went to Lisbon with Ana.", EPI, []),
    ("   ", SEM, ["empty"]),
    ("User " + "x" * 300 + ".", SEM, ["too_long"]),
    ("User adopted a cat. The cat is Miso. Miso is two.", SEM, ["too_many_sentences"]),
    ("I live in Oslo.", SEM, ["first_or_second_person"]),
    ("User likes how you explained it.", SEM, ["first_or_second_person"]),
    ("User's sister says she loves Paris.", SEM, ["pronoun"]),
    ("User prefers aisle seats when they fly.", SEM, ["pronoun"]),
    ("User is planning a trip to Peru.", EPI, ["not_past_tense"]),
])
def test_problems(summary: str, mtype: MemoryType, expected: list[str]) -> None:
    assert problems(summary, mtype) == expected


def test_sentences_split_at_ends_followed_by_a_capital_or_digit() -> None:
    assert sentences('User paid 3.50 euros. Then 2026 came! "Yes." Done') == [
        "User paid 3.50 euros.", "Then 2026 came!", '"Yes."', "Done"]
