"""The offline judge: money in any currency, a pastime given up however it was played, the
same aversion said twice, and answer styles kept apart by aspect (length, language, format, tone, emoji, ...).
The people, values and phrasings here are written apart from every scenario set."""

from __future__ import annotations

import pytest

from memlane import Memory
from memlane.providers.llm.rules.conflict import classify
from memlane.providers.llm.rules.same_fact import same_fact
from tests.test_rules_chat_changes import U, _say, mem  # noqa: F401 (mem is a fixture)
from tests.test_rules_chat_register import summaries


# Sums of money in another currency are amounts like euros: two sums for two things both hold, a new
# sum for the same thing replaces the old one.
@pytest.mark.parametrize(
    ("existing", "candidate"),
    [
        ("User pays 1800 francs in rent.", "User spends 600 francs a month on groceries."),
        ("User earns 95,000 yen a week.", "User spends 20,000 yen a week on food."),
    ],
)
def test_two_sums_in_one_currency_for_two_things_both_hold(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation not in ("contradiction", "redundancy")


def test_a_new_sum_for_the_same_thing_in_rupees_is_a_change() -> None:
    assert (
        classify("User's rent is 40,000 rupees.", "User's rent went up to 45,000 rupees.").relation
        == "contradiction"
    )


# How a pastime is played (online, casual, ranked, at weekends) does not make giving it up another thing.
@pytest.mark.parametrize(
    ("existing", "candidate"),
    [
        ("User plays casual online poker.", "User gave up online poker."),
        ("User plays ranked chess online every evening.", "User quit chess."),
        ("User plays weekend tennis at the club.", "User gave up weekend tennis."),
    ],
)
def test_a_pastime_given_up_however_it_was_played_is_retired(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation == "contradiction"


def test_no_longer_eating_meat_keeps_the_fish() -> None:
    """A pescatarian's salmon stays: what is given up is meat, not eating."""
    assert classify("User no longer eats meat.", "User eats salmon twice a week.").relation != "contradiction"


# The same thing not wanted, said twice in other words, is one memory.
@pytest.mark.parametrize(
    ("existing", "candidate"),
    [
        ("User hates emojis in answers.", "User wants responses with no emojis."),
        ("User wants answers without jargon.", "User prefers replies that avoid jargon."),
        ("User hates jazz.", "User does not like jazz."),
    ],
)
def test_one_aversion_said_again_is_redundant(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation == "redundancy"


@pytest.mark.parametrize(
    ("existing", "candidate"),
    [
        (
            "User drinks flat whites with oat milk.",
            "User drinks black tea without milk.",
        ),  # "without" is how, not against
        (
            "User wants replies without emojis.",
            "User wants replies without bullet points.",
        ),  # two things not wanted
    ],
)
def test_without_something_is_no_clash_with_another_statement(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation not in ("contradiction", "redundancy")


def test_giving_up_a_dislike_is_still_a_change() -> None:
    assert classify(
        "User wants replies without emojis.", "User is fine with emojis in replies now."
    ).relation == ("contradiction")


def test_two_negatives_of_opposite_words_differ_from_opposite_outcomes() -> None:
    assert (
        classify("User failed the driving test.", "User passed the driving test.").relation == "contradiction"
    )


# Answer styles: one value per aspect. Another aspect adds, the same aspect changes.
@pytest.mark.parametrize(
    ("existing", "candidate"),
    [
        ("User wants short answers.", "User wants answers in Dutch."),
        ("User prefers concise replies.", "User wants replies without emojis."),
        ("User wants answers as numbered lists.", "User wants replies in a formal tone."),
        ("User wants replies in a casual tone.", "User prefers brief replies."),
    ],
)
def test_an_answer_style_of_another_aspect_adds(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation == "new"
    assert not same_fact(existing, candidate).same_fact


@pytest.mark.parametrize(
    ("existing", "candidate"),
    [
        ("User prefers concise replies.", "User wants long, thorough replies now."),
        ("User wants answers in Dutch.", "User would like replies in German from now on."),
        ("User wants replies in a casual tone.", "User wants replies in a formal tone."),
    ],
)
def test_an_answer_style_of_the_same_aspect_changes(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation == "contradiction"


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("I want answers in Dutch.", "User prefers answers in Dutch."),
        ("i'd like your replies without emojis please", "User prefers answers without emojis."),
        ("I would like the answers in Greek", "User prefers answers in Greek."),
    ],
)
def test_an_answer_style_asked_with_a_preposition_is_kept_whole(message: str, expected: str) -> None:
    assert summaries(message) == [expected]


@pytest.mark.parametrize("message", ["I would like the invoice by Friday", "I would like to know the time"])
def test_would_like_something_else_stays_a_request(message: str) -> None:
    assert summaries(message) == []


def test_answer_styles_of_two_aspects_both_stay_and_a_third_statement_changes_one(mem: Memory) -> None:  # noqa: F811
    """Through the whole pipeline (extraction, keys, decision, SQLite): "short" and "in Dutch" are two
    memories; "long answers" later replaces only the length."""
    _say(mem, "Please keep your answers short.", 1)
    _say(mem, "Also, answer me in Dutch from now on.", 3)
    active = [r.summary for r in mem.list(user_id=U)]
    assert any("short" in s for s in active) and any("Dutch" in s for s in active), active
    _say(mem, "Actually I want long answers with lots of detail.", 5)
    active = [r.summary for r in mem.list(user_id=U)]
    assert any("Dutch" in s for s in active), active
    assert not any("short" in s for s in active), active
