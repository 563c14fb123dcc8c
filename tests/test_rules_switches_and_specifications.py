"""Switches, specifications and clauses (the phrasings are our own, not any scenario set's).

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
from tests.test_rules_chat_changes import U, _say, mem, told_in_chat  # noqa: F401 (mem is a fixture)
from tests.test_rules_chat_register import summaries


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            "migrated my whole blog over to Hugo, Ghost kept crashing",
            "User uses Hugo for their whole blog now.",
        ),
        (
            "signed up for a pottery course at the community centre",
            "User signed up for a pottery course at the community centre.",
        ),
        ("I joined a rowing club in the autumn", "User joined a rowing club in the autumn."),
        ("I play the oboe", "User plays the oboe."),
        ("my in-laws are in Lagos but we're in Leeds", "User lives in Leeds."),
        ("we adopted a kitten, called her Miso", "User has a kitten named Miso."),
        ("whenever you give me directions, use kilometres please", "User prefers answers in kilometres."),
        ("for baking stuff, stick to grams", "User prefers answers in grams."),
        ("just bought a Kobo for the commute", "User bought a Kobo for the commute."),  # a named thing owned
    ],
)
def test_a_statement_said_the_way_people_type_is_kept(message: str, expected: str) -> None:
    assert expected in summaries(message)


@pytest.mark.parametrize(
    ("message", "unwanted"),
    [
        ("we are in Rome this week", "lives in Rome"),  # a trip, not a home
        ("use the stairs please", "answers"),  # a directive about nothing in answers
        ("when do you open on Sundays?", "Sunday"),  # a question stays a question
        ("I dropped my phone in the canal", "gave up"),
        ("I got an email from Priya", "email"),  # a name after the thing got is no product
        ("I bought a ticket to Vienna", "ticket"),
    ],
)
def test_a_passing_statement_is_not_read_as_lasting(message: str, unwanted: str) -> None:
    assert not any(unwanted in s for s in summaries(message)), summaries(message)


def test_a_second_thing_done_after_a_comma_is_its_own_clause() -> None:
    found = summaries("i don't go to the climbing gym anymore haha, cancelled my membership in May")
    assert any("cancelled" in s for s in found), found
    assert not any("anymore cancelled" in s for s in found), found


@pytest.mark.parametrize(
    ("reference", "text", "expected"),
    [
        (
            "User plays League of Legends every night.",
            "User quit lol.",
            "User quit lol.",
        ),  # lowercase, no verb shared
        (
            "User plays League of Legends every night.",
            "User doesn't play LoL now.",
            "User doesn't play League of Legends now.",
        ),
        (
            "User plays League of Legends every night.",
            "User does not play lol now.",
            "User does not play League of Legends now.",
        ),
        ("User lives in Salt Lake City.", "User moved out of SLC.", "User moved out of Salt Lake City."),
        ("User watches Doctor Who.", "User got a dog.", "User got a dog."),
    ],
)
def test_initials_are_spelled_out_only_where_they_stand_for_the_name(
    reference: str, text: str, expected: str
) -> None:
    assert spell_out(reference, text) == expected


@pytest.mark.parametrize(
    ("existing", "candidate", "relation"),
    [
        ("User plays Rocket League on weekends.", "User stopped playing RL.", "contradiction"),
        ("User is learning a Romance language.", "User is learning Portuguese.", "refinement"),
        ("User plays a brass instrument in an orchestra.", "User plays the trombone.", "refinement"),
        ("User is learning Spanish.", "User is learning Portuguese.", "new"),  # two languages, no narrowing
        ("User swims every evening.", "User switched to yoga in the evenings.", "contradiction"),
        (
            "User has piano lessons on Thursdays.",
            "User switched banks last Thursday.",
            "unsure",
        ),  # one occasion
        # a favourite is not changed by a purchase that names none
        (
            "User's go-to hiking boot is the Salomon X Ultra.",
            "User picked up some Merrell boots for winter hikes.",
            "new",
        ),
        ("User's go-to cereal is muesli.", "User's go-to cereal is granola now.", "contradiction"),
    ],
)
def test_the_judge_reads_a_change_said_another_way(existing: str, candidate: str, relation: str) -> None:
    assert str(classify(existing, candidate).relation) == relation


@pytest.mark.parametrize(
    ("first", "then", "gone", "kept"),
    [
        (
            "I keep my notes in Joplin",
            "moved everything over to Logseq, Joplin got clunky",
            "Joplin",
            "Logseq",
        ),
        (
            "I play Final Fantasy XIV most nights",
            "not playing ff anymore, cancelled the subscription",
            "most nights",
            "anymore",
        ),
    ],
)
def test_a_switch_told_casually_closes_what_it_replaces(
    mem: Memory,  # noqa: F811
    first: str,
    then: str,
    gone: str,
    kept: str,
) -> None:
    """The whole pipeline on real SQLite with the bundled embedding model."""
    active = told_in_chat(mem, first, then)
    assert not any(gone in s for s in active), active
    assert any(kept in s for s in active), active


# --- decisions and specifications told later ----------------------------------------------


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("hi, I'm Ines, 34, physiotherapist living in Braga", "User lives in Braga."),
        ("hi, I'm Ines, 34, physiotherapist living in Braga", "User is 34 years old."),
        ("plus a parrot named Kiwi", "User has a parrot named Kiwi."),
        ("Aim for 2027: run a sub-4 marathon", "User's aim for 2027 is to run a sub-4 marathon."),
        ("we're graduating on 30 June in Ghent", "User's graduation is on 30 June in Ghent."),
        ("fyi my pronouns are she/they", "User uses she/they pronouns."),
        ("quick reminder that I'm allergic to sesame", "User is allergic to sesame."),
        ("I'm actually into jazz now??", "User is into jazz now."),
        ("Manchego, that's my favourite cheese of all time", "User's favourite cheese is Manchego."),
    ],
)
def test_an_introduction_list_or_aside_is_read(message: str, expected: str) -> None:
    assert expected in summaries(message), summaries(message)


@pytest.mark.parametrize(
    "message",
    [
        "a film called Heat",  # named, but no pet or relative
        "I should switch now?",  # a real question
    ],
)
def test_a_fragment_or_question_is_not_read_as_a_fact(message: str) -> None:
    assert summaries(message) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("decided today: we're selling the caravan", "User decided that they are selling the caravan."),
        (
            "ok we've decided - a small civil ceremony in the spring",
            "User decided on a small civil ceremony in the spring.",
        ),
        (
            "alright decided, I'll take the night train to Vienna",
            "User decided that they will take the night train to Vienna.",
        ),
        ("my landlord decided, we all pay more from May", None),  # someone else's decision
    ],
)
def test_a_decision_announced_without_a_subject_is_an_outcome(text: str, expected: str | None) -> None:
    from memlane.providers.llm.episode_rules import announced

    assert announced(text) == expected


def test_a_specification_rebuilds_the_earlier_general_fact() -> None:
    from memlane.providers.llm.rules.extract import extract

    said = [
        ChatMessage(role="user", content="I play a sport most weekends"),
        ChatMessage(role="assistant", content="Nice!"),
        ChatMessage(role="user", content="to be precise it's badminton, doubles mostly"),
    ]
    assert "User plays badminton most weekends." in [c.summary for c in extract(said).candidates]
    unrelated = [
        said[0],
        said[1],
        ChatMessage(role="user", content="to be specific it's the noise that bothers me"),
    ]
    assert not any("noise" in c.summary for c in extract(unrelated).candidates)


@pytest.mark.parametrize(
    ("existing", "candidate", "relation"),
    [
        (
            "User swims before work three times a week.",
            "User does not swim anymore since their shoulder injury.",
            "contradiction",
        ),
        (
            "User used to work as a nurse at St Thomas'.",
            "User works as a pharmacist at Boots.",
            "new",
        ),  # "as a nurse" is no cause
    ],
)
def test_a_reason_for_stopping_is_not_what_was_stopped(existing: str, candidate: str, relation: str) -> None:
    assert str(classify(existing, candidate).relation) == relation


def test_a_later_decision_in_the_same_conversation_is_kept_in_the_episode(mem: Memory) -> None:  # noqa: F811
    """Real SQLite: the cooldown makes no second episode, the running one holds both outcomes."""
    at = datetime(2026, 5, 2, 18, 0, tzinfo=UTC)
    for minutes, text in (
        (0, "booked the ferry to Mull for the first week of July"),
        (4, "ok decided, we'll camp near Tobermory instead of a B&B"),
    ):
        mem.capture_turn(
            [ChatMessage(role="user", content=text)],
            user_id=U,
            thread_id="trip",
            at=at.replace(minute=minutes),
            wait=True,
        )
    [episode] = [r for r in mem.list(user_id=U) if r.type.value == "episodic"]
    assert "Mull" in episode.summary and "Tobermory" in episode.summary, episode.summary


def test_a_specification_in_a_later_conversation_refines_the_stored_fact(mem: Memory) -> None:  # noqa: F811
    """Real SQLite: the stored general fact is found by its general word and replaced by the specific one."""
    _say(mem, "I play an instrument in a brass band", 1)
    mem.add(
        [ChatMessage(role="user", content="to be precise it's the tuba")],
        user_id=U,
        thread_id="later",
        at=datetime(2026, 5, 20, 9, tzinfo=UTC),
        wait=True,
    )
    active = [r.summary for r in mem.list(user_id=U)]
    assert any("tuba" in s for s in active), active
    assert not any("an instrument" in s for s in active), active


@pytest.mark.parametrize(
    ("existing", "candidate", "relation"),
    [
        ("User prefers reading on paper.", "User prefers reading on a tablet.", "contradiction"),
        (
            "User enjoys walking in the Cotswolds.",
            "User enjoys walking in the Chilterns.",
            "new",
        ),  # both can hold
        ("User drinks tea.", "User drinks about three mugs of tea a day.", "refinement"),
        (
            "User earned the RYA Day Skipper certificate.",
            "User is now a certified RYA Day Skipper.",
            "unsure",
        ),  # "now": a change
        (
            "User earned the RYA Day Skipper certificate.",
            "User got certified as an RYA Day Skipper.",
            "redundancy",
        ),
    ],
)
def test_a_value_swapped_an_amount_added_or_a_named_thing_retold(
    existing: str, candidate: str, relation: str
) -> None:
    assert str(classify(existing, candidate).relation) == relation


@pytest.mark.parametrize(
    ("existing", "candidate", "relation"),
    [
        ("User lives in a cottage near Keswick.", "User moved to a flat outside Penrith.", "contradiction"),
        ("User lives in Keswick.", "User moved their pension to Aviva.", "new"),  # a move of something else
        ("User's brother lives in Keswick.", "User moved to Penrith.", "new"),  # someone else's home
    ],
)
def test_a_move_to_another_named_place_is_a_new_home(existing: str, candidate: str, relation: str) -> None:
    assert str(classify(existing, candidate).relation) == relation


def test_who_plays_an_instrument_is_named_after_it() -> None:
    from memlane.providers.llm.rules.compare import stem

    assert stem("violinist") == stem("violin") and stem("drummer") == stem("drums")


# --- values swapped, moves, instruments and medicines ----------------------------------------------


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("btw I'm on ramipril for my blood pressure", "User is on ramipril for their blood pressure."),
        ("I'm on sertraline", "User is on sertraline."),
        ("no longer at the garden centre", "User is no longer at the garden centre."),
        ("and a corn snake named Pretzel who mostly sleeps", "User has a corn snake named Pretzel."),
    ],
)
def test_a_medicine_a_fragment_or_a_pet_with_a_relative_clause_is_read(message: str, expected: str) -> None:
    assert expected in summaries(message), summaries(message)


def test_being_somewhere_is_not_a_medicine_or_a_home() -> None:
    assert summaries("I'm on holiday") == [] and summaries("not at home right now") == []


@pytest.mark.parametrize(
    ("existing", "candidate", "relation"),
    [
        ("User works as a postman in Leith.", "User retired last month after 30 years.", "contradiction"),
        ("User sings in a gospel choir.", "User retired last month.", "new"),  # a pastime is not a living
        ("User works as a postman.", "User retired from the darts team.", "new"),
        (
            "User has three sugars in their coffee.",
            "User does not take sugar in their coffee now, dentist's advice.",
            "contradiction",
        ),
    ],
)
def test_retiring_ends_a_living_and_a_comment_after_a_comma_is_not_what_stopped(
    existing: str, candidate: str, relation: str
) -> None:
    assert str(classify(existing, candidate).relation) == relation


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("I'm Galway-based, if that helps with shipping", ["User lives in Galway."]),
        ("home for us is Tallinn these days", ["User lives in Tallinn."]),
        ("Firefox is just better for me, honestly", ["User prefers Firefox."]),
        (
            "draft an email that starts with 'I have worked at Google for ten years'",
            [],
        ),  # words for the assistant
    ],
)
def test_a_home_said_another_way_a_preference_or_a_quotation(message: str, expected: list[str]) -> None:
    found = summaries(message)
    assert all(e in found for e in expected) and (expected or found == []), found


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("since the move I can't stand the tube anymore", "User cannot stand the tube anymore."),
        (
            "now that the kids are older I have to admit I prefer quiet holidays",
            "User prefers quiet holidays.",
        ),
    ],
)
def test_what_led_to_a_statement_and_a_hedge_before_it_are_left_out(message: str, expected: str) -> None:
    assert expected in summaries(message), summaries(message)


def test_an_obligation_is_not_a_lasting_statement() -> None:
    assert summaries("I must say goodbye now") == []


@pytest.mark.parametrize(
    ("existing", "candidate", "relation"),
    [
        ("User cannot stand war films anymore.", "User is back to loving war movies.", "contradiction"),
        ("User prefers iOS.", "User prefers Android now.", "contradiction"),
    ],
)
def test_films_are_movies_and_a_phone_system_is_one_at_a_time(
    existing: str, candidate: str, relation: str
) -> None:
    assert str(classify(existing, candidate).relation) == relation
