"""Chat extraction: durable statements the offline extractor dropped or misread, found by a
probe of everyday messages written for it (not from any scenario set): taking something up or going
part-time said in the past, a dwelling "on" something, moving in with someone, a role named with a month,
giving one's things away, a status held "at the moment", one weighty word (a name, a rate, a condition), a
child starting school, and names or days that are not what they look like."""

from __future__ import annotations

import pytest

from memlane import Memory
from memlane.providers.llm.rules.conflict import classify
from tests.test_rules_chat_changes import U, _say, mem, told_in_chat  # noqa: F401 (mem is a fixture)
from tests.test_rules_chat_register import summaries


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("I took up bouldering a couple of weeks ago", "User took up bouldering."),
        ("I went freelance in the spring", "User went freelance in the spring."),
        ("I live on a houseboat", "User lives on a houseboat."),
        ("I've moved in with my boyfriend", "User lives with their boyfriend."),
        ("I became a tech lead in October", "User works as a tech lead."),
        ("I gave my old guitar to my niece", "User gave their old guitar to their niece."),
        ("I'm on a keto diet at the moment", "User is on a keto diet at the moment."),
        ("I'm on maternity leave at the moment", "User is on maternity leave at the moment."),
        ("I run about 30 km a week", "User runs about 30 km a week."),
        ("I support Celta Vigo", "User supports Celta Vigo."),
        ("My daughter has dyslexia", "User's daughter has dyslexia."),
        ("my son started primary school", "User's son started primary school."),
    ],
)
def test_a_durable_statement_is_kept(message: str, expected: str) -> None:
    assert expected in summaries(message)


@pytest.mark.parametrize(
    "message",
    [
        "I am in Porto",  # where the user is now
        "I'm tired at the moment",  # a passing state
        "I went back to bed",  # a passing return
        "I gave a talk at the meetup",  # giving that gives nothing up
    ],
)
def test_a_passing_statement_is_not_kept(message: str) -> None:
    assert summaries(message) == []


def test_a_capitalised_name_is_not_read_as_a_word_it_abbreviates() -> None:
    assert "User's partner's name is Dev." in summaries("My partner's name is Dev")
    assert "User works as a backend developer at Zalando." in summaries("I'm a backend dev at Zalando")


def test_a_day_after_an_employer_is_no_part_of_its_name() -> None:
    assert "User works at Lidl." in summaries("Started a new job at Lidl on Tuesday")
    assert "User lives in Stratford upon Avon." in summaries("I live in Stratford upon Avon")


# --- corrections told in chat (a second probe, 30 pairs written for it; docs/memory-quality.md) ----


@pytest.mark.parametrize(
    ("existing", "candidate"),
    [
        (
            "User drinks about four coffees a day.",
            "User is down to one coffee a day.",
        ),  # coffees / coffee: one stem
        ("User is vegetarian.", "User started eating fish again."),  # eating told as it is
        ("User supports Chelsea.", "User has switched allegiance to Brentford."),
        ("User is doing a PhD in chemistry.", "User dropped out of their PhD."),
        ("User runs 5k three times a week.", "User runs 10k three times a week."),  # only the amount differs
        ("User is single.", "User is seeing someone now, her name is Lea."),
    ],
)
def test_a_correction_in_other_words_is_a_contradiction(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation == "contradiction"


@pytest.mark.parametrize(
    ("existing", "candidate"),
    [
        ("User runs 5 km on weekdays.", "User runs 15 km on Sundays."),  # two amounts for two days
        ("User is vegetarian.", "User's daughter is eating fish."),  # someone else eats it
        ("User swam 1,500 metres on 2026-02-03.", "User swam 2,000 metres on 2026-02-05."),  # two occasions
    ],
)
def test_two_amounts_or_someone_elses_food_both_hold(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation != "contradiction"


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("I weigh 71 kg", "User weighs 71 kg."),
        ("My niece Ada is in year 4", "User's niece Ada is in year 4."),
        ("I'm on Linux", "User is on Linux."),
        ("My password manager is Bitwarden", "User's password manager is Bitwarden."),
        ("gym day is Friday now", "User's gym is on Fridays."),
        ("I gave up on Italian", "User gave up on Italian."),
        ("I dropped out of my master's", "User dropped out of their master's."),
        ("honestly mushrooms have grown on me, I like them now", "User likes mushrooms now."),
        ("Turkish dramas are my thing, I love them", "User loves Turkish dramas."),
    ],
)
def test_a_statement_a_correction_needs_is_read(message: str, expected: str) -> None:
    assert expected in summaries(message)


@pytest.mark.parametrize("message", ["My eating-out budget is 250 euros a month", "my password is hunter2"])
def test_a_budget_is_no_tool_and_a_password_is_never_kept(message: str) -> None:
    assert not any(s.startswith("User's password") or "tech" in s for s in summaries(message))
    if "password is" in message:
        assert summaries(message) == []


@pytest.mark.parametrize(
    ("first", "then", "gone", "kept"),
    [
        ("I play cello in an amateur orchestra", "I quit the orchestra", "cello", "quit"),
        ("I'm on Android", "got an iPhone 15 Pro, bye bye Android", "on Android", "iPhone"),
        ("I weigh 95 kg", "I'm down to 88 kg", "95", "88"),
        (
            "My password manager is LastPass",
            "switched to Bitwarden after the breach",
            "LastPass",
            "Bitwarden",
        ),
    ],
)
def test_a_correction_told_in_chat_closes_what_it_corrects(
    mem: Memory,  # noqa: F811
    first: str,
    then: str,
    gone: str,
    kept: str,
) -> None:
    """The whole pipeline as a host drives it (hot path, then the finished turn's episode), real SQLite."""
    active = told_in_chat(mem, first, then)
    assert not any(gone in s for s in active), active
    assert any(kept in s for s in active), active
