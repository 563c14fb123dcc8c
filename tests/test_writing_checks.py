"""The writing constraints (seed 001 §9): the checks benchmarks/writing_format.py counts, and the
validator every extraction passes (trim, two sentences at most, cut at a sentence, drop empty)."""

from __future__ import annotations

import pytest

from memlane.model.candidate import Candidate, Extraction
from memlane.model.enums import MemoryType
from memlane.model.writing import problems, sentences
from memlane.providers.llm.structured import enforce_writing_constraints

SEM, EPI = MemoryType.SEMANTIC, MemoryType.EPISODIC


@pytest.mark.parametrize(
    ("summary", "mtype", "expected"),
    [
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
    ],
)
def test_problems(summary: str, mtype: MemoryType, expected: list[str]) -> None:
    assert problems(summary, mtype) == expected


def test_sentences_split_at_ends_followed_by_a_capital_or_digit() -> None:
    assert sentences('User paid 3.50 euros. Then 2026 came! "Yes." Done') == [
        "User paid 3.50 euros.",
        "Then 2026 came!",
        '"Yes."',
        "Done",
    ]


def extraction(*summaries: str, should_create: bool = True) -> Extraction:
    return Extraction(should_create=should_create, candidates=[Candidate(summary=s) for s in summaries])


def test_writing_constraints_trim_drop_and_cut() -> None:
    two = "User moved to Lyon in 2024. " + "User works at a bakery near the old town " * 8 + "."
    result = enforce_writing_constraints(
        extraction("  User   likes\n tea. ", "   ", "User " + "x" * 300 + ".", two), max_chars=280
    )
    assert [c.summary for c in result.candidates] == ["User likes tea.", "User moved to Lyon in 2024."]
    assert result.should_create
    assert result.reason == "dropped 2 candidate(s): empty summary, over 280 chars"


def test_writing_constraints_keep_at_most_two_sentences() -> None:
    three = "User adopted a cat. The cat is named Miso. Miso is two years old."
    [out] = enforce_writing_constraints(extraction(three)).candidates
    assert out.summary == "User adopted a cat. The cat is named Miso."


def test_writing_constraints_nothing_left_means_nothing_to_create() -> None:
    result = enforce_writing_constraints(extraction(" ", ""))
    assert result.should_create is False and result.candidates == []
    assert enforce_writing_constraints(extraction("User likes tea.", should_create=False)).candidates == []


def test_writing_constraints_normalise_key_and_tags() -> None:
    cand = Candidate(
        summary="User's dog Luna is 4.", key=" profile:pet:Luna:age ", tags=["Pets", "pets", " "]
    )
    [out] = enforce_writing_constraints(Extraction(should_create=True, candidates=[cand])).candidates
    assert out.key == "profile:pet:luna:age" and out.tags == ["pets"]
