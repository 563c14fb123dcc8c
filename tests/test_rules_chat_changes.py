"""Chat extraction: what replaced something just ended, changes marked by "now", a new job
about to begin or one left by its last day, weekly schedules with "my" dropped, "back to" a habit, the name the
user asks to be called, and one slot said twice in a message. The phrasings, people and values here are
written apart from every scenario set."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memlane import Memory
from memlane.model.candidate import ChatMessage
from memlane.providers.llm.rules import RulesLLM
from tests.formation_helpers import open_memory
from tests.test_rules_chat_register import summaries

U = "u_chat_changes"


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("I don't cycle to uni anymore, I take the tram now", "User takes the tram now."),
        ("i'm not renting any more, we bought a flat in Gdansk", "User bought a flat in Gdansk."),
        ("I quit the choir, I sing with a jazz trio now", "User sings with a jazz trio now."),
    ],
)
def test_what_replaced_something_just_ended_is_kept(message: str, expected: str) -> None:
    assert expected in summaries(message)


@pytest.mark.parametrize(
    "message",
    [
        "I don't play padel any more, my shoulder is wrecked",  # a reason, not what replaced it
        "I went to the market, I bought leeks",  # nothing ended: a passing errand
    ],
)
def test_a_reason_or_a_passing_errand_is_not_a_replacement(message: str) -> None:
    assert not any("shoulder" in s or "leeks" in s for s in summaries(message))


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("I walk the dog now", "User walks the dog now."),
        ("I drink rooibos now", "User drinks rooibos now."),
    ],
)
def test_now_marks_a_change_that_says_enough_in_few_words(message: str, expected: str) -> None:
    assert summaries(message) == [expected]


@pytest.mark.parametrize(
    "message", ["I am at the dentist now", "I am off now", "I have to go now", "I see it now"]
)
def test_now_does_not_keep_where_the_user_is_or_a_passing_moment(message: str) -> None:
    assert summaries(message) == []


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("from next week I start at Vestas", "User works at Vestas."),
        ("I'm starting with Bupa in the new year", "User works at Bupa."),
        ("my final day at Ocado was Thursday, weird feeling", "User left Ocado."),
    ],
)
def test_a_new_job_about_to_begin_or_a_last_day_is_a_change_of_employer(message: str, expected: str) -> None:
    assert expected in summaries(message)


@pytest.mark.parametrize("message", ["I start at 7 tomorrow", "I start with the easy questions"])
def test_starting_at_a_time_or_with_a_thing_is_no_employer(message: str) -> None:
    assert not any("works at" in s for s in summaries(message))


def test_a_resignation_and_a_new_employer_in_one_message_keep_the_new_employer() -> None:
    found = summaries(
        "handed my notice in at last, final shift with Boots is Saturday and on Monday I start at Lidl"
    )
    assert "User left Boots." in found and "User works at Lidl." in found


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("salsa class moved to wednesdays", "User's salsa class is on Wednesdays."),
        ("my allotment shift is on sundays now", "User's allotment shift is on Sundays."),
    ],
)
def test_a_weekly_schedule_with_my_dropped_is_the_users(message: str, expected: str) -> None:
    assert summaries(message) == [expected]


@pytest.mark.parametrize("message", ["the farmers market is on saturdays", "my interview is on friday"])
def test_someone_elses_schedule_or_one_occasion_is_no_weekly_schedule(message: str) -> None:
    assert not any("Saturdays" in s or "Fridays" in s for s in summaries(message))


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("back to green tea, coffee was wrecking my sleep", "User is back to green tea."),
        ("I'm back on early shifts", "User is back on early shifts."),
    ],
)
def test_back_to_a_habit_is_kept(message: str, expected: str) -> None:
    assert summaries(message) == [expected]


@pytest.mark.parametrize("message", ["I'm back to normal", "back to work tomorrow", "I'm back home"])
def test_back_to_normal_or_home_is_passing(message: str) -> None:
    assert summaries(message) == []


@pytest.mark.parametrize(
    ("message", "name"),
    [
        ("hmm, I'd rather you called me Teo", "Teo"),
        ("scratch that, please call me Ines", "Ines"),
        ("hiya, name's Callum, I live in Oban", "Callum"),
        ("I would prefer to be called Dot", "Dot"),
    ],
)
def test_the_name_the_user_asks_for_is_read_however_it_is_asked(message: str, name: str) -> None:
    assert any(name in s for s in summaries(message))


@pytest.mark.parametrize("message", ["I'd rather you call me later", "call me tomorrow about it"])
def test_call_me_later_names_no_one(message: str) -> None:
    assert not any("called" in s for s in summaries(message))


def test_one_slot_said_twice_in_a_message_keeps_the_later_word() -> None:
    assert summaries("I'm not a barista anymore, I retrained as a sign-language interpreter") == [
        "User is not a barista anymore.",
        "User works as a sign-language interpreter.",
    ]


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    memory = open_memory(
        str(tmp_path / "r5.db"), RulesLLM(), memory_consent_fields=[], memory_consent_benign_fields=[]
    )
    yield memory
    memory.close()


def _say(mem: Memory, text: str, day: int) -> None:
    mem.add(
        [ChatMessage(role="user", content=text)],
        user_id=U,
        at=datetime(2026, 5, day, 9, tzinfo=UTC),
        wait=True,
    )


def told_in_chat(mem: Memory, first: str, then: str) -> list[str]:
    """The whole pipeline as a host drives it (hot path, then the finished turn's episode) for two messages 19
    days apart; the active summaries after them."""
    for text, day in ((first, 1), (then, 20)):
        _say(mem, text, day)
        mem.capture_turn(
            [ChatMessage(role="user", content=text)],
            user_id=U,
            at=datetime(2026, 5, day, 9, tzinfo=UTC),
            wait=True,
        )
    return [r.summary for r in mem.list(user_id=U)]


def test_a_later_clause_of_one_message_replaces_what_an_earlier_clause_said(mem: Memory) -> None:
    """The candidates of one turn are observed in the order they were said, so the new employer named after
    the resignation stays active (it used to be ignored as "observed before" the resignation)."""
    _say(mem, "I work at Halfords as a mechanic.", 1)
    _say(mem, "handed in my notice, last day at Halfords was Friday and on Monday I start at Kwik Fit", 9)
    active = [r.summary for r in mem.list(user_id=U)]
    assert "User works at Kwik Fit." in active
    assert not any("Halfords as a mechanic" in s for s in active)
