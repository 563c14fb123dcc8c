"""Extraction rows are data (``rules/patterns.yaml``): every row's examples go through the whole offline
extractor (cleaning, clauses, filters, subjects, rules) and must give the row's summary."""

from __future__ import annotations

import pytest

from memlane.model.candidate import ChatMessage
from memlane.providers.llm.rules.extract import extract
from memlane.providers.llm.rules.table import SLOTS, rows

EXAMPLES = [
    pytest.param(row.id, message, summary, id=f"{row.id}-{i}")
    for row in rows()
    for i, (message, summary) in enumerate(row.examples)
]


def test_every_row_has_examples_and_known_slots() -> None:
    assert rows(), "patterns.yaml has no rows"
    for row in rows():
        assert len(row.examples) >= 2, f"{row.id}: a row needs at least two examples"
        assert row.patterns and row.says, row.id
    assert set(SLOTS) >= {"org", "place", "name", "tool", "num", "money", "date", "thing"}


@pytest.mark.parametrize(("row_id", "message", "summary"), EXAMPLES)
def test_row_example_gives_its_summary(row_id: str, message: str, summary: str) -> None:
    turns = [ChatMessage(role="user", content=t) for t in message.split(" || ")]
    got = [c.summary for c in extract(turns).candidates]
    assert summary in got, f"{row_id}: {message!r} gave {got}"


def test_a_placeholder_object_is_not_a_memory() -> None:
    """'I hate the stuff' says nothing without the sentence before it."""
    turns = [ChatMessage(role="user", content="please leave it out of the recipe, I hate the stuff")]
    assert not extract(turns).should_create


def test_a_lookalike_that_no_row_reads_is_left_alone() -> None:
    """The rows match whole clauses: a trip is not a move, a plan is not a purchase."""
    for message in ("I am in Paris for a conference", "I might put down a deposit on a flat"):
        summaries = [c.summary for c in extract([ChatMessage(role="user", content=message)]).candidates]
        assert not any("lives in Paris" in s or "deposit" in s for s in summaries), (message, summaries)


@pytest.mark.parametrize(
    "message",
    [
        "I coach my daughter's football team.",
        "I volunteer at the animal shelter on Sundays",
        "I brew my own kombucha at home",
    ],
)
def test_a_statement_no_rule_reads_is_kept_as_said(message: str) -> None:
    [cand] = extract([ChatMessage(role="user", content=message)]).candidates
    assert cand.summary.startswith("User ") and cand.type.value == "semantic" and "statement" in cand.tags


@pytest.mark.parametrize(
    "message",
    [
        "I am so tired today",
        "I think you are right about that",
        "I need help with my essay",
        "I will call the bank tomorrow",
        "I met a friend for lunch.",
    ],
)
def test_passing_states_plans_and_small_events_are_not_kept_by_the_fallback(message: str) -> None:
    assert not extract([ChatMessage(role="user", content=message)]).should_create


def test_a_capital_in_a_pattern_is_written_case_sensitive() -> None:
    """Patterns are read case-insensitively: a bare [A-Z] would take "not" for a name ("I do not play")."""
    import re

    from memlane.providers.llm.rules.table import _FIELD

    for row in rows():
        for pattern in row.patterns:
            bare = re.sub(r"\(\?-i:\[A-Z[^\]]*\]\)", "", pattern.pattern)
            assert "[A-Z" not in _FIELD.sub("", bare), f"{row.id}: write (?-i:[A-Z]) for a capital"


def test_a_negated_activity_is_no_hobby() -> None:
    [cand] = extract(
        [ChatMessage(role="user", content="I don't play squash any more, my knee is shot")]
    ).candidates
    assert cand.key != "interest:not" and "not" in cand.summary
