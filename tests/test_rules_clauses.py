"""How a message is cut and rewritten before the rules read it: introductions that list several facts
in one clause (rules/intro.py) are read item by item, a clause that lists none is left alone, and an
amount said after a change belongs to what changed."""

from __future__ import annotations

import pytest

from memlane.model.candidate import ChatMessage
from memlane.providers.llm.rules.extract import extract
from memlane.providers.llm.rules.intro import expand


def summaries(message: str) -> list[str]:
    return [c.summary for c in extract([ChatMessage(role="user", content=message)]).candidates]


@pytest.mark.parametrize(
    ("message", "wanted"),
    [
        (
            "Hi! I'm Oskar, 52, structural engineer from Gdansk, divorced",
            ["User's name is Oskar.", "User is 52 years old.", "User is divorced."],
        ),
        (
            "A bit about me: 38, pescatarian, live in Ghent, work at Barco as a technician.",
            ["User is 38 years old.", "User lives in Ghent.", "User works at Barco as a technician."],
        ),
        ("My name is Dalia and I'm a midwife in Cairo", ["User's name is Dalia."]),
        (
            "hello - I'm Wren - I restore old furniture and I have a greyhound called Pip",
            ["User's name is Wren.", "User has a greyhound named Pip."],
        ),
        ("I'm a 61-year-old farmer living in Cumbria", ["User lives in Cumbria."]),
        # an intro marker before the user's own "I'm ...", and items joined by "and" before a gerund
        (
            "hiya, short intro: I'm Bartek, 29, based in Gdynia and working as a welder",
            [
                "User's name is Bartek.",
                "User is 29 years old.",
                "User lives in Gdynia.",
                "User works as a welder.",
            ],
        ),
        (
            "A little about me: I'm a tram driver, I'm lactose intolerant, and I have a parrot called Kiwi.",
            ["User works as a tram driver.", "User has a parrot named Kiwi."],
        ),
    ],
)
def test_each_listed_fact_is_read(message: str, wanted: list[str]) -> None:
    got = summaries(message)
    assert set(wanted) <= set(got), got


@pytest.mark.parametrize(
    "clause",
    [
        "I am so tired, honestly",
        "I am in Paris, for a conference",
        "I am studying for an MBA part-time",
        "I am a nurse",
    ],
)
def test_a_clause_that_lists_no_facts_is_left_alone(clause: str) -> None:
    assert expand(clause) == [clause]


@pytest.mark.parametrize(
    ("message", "wanted"),
    [
        ("our mortgage dropped, we now pay £900 a month", "User's mortgage is £900."),
        ("the nursery fee went up again, it's 620 euros now", "User's nursery fee is 620 euros."),
    ],
)
def test_an_amount_after_a_change_belongs_to_what_changed(message: str, wanted: str) -> None:
    assert wanted in summaries(message)


def test_a_change_without_an_amount_states_nothing() -> None:
    assert summaries("prices went up, it is crazy") == []


@pytest.mark.parametrize(
    ("message", "wanted"),
    [
        # a pronoun after a comma starts its own clause, about whoever the clause before it named
        ("my nephew Tariq just started school, he's 4", "User's nephew Tariq is 4 years old."),
        # someone's possessive: what is theirs
        (
            "my cousin Ines's wedding is on September 6th in Porto",
            "User's cousin Ines's wedding is on September 6th in Porto.",
        ),
        # rent is money with no currency named; a rate is a habit however it is dated
        ("Our rent is 780 a month.", "User's rent is 780 a month."),
        ("I'm swimming about 3 km a week at the moment", "User is swimming about 3 km a week at the moment."),
        # a pet named with a pronoun, details after it
        ("he's a whippet called Dart, 3 and very lazy", "User has a whippet named Dart."),
        # a leading "before I turn 50" is the goal's deadline
        (
            "By the time I retire I want to have sailed to the Azores.",
            "User wants to have sailed to the Azores by the time they retire.",
        ),
        # a rule reads what comes before a trailing elaboration
        (
            "to be more specific, I'm a sonographer at Leeds General, mostly obstetrics",
            "User works as a sonographer at Leeds General.",
        ),
        # "started as" a role is the job now; a bare "started" only right before "as"
        (
            "this month I started as a staff nurse at Guy's Hospital",
            "User works as a staff nurse at Guy's Hospital.",
        ),
        (
            "Quit Ocado in March, and last week I started as a buyer at Marks and Spencer.",
            "User works as a buyer at Marks and Spencer.",
        ),
    ],
)
def test_plain_facts_an_update_builds_on(message: str, wanted: str) -> None:
    assert wanted in summaries(message)


def test_a_known_someone_s_possessive_is_theirs() -> None:
    turns = [
        "my son Felix's school play is at the town hall",
        "change of plan, Felix's play is at the church now",
    ]
    result = extract([ChatMessage(role="user", content=t) for t in turns])
    assert [c.summary for c in result.candidates] == ["User's son Felix's play is at the church."]


def with_stored(stored: list[str], message: str) -> list[str]:
    return [c.summary for c in extract([ChatMessage(role="user", content=message)], stored).candidates]


@pytest.mark.parametrize(
    ("stored", "message", "wanted"),
    [
        # a birthday told with the new age after it, or as an ordinal "bday"; a known name written lower-case
        ([], "celebrated my birthday on tuesday, 38 now", "User is 38 years old."),
        (
            ["User's son Amir is 6 years old."],
            "Amir had his birthday at the weekend, he is 7 now!",
            "User's son Amir is 7 years old.",
        ),
        (
            ["User's dog Pickle is 3 years old."],
            "pickle had his 4th bday yesterday",
            "User's dog Pickle is 4 years old.",
        ),
        # "not ...ing anymore" without a subject is the user stopping it
        ([], "not climbing anymore, my shoulder can't take it", "User stopped climbing."),
        ([], "I'm no longer skating", "User stopped skating."),
        # "name's X, ..." lists facts like "I'm X, ..."; "a web dev" is a developer
        ([], "hi, name's Ilse, 44, living in Utrecht, web dev", "User works as a web developer."),
        ([], "name's Teodor, 35, living in Cluj", "User is 35 years old."),
        # a leading time is not the subject; "an agency called X" is X; handing in one's notice is quitting
        ([], "last week I joined a tiny design agency called Foldline", "User works at Foldline."),
        (
            [],
            "yesterday I handed in my resignation at Deloitte, and on Friday I started at Kinto",
            "User works at Kinto.",
        ),
    ],
)
def test_a_terse_chat_statement_reads_as_its_plain_fact(stored: list[str], message: str, wanted: str) -> None:
    assert wanted in with_stored(stored, message)


@pytest.mark.parametrize(
    "message",
    [
        "not going anymore, too far",
        "had my birthday party at the pub",
        "this is where I read",
        "the dev team is small",
    ],
)
def test_terse_statements_that_say_no_such_fact(message: str) -> None:
    got = with_stored([], message)
    assert not any(("stopped" in s or "years old" in s or "developer" in s) for s in got), got


def test_a_negative_reason_beside_a_request_about_answers_is_not_a_second_memory() -> None:
    assert with_stored([], "Keep your replies short please, I don't need the backstory every time.") == [
        "User prefers short replies."
    ]
    # beside another kind of fact, the same negative statement stays
    assert "User does not need long explanations." in with_stored(
        [], "I'm a nurse in Bergen, I don't need long explanations"
    )


def test_started_doing_something_as_a_way_is_no_job() -> None:
    assert not any("works as" in s for s in with_stored([], "I started running as a way to unwind"))
