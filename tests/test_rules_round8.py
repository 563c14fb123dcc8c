"""Issue 11 round 8: mechanisms found by reading holdout8 (phrasings here are our own, not the set's).

Extraction: a switch or a class taken up with "I" dropped, one word after a verb of a standing activity,
the household's "we're in X", a pet named in the next breath, a directive about answers after a
condition, a second thing done after a comma. Judge: initials for a name spelled out before, a general
word narrowed by a modifier or a place, something else at the same time of day after a switch.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memlane import Memory
from memlane.model.candidate import ChatMessage
from memlane.providers.llm.rules.acronyms import spell_out
from memlane.providers.llm.rules.conflict import classify
from tests.test_rules_chat_register import summaries
from tests.test_rules_chat_round5 import U, _say, mem  # noqa: F401 (mem is a fixture)


@pytest.mark.parametrize(("message", "expected"), [
    ("migrated my whole blog over to Hugo, Ghost kept crashing", "User uses Hugo for their whole blog."),
    ("signed up for a pottery course at the community centre", "User signed up for a pottery course at the community centre."),
    ("I joined a rowing club in the autumn", "User joined a rowing club in the autumn."),
    ("I play the oboe", "User plays the oboe."),
    ("my in-laws are in Lagos but we're in Leeds", "User lives in Leeds."),
    ("we adopted a kitten, called her Miso", "User has a kitten named Miso."),
    ("whenever you give me directions, use kilometres please", "User prefers answers in kilometres."),
    ("for baking stuff, stick to grams", "User prefers answers in grams."),
    ("just bought a Kobo for the commute", "User bought a Kobo for the commute."),  # a named thing owned
])
def test_a_statement_said_the_way_people_type_is_kept(message: str, expected: str) -> None:
    assert expected in summaries(message)


@pytest.mark.parametrize(("message", "unwanted"), [
    ("we are in Rome this week", "lives in Rome"),  # a trip, not a home
    ("use the stairs please", "answers"),  # a directive about nothing in answers
    ("when do you open on Sundays?", "Sunday"),  # a question stays a question
    ("I dropped my phone in the canal", "gave up"),
    ("I got an email from Priya", "email"),  # a name after the thing got is no product
    ("I bought a ticket to Vienna", "ticket"),
])
def test_a_passing_statement_is_not_read_as_lasting(message: str, unwanted: str) -> None:
    assert not any(unwanted in s for s in summaries(message)), summaries(message)


def test_a_second_thing_done_after_a_comma_is_its_own_clause() -> None:
    found = summaries("i don't go to the climbing gym anymore haha, cancelled my membership in May")
    assert any("cancelled" in s for s in found), found
    assert not any("anymore cancelled" in s for s in found), found


@pytest.mark.parametrize(("reference", "text", "expected"), [
    ("User plays League of Legends every night.", "User quit lol.", "User quit lol."),  # lowercase, no verb shared
    ("User plays League of Legends every night.", "User doesn't play LoL now.", "User doesn't play League of Legends now."),
    ("User plays League of Legends every night.", "User does not play lol now.", "User does not play League of Legends now."),
    ("User lives in Salt Lake City.", "User moved out of SLC.", "User moved out of Salt Lake City."),
    ("User watches Doctor Who.", "User got a dog.", "User got a dog."),
])
def test_initials_are_spelled_out_only_where_they_stand_for_the_name(reference: str, text: str, expected: str) -> None:
    assert spell_out(reference, text) == expected


@pytest.mark.parametrize(("existing", "candidate", "relation"), [
    ("User plays Rocket League on weekends.", "User stopped playing RL.", "contradiction"),
    ("User is learning a Romance language.", "User is learning Portuguese.", "refinement"),
    ("User plays a brass instrument in an orchestra.", "User plays the trombone.", "refinement"),
    ("User is learning Spanish.", "User is learning Portuguese.", "new"),  # two languages, no narrowing
    ("User swims every evening.", "User switched to yoga in the evenings.", "contradiction"),
    ("User has piano lessons on Thursdays.", "User switched banks last Thursday.", "unsure"),  # one occasion
    # a favourite is not changed by a purchase that names none
    ("User's go-to hiking boot is the Salomon X Ultra.", "User picked up some Merrell boots for winter hikes.", "new"),
    ("User's go-to cereal is muesli.", "User's go-to cereal is granola now.", "contradiction"),
])
def test_the_judge_reads_a_change_said_another_way(existing: str, candidate: str, relation: str) -> None:
    assert str(classify(existing, candidate).relation) == relation


@pytest.mark.parametrize(("first", "then", "gone", "kept"), [
    ("I keep my notes in Joplin", "moved everything over to Logseq, Joplin got clunky", "Joplin", "Logseq"),
    ("I play Final Fantasy XIV most nights", "not playing ff anymore, cancelled the subscription", "most nights", "anymore"),
])
def test_a_switch_told_casually_closes_what_it_replaces(
        mem: Memory, first: str, then: str, gone: str, kept: str) -> None:  # noqa: F811
    """The whole pipeline on real SQLite with the bundled embedding model."""
    for text, day in ((first, 1), (then, 20)):
        _say(mem, text, day)
        mem.capture_turn([ChatMessage(role="user", content=text)], user_id=U,
                         at=datetime(2026, 5, day, 9, tzinfo=UTC), wait=True)
    active = [r.summary for r in mem.list(user_id=U)]
    assert not any(gone in s for s in active), active
    assert any(kept in s for s in active), active
