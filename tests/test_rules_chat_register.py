"""Chat as people type it: contractions without apostrophes and chat spellings, things
given up said in the past tense, names typed in lower case, and what a relative does. The phrasings, people
and values here are written apart from every scenario set."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memlane import Memory
from memlane.model.candidate import ChatMessage
from memlane.model.enums import HistoryEvent
from memlane.providers.llm.rules import RulesLLM
from memlane.providers.llm.rules.extract import extract
from memlane.providers.llm.rules.text import expand_contractions
from tests.formation_helpers import open_memory

U = "u_register"


def summaries(*turns: str) -> list[str]:
    result = extract([ChatMessage(role="user", content=t) for t in turns])
    return [c.summary for c in result.candidates] if result.should_create else []


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("im on nights this month", "I am on nights this month"),
        ("ive been teetotal since june", "I have been teetotal since june"),
        ("i cant eat gluten, it wasnt fun finding out", "i cannot eat gluten, it was not fun finding out"),
        ("my gf is gonna love this", "my girlfriend is going to love this"),
        ("teh dentist moved it", "the dentist moved it"),
        ("IM me later", "IM me later"),  # instant messaging, not "I am"
    ],
)
def test_contractions_without_apostrophes_and_chat_spellings_are_read_as_words(typed: str, read: str) -> None:
    assert expand_contractions(typed) == read


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("ive been pescatarian since march", "User has been pescatarian since march."),
        ("im alergic to hazelnuts", "User is allergic to hazelnuts."),
    ],
)
def test_a_fact_typed_without_apostrophes_or_with_a_typo_is_extracted(message: str, expected: str) -> None:
    assert summaries(message) == [expected]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("I sold my road bike last weekend.", "User sold their road bike."),
        (
            "deleted my Strava account, the kudos were making me competitive",
            "User deleted their Strava account",
        ),
        ("uninstalled Duolingo after a 400 day streak", "User uninstalled Duolingo"),
        ("got rid of the television in the bedroom", "User got rid of the television in the bedroom."),
        ("gave away my sewing machine to a neighbour", "User gave away their sewing machine"),
        ("I closed my Monzo account.", "User closed their Monzo account."),
    ],
)
def test_giving_something_up_in_the_past_tense_is_kept(message: str, expected: str) -> None:
    assert any(s.startswith(expected.rstrip(".")) for s in summaries(message)), summaries(message)


@pytest.mark.parametrize(
    "message",
    [
        "I left my umbrella on the bus.",
        "I stopped by the bakery on the way home.",
        "I dropped my glasses in the sink.",
        "I sold it.",
        "I am done.",
        "I quit.",
    ],
)
def test_passing_events_and_bare_verbs_are_not_kept(message: str) -> None:
    assert summaries(message) == []


def test_a_name_typed_in_lower_case_is_known_in_later_turns() -> None:
    assert summaries("my niece tilda is 6", "tilda turned 7 on friday, unicorn cake obviously") == [
        "User's niece Tilda is 7 years old."
    ]
    assert not any("Just" in s for s in summaries("my daughter just started school"))  # "just" is no name


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            "my uncle restores old motorbikes in his garage",
            "User's uncle restores old motorbikes in his garage.",
        ),
        ("my grandad keeps pigeons on his allotment", "User's grandad keeps pigeons on his allotment."),
        ("my cat sleeps on the radiator all winter", "User's cat sleeps on the radiator all winter."),
    ],
)
def test_what_a_relative_or_pet_does_is_kept_as_theirs(message: str, expected: str) -> None:
    assert summaries(message) == [expected]


def test_an_opinion_of_a_relative_about_the_user_is_not_kept() -> None:
    assert summaries("my brother reckons I spend too much on coffee") == []


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    m = open_memory(
        str(tmp_path / "r.db"), RulesLLM(), memory_consent_fields=[], memory_consent_benign_fields=[]
    )
    yield m
    m.close()


@pytest.mark.parametrize(
    ("before", "after", "gone"),
    [
        (
            "I ride my Brompton to the office every day.",
            "sold the brompton, working from home now anyway",
            "Brompton",
        ),
        (
            "I post my sourdough bakes on TikTok.",
            "uninstalled tiktok last night, it was eating my evenings",
            "TikTok",
        ),
    ],
)
def test_what_is_given_up_in_chat_retires_the_stored_fact_with_history(
    mem: Memory, before: str, after: str, gone: str
) -> None:
    mem.add(before, user_id=U, wait=True)
    (old,) = mem.list(user_id=U)
    mem.add(after, user_id=U, wait=True)
    active = [r.summary for r in mem.list(user_id=U)]
    assert old.summary not in active
    assert any(gone.lower() in s.lower() for s in active), active  # what was done is kept
    assert HistoryEvent.SUPERSEDE in [h.event for h in mem.history(old.id, user_id=U)]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("I'm a tattoo artist now", "User works as a tattoo artist."),
        ("im a locksmith these days", "User works as a locksmith."),
        ("I am now a beekeeper", "User works as a beekeeper."),
    ],
)
def test_a_role_announced_as_a_change_is_a_job_even_when_its_word_is_not_listed(
    message: str, expected: str
) -> None:
    assert summaries(message) == [expected]


def test_a_role_word_not_listed_and_not_announced_is_not_a_job() -> None:
    assert summaries("I am a morning person") != ["User works as a morning person."]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("moved over to a Fairphone 5 in may, really happy with it", "User moved over to a Fairphone 5"),
        ("started using Obsidian for recipes, obsessed with it", "User started using Obsidian for recipes."),
        ("I took up the ukulele over lockdown", "User took up the ukulele"),
        ("I switched to Kagi for search, never going back", "User switched to Kagi for search."),
    ],
)
def test_what_is_said_before_a_reaction_stands_alone(message: str, expected: str) -> None:
    assert any(s.startswith(expected.rstrip(".")) for s in summaries(message)), summaries(message)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("I'm back to cycling to work, the bus was too slow", "User is back to cycling to work"),
        ("I do my taxes in Numbers.", "User does their taxes in Numbers."),
        ("I'm on a Framework 13 laptop now", "User is on a Framework 13 laptop now."),
    ],
)
def test_a_short_verb_still_counts_and_resuming_a_habit_is_no_passing_state(
    message: str, expected: str
) -> None:
    assert any(s.startswith(expected.rstrip(".")) for s in summaries(message)), summaries(message)


@pytest.mark.parametrize(
    "message",
    [
        "I am on the train now",
        "I am back from lunch",
        "I do it.",
        "I picked up my sister from school",
        "I started to cry",
    ],
)
def test_short_passing_states_are_still_not_kept(message: str) -> None:
    assert summaries(message) == []


def test_an_age_in_words_after_a_possessive_s_is_an_age() -> None:
    assert summaries("my nephew Jonah is 11", "Jonah's twelve now, taller than me") == [
        "User's nephew Jonah is twelve years old."
    ]


@pytest.mark.parametrize(
    "message",
    [
        "decision made: I'm keeping the Corolla another year",
        "I'm renting in Malmö instead of buying, final decision.",
        "ok decided - we are skipping the Lisbon trip",
    ],
)
def test_a_decision_told_around_a_clause_is_an_episode(message: str) -> None:
    result = extract([ChatMessage(role="user", content=message)])
    assert [c.type.value for c in result.candidates] == ["episodic"]
    assert result.candidates[0].summary.startswith("User decided that")


def test_an_answer_style_said_of_my_answers_keeps_the_style() -> None:
    assert summaries("I want my replies kept plain, no jargon") == ["User prefers plain answers."]


@pytest.mark.parametrize(
    ("old", "new", "relation"),
    [
        ("User uses a OnePlus 11.", "User is on a Redmi Note 12 now.", "contradiction"),
        ("User has a Nokia 3310 as a backup.", "User switched to an Xperia 5.", "contradiction"),
        ("User likes photographing the galaxy through a telescope.", "User is on a Pixel now.", "unsure"),
    ],
)
def test_phone_lines_are_one_phone_at_a_time(old: str, new: str, relation: str) -> None:
    from memlane.providers.llm.rules.conflict import classify

    assert classify(old, new).relation == relation


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Left the bakery in June, these days I teach spin classes", "User left the bakery"),
        ("I quit the brass band last winter", "User quit the brass band"),
        ("dropped out of the nursing course", "User dropped out of the nursing course"),
    ],
)
def test_leaving_a_place_of_work_or_membership_is_kept(message: str, expected: str) -> None:
    assert any(s.startswith(expected) for s in summaries(message)), summaries(message)


def test_leaving_a_thing_somewhere_is_not_kept() -> None:
    assert summaries("I left my scarf at the office") == []


@pytest.mark.parametrize(
    ("old", "new", "relation"),
    [
        ("User works as a sous-chef at a brasserie in Nîmes.", "User left the brasserie.", "contradiction"),
        ("User lives in Malmö.", "User's home is in Malmo.", "redundancy"),
    ],
)
def test_accents_do_not_split_a_word(old: str, new: str, relation: str) -> None:
    from memlane.providers.llm.rules.conflict import classify

    assert classify(old, new).relation == relation


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("we rebuilt the shop's website in Astro last spring", "User rebuilt the shop's website in Astro."),
        (
            "usually grab a flat white on the way to work",
            "User usually grabs a flat white on the way to work.",
        ),
        ("mostly cook vegetarian at home these days", "User mostly cooks vegetarian at home these days."),
    ],
)
def test_a_subject_dropped_habit_or_an_irregular_past_is_rendered_right(message: str, expected: str) -> None:
    assert summaries(message) == [expected]


@pytest.mark.parametrize(
    "message", ["Always answer me in Dutch.", "never use emojis with me", "usually the tram is late"]
)
def test_a_frequency_adverb_before_a_request_or_another_subject_is_no_habit_of_the_user(message: str) -> None:
    assert not any(
        s.startswith("User usually") or s.startswith("User always") or s.startswith("User never")
        for s in summaries(message)
    )


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("User's son Leo started judo lessons.", "User's son Leo is 9 years old."),
        ("User's grandmother Ilse knits socks for everyone.", "User's grandmother Ilse turned 88."),
    ],
)
def test_two_facts_about_one_person_with_no_word_in_common_and_one_number_both_hold(
    old: str, new: str
) -> None:
    from memlane.providers.llm.rules.conflict import classify

    assert classify(old, new).relation == "new"  # never merged by a high cosine
