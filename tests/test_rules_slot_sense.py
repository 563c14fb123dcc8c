"""The same slot told in other words (rules/slot_sense.py): values masked, the statements compared in the
bundled all-MiniLM-L6-v2 model. Pairs written for this file, apart from every scenario set."""

from __future__ import annotations

import pytest

from memlane.providers.llm.rules import slot_sense
from memlane.providers.llm.rules.conflict import classify

SAME_SLOT = [
    # a clock time, "midnight" and "noon" included, in a frame told with other words
    ("User usually has dinner around 7 pm.", "User's evening meal is now at 8:30 pm."),
    ("User's yoga class is at 6 pm.", "User now does yoga at 7:30 pm."),
    # a number with one unit
    (
        "User's mortgage payment is 1,200 pounds a month.",
        "User now pays 1,350 pounds a month on the mortgage.",
    ),
    ("User's resting heart rate is 72 bpm.", "User's pulse at rest is 64 bpm these days."),
    ("User's daily step goal is 8,000 steps.", "User now aims for 10,000 steps a day."),
]

OTHER_SLOT = [
    # one kind of value, other slots
    ("User feeds the cat at 7 am.", "User leaves for work at 8 am."),
    ("User's mortgage payment is 1,200 pounds a month.", "User spends 300 pounds a month on petrol."),
    ("User takes the dog out at 6 am.", "User takes vitamin D at 9 pm."),
]


@pytest.mark.parametrize(("existing", "candidate"), SAME_SLOT)
def test_the_same_slot_in_other_words_with_another_value_is_a_contradiction(
    existing: str, candidate: str
) -> None:
    verdict = slot_sense.same_slot(existing, candidate)
    assert verdict is not None and verdict.relation == "contradiction"
    assert classify(existing, candidate).relation == "contradiction"


@pytest.mark.parametrize(("existing", "candidate"), OTHER_SLOT)
def test_another_slot_with_a_value_of_the_same_kind_is_not(existing: str, candidate: str) -> None:
    assert slot_sense.same_slot(existing, candidate) is None
    assert classify(existing, candidate).relation != "contradiction"


@pytest.mark.parametrize(
    ("existing", "candidate"),
    [
        # the user's thing is not the user ("weighs" / "suitcase weighs" read alike once masked), nor another thing
        ("User weighs 68 kg.", "User's suitcase weighs 23 kg."),
        ("User's water bill is 40 euros a month.", "User's broadband is 30 euros a month."),
        (
            "User gets to the office at 9 am.",
            "User no longer gets to the office at 10 am.",
        ),  # a negation on one side
        ("User swims at 7 am.", "User went for a swim last night at 9 pm."),  # a one-off occasion
        (
            "User's bus leaves at 7 am and the train at 8 am.",
            "User's commute now starts at 6:30 am.",
        ),  # which one?
    ],
)
def test_the_slot_check_stays_out(existing: str, candidate: str) -> None:
    assert slot_sense.same_slot(existing, candidate) is None


def test_values_of_one_kind_are_read_and_normalised() -> None:
    kinds = [
        (s.kind, s.value) for s in slot_sense.slots("User's alarm goes off at 6:45 am, lunch is at noon.")
    ]
    assert kinds == [("clock", str(6 * 60 + 45)), ("clock", str(12 * 60))]
    assert [(s.kind, s.value) for s in slot_sense.slots("User's flat is 60 square metres.")][0][0].startswith(
        "num"
    )
    # the same value written otherwise is no change: no check
    assert slot_sense.masked_cosine("User's party is on May 3.", "User's party is on 3 May.") is None
    assert slot_sense.masked_cosine("User's GP is Dr. Lund.", "User's GP is Lund.") is None
    assert slot_sense.masked("User's usual bedtime is now around midnight.") == "bedtime is"


def test_one_clock_time_said_of_the_slot_in_other_words_is_one_memory() -> None:
    """The same time both hold: the statements say one thing (a date or a name said twice may be two things)."""
    said = slot_sense.same_slot(
        "User gets up at 6:15 every morning.", "User is always up at 6:15, every single day."
    )
    assert said is not None and said.relation == "redundancy"
    assert (
        slot_sense.same_slot("User booked a flight to Oslo for May.", "User booked a hotel in Oslo for May.")
        is None
    )
