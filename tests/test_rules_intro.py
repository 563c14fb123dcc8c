"""Introductions that list several facts in one clause (rules/intro.py): each fact is read on its own,
and a clause that is not a list of facts is left alone."""

from __future__ import annotations

import pytest

from memlane.model.candidate import ChatMessage
from memlane.providers.llm.rules.extract import extract
from memlane.providers.llm.rules.intro import expand


def summaries(message: str) -> list[str]:
    return [c.summary for c in extract([ChatMessage(role="user", content=message)]).candidates]


@pytest.mark.parametrize(("message", "wanted"), [
    ("Hi! I'm Oskar, 52, structural engineer from Gdansk, divorced",
     ["User's name is Oskar.", "User is 52 years old.", "User is divorced."]),
    ("A bit about me: 38, pescatarian, live in Ghent, work at Barco as a technician.",
     ["User is 38 years old.", "User lives in Ghent.", "User works at Barco as a technician."]),
    ("My name is Dalia and I'm a midwife in Cairo", ["User's name is Dalia."]),
    ("hello - I'm Wren - I restore old furniture and I have a greyhound called Pip",
     ["User's name is Wren.", "User has a greyhound named Pip."]),
    ("I'm a 61-year-old farmer living in Cumbria", ["User lives in Cumbria."]),
])
def test_each_listed_fact_is_read(message: str, wanted: list[str]) -> None:
    got = summaries(message)
    assert set(wanted) <= set(got), got


@pytest.mark.parametrize("clause", [
    "I am so tired, honestly", "I am in Paris, for a conference", "I am studying for an MBA part-time",
    "I am a nurse",
])
def test_a_clause_that_lists_no_facts_is_left_alone(clause: str) -> None:
    assert expand(clause) == [clause]
