"""Values said in several ways read the same to the decision model; everything else is left as written."""

from __future__ import annotations

import pytest

from memlane.providers.llm.learned.normalise import normalise_values


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("User's monthly rent is $1,850.", "User's monthly rent is 1850 dollars."),
        ("User pays £30 for the gym.", "User pays 30 quid for the gym."),
        ("User pays €12 a month.", "User pays 12 EUR a month."),
        ("User earns 45k a year.", "User earns 45,000 a year."),
        ("User has three children.", "User has 3 children."),
        ("User's nan is ninety-two.", "User's nan is 92."),
        ("User's defence is on 2026-05-14.", "User's defence is on May 14th, 2026."),
        ("User's defence is on 14 May 2026.", "User's defence is on the 14th of May 2026."),
        ("User gets up at 7am.", "User gets up at 07:00."),
        ("User goes to bed at 11 p.m.", "User goes to bed at 23:00."),
        ("User takes fifty milligrams of sertraline.", "User takes 50mg of sertraline."),
    ],
)
def test_one_value_in_two_written_forms_reads_the_same(one: str, other: str) -> None:
    assert normalise_values(one) == normalise_values(other)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("User has two children.", "User has three children."),
        ("User's rent is $1,850.", "User's rent is £1,850."),
        ("User gets up at 7am.", "User gets up at 7pm."),
        ("User's exam is on 2026-05-14.", "User's exam is on 2026-06-14."),
    ],
)
def test_different_values_stay_different(one: str, other: str) -> None:
    assert normalise_values(one) != normalise_values(other)


@pytest.mark.parametrize(
    "text",
    [
        "No one in the family eats fish",
        "User likes the blue one best",
        "User may visit Lisbon in spring",
        "User's code is 2026-13-45",
    ],
)
def test_words_that_are_no_values_are_left_alone(text: str) -> None:
    assert normalise_values(text) == text
