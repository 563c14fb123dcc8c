"""Times, names and precision (the phrasings are our own, not any scenario set's).

Judge: a time said more or less precisely is one time ("Saturday mornings" / "Saturdays" / "weekends"); a
name written with a hyphen or a space is one name; "not playing X anymore" retires a habit that names X with
another verb; a statement that repeats a stored one with a number or a name more replaces it instead of
merging into it. Extraction: an interjection ("lol,", "smh,") ends a clause; leaving a named employer, a
standing constraint ("I must avoid ..."), a diet held "at the moment", quitting a diet or a habit (a lasting
fact, not an episode), "heads up," as a filler, a standing listening or reading habit.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memlane import Memory
from memlane.formation.text import says_more
from memlane.providers.llm.rules.conflict import classify
from memlane.providers.llm.rules.when import times_differ
from tests.test_rules_chat_changes import mem, told_in_chat  # noqa: F401 (mem is a fixture)
from tests.test_rules_chat_register import summaries


@pytest.mark.parametrize(
    ("old", "new", "differ"),
    [
        ({"saturday morning"}, {"saturday"}, False),  # the same day, said more precisely
        ({"weekend"}, {"sunday"}, False),  # a day inside the span
        ({"weekday"}, {"tuesday evening"}, False),
        ({"monday"}, {"thursday"}, True),
        ({"saturday"}, {"weekday"}, True),
        ({"monday", "wednesday"}, {"monday"}, True),  # a day dropped is a change
        (set(), {"friday"}, False),  # one side says no time: nothing to compare
    ],
)
def test_times_differ_only_when_one_falls_outside_the_other(
    old: set[str], new: set[str], differ: bool
) -> None:
    assert times_differ(frozenset(old), frozenset(new)) is differ


@pytest.mark.parametrize(
    ("existing", "candidate", "relation"),
    [
        # one time said more or less precisely does not make two facts: the similarity decides (unsure)
        (
            "User referees under-12 rugby on Sunday mornings.",
            "User is a volunteer rugby referee for under-12s on Sundays.",
            "unsure",
        ),
        ("User helps at the weekend food bank.", "User helps at the food bank every Saturday.", "unsure"),
        # ... two times that do not overlap are two facts
        ("User runs 8 km on weekdays.", "User runs 20 km on Sundays.", "new"),
        # one name written with a hyphen or a space
        ("User's blood group is B-positive.", "User has B positive blood, confirmed by their GP.", "unsure"),
        # stopping an activity named with another verb
        (
            "User plays ranked Overwatch most evenings.",
            "User is not playing Overwatch anymore.",
            "contradiction",
        ),
        (
            "User spends every evening grinding Rocket League.",
            "User is not playing Rocket League anymore.",
            "contradiction",
        ),
        # ... not when the stored one does it another way
        ("User watches rugby every Saturday.", "User does not play rugby anymore.", "unsure"),
        ("User left DPD.", "User left DPD.", "redundancy"),
        ("User works as a courier for Evri.", "User left Evri.", "contradiction"),
        # a year of study is held one at a time, whatever else each statement says
        ("User is a second-year vet student in Bristol.", "User is a third-year now.", "contradiction"),
        ("User is a second-year vet student.", "User also tutors a first-year.", "new"),
        # a number that describes a kind is no amount; an amount the stored statement lacks is no restatement
        ("User rents a two-bed flat in Salford.", "User's rent is £980 a month.", "unsure"),
        ("User drives a 4-door Golf.", "User drives a 2-door Golf now.", "contradiction"),
        # one word more that names a kind of the thing refines it; a manner word does not
        ("User reads a lot of fantasy.", "User reads a lot of grimdark fantasy.", "refinement"),
        ("User is into fishing.", "User is into carp fishing.", "refinement"),
        ("User lives in Leeds.", "User happily lives in Leeds.", "redundancy"),
        # when the user is at their best: one slot however it is said (our own words)
        (
            "User is an early riser.",
            "User is a morning person, up at 5 most days.",
            "refinement",
        ),  # with a time
        (
            "User is a night owl.",
            "User rarely gets to bed before 1am, it is normal for them.",
            "unsure",
        ),  # no pattern
        ("User usually stays up till 3am gaming.", "User is a real night owl.", "redundancy"),
        (
            "User is a real night owl.",
            "User usually stays up till 3am gaming.",
            "refinement",
        ),  # with a time: more precise
        (
            "User is not a morning person at all.",
            "User does their best thinking after midnight.",
            "refinement",
        ),
        (
            "User does their best thinking after midnight.",
            "User is not a morning person at all.",
            "redundancy",
        ),
        ("User is a night owl.", "User has become an early bird since the baby arrived.", "contradiction"),
        ("User's flatmate Priya is a night owl.", "User is an early bird.", "new"),  # someone else's habit
        # the time the user gets up, however it is said
        ("User's alarm is set for 6:45 on weekdays.", "User gets up at 6:45 every weekday.", "redundancy"),
        ("User wakes up at 6.45.", "User gets up at 7:30 now that they work from home.", "contradiction"),
        ("User gets up at 6:45.", "User's daughter gets up at 6:45.", "new"),  # someone else
        ("User wakes up at 6:30 on weekdays.", "User goes to bed at 10:30 on weekdays.", "new"),  # two slots
        ("User goes to bed at 11pm.", "User gets up at 7am.", "new"),
        # a habit moved to another part of the day
        (
            "User trains at the gym in the mornings before work.",
            "User switched to training at the gym during the lunch break.",
            "contradiction",
        ),
    ],
)
def test_the_judge_compares_values_not_their_wording(existing: str, candidate: str, relation: str) -> None:
    verdict = classify(existing, candidate)
    assert verdict.relation == relation, verdict.reason


@pytest.mark.parametrize(
    ("existing", "candidate", "more"),
    [
        ("User keeps chickens in the garden.", "User keeps four hens in the garden.", True),
        ("User has a sister.", "User has a sister called Inés.", True),
        ("User has a sister called Inés.", "User has a sister.", False),  # says less
        ("User works at Kwik Fit.", "User works at Halfords.", False),  # another value, not more
        ("User has 2 cats.", "User has 2 cats and 1 dog.", True),
    ],
)
def test_says_more_keeps_every_value_and_adds_one(existing: str, candidate: str, more: bool) -> None:
    assert says_more(existing, candidate) is more


def test_the_same_fact_told_with_a_number_more_keeps_the_more_precise_words(mem: Memory) -> None:  # noqa: F811
    """Facts as an LLM extractor proposes them: the second is the first with a count. They merge into one
    memory (same id, importance and pin kept), which now reads as the more precise one, and is found by it;
    its history keeps the words it had."""
    for day, text in (
        (1, "User keeps chickens in their back garden."),
        (9, "User keeps five hens in their back garden."),
    ):
        mem.add_facts(
            [{"summary": text, "type": "semantic", "category": "Personal", "importance": 4 - day // 9}],
            user_id="u",
            at=datetime(2026, 4, day, tzinfo=UTC),
            wait=True,
        )
    (only,) = mem.list(user_id="u")
    assert only.summary == "User keeps five hens in their back garden." and only.importance == 4
    rows = mem.history(only.id, user_id="u")
    assert rows[-1].event.value == "MERGE"
    assert rows[-1].old_value is not None and "chickens" in rows[-1].old_value["summary"]
    assert mem.search("how many hens do I keep?", user_id="u")[0].memory.id == only.id


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            "also started learning the ukulele lol, parkrun still every saturday tho",
            "User started learning the ukulele.",
        ),
        ("I left Tesco last month, I'm a postie now", "User left Tesco"),
        (
            "Important: I must avoid liquorice because of my blood pressure tablets",
            "User must avoid liquorice",
        ),
        ("I need to stay off caffeine for a while", "User needs to stay off caffeine"),
        ("i'm doing paleo at the moment", "User is doing paleo"),
        ("quit paleo, it was too expensive", "User quit paleo"),
        ("heads up, pottery class moved to wednesdays", "User's pottery class is on Wednesdays"),
        ("i listen to a lot of k-pop", "User listens to a lot of k-pop"),
        ("I read a lot of sci-fi", "User reads a lot of sci-fi"),
        # a name told in the next sentence, or with a pronoun, names what was just introduced
        ("we just got a tortoise!! his name is Gustav", "User has a tortoise named Gustav."),
        ("I adopted a rescue greyhound. She's called Pepper.", "User has a rescue greyhound named Pepper."),
        # starting a school year is being in it; another subject after "and" is another clause
        ("my eldest just started Year 7 and the bus ride is killing me", "User's eldest is in Year 7."),
        (
            "my oven is ancient and the dial is in fahrenheit",
            "User's oven is ancient and the dial is in fahrenheit.",
        ),
        ("my son moved up to third grade", "User's son is in third grade."),
        ("I lease a two-bed flat in Salford and the rent is £980 a month", "User's rent is £980 a month."),
        (
            "I've got about £2,500 in a stocks and shares ISA",
            "User has got about £2,500 in a stocks and shares ISA.",
        ),
        # how to explain, said as a directive or as how the user learns best ("step by step" is one word)
        (
            "when you explain statistics, walk me through it step by step",
            "User prefers explanations step-by-step.",
        ),
        (
            "i understand best when you explain things with analogies",
            "User prefers explanations with analogies.",
        ),
        # a thing disposed of, then what the user has now: one change
        (
            "sold the motorbike, so I take the train now",
            "User takes the train now, having sold the motorbike.",
        ),
        # two clauses of one message about when the user is at their best are one memory
        (
            "I'm a total night owl, I'm usually up until 3am",
            "User is a total night owl and they are usually up until 3am.",
        ),
        (
            "When you plan my runs, please use kilometres, not miles",
            "User prefers answers in kilometres.",
        ),  # last comma first
    ],
)
def test_a_statement_said_the_way_people_type_is_kept(message: str, expected: str) -> None:
    assert any(s.startswith(expected) for s in summaries(message)), summaries(message)


def test_quitting_a_diet_is_a_lasting_fact_and_quitting_a_job_an_event() -> None:
    from memlane.model.candidate import ChatMessage
    from memlane.providers.llm.rules.extract import extract

    diet = extract([ChatMessage(role="user", content="quit paleo, it was too expensive")]).candidates
    job = extract([ChatMessage(role="user", content="I quit my job at the bakery")]).candidates
    assert [c.type.value for c in diet] == ["semantic"]
    assert [c.type.value for c in job] == ["episodic"]


def test_money_put_away_is_filed_under_finance() -> None:
    from memlane.model.candidate import ChatMessage
    from memlane.providers.llm.rules.extract import extract

    said = extract([ChatMessage(role="user", content="I've got about £2,500 in premium bonds")]).candidates
    assert [c.category for c in said] == ["Finance"]


@pytest.mark.parametrize(
    ("clause", "stored", "updated"),
    [
        (
            "I'm officially a third-year now",
            "User is a second-year vet student in Bristol.",
            "User is a third-year vet student in Bristol now.",
        ),
        (
            "my daughter is in fifth grade now",
            "User's daughter is in fourth grade.",
            "User's daughter is in fifth grade now.",
        ),
        (
            "it's my third year of running now",
            "User is a second-year vet student in Bristol.",
            None,
        ),  # another year
        ("I'm a third-year", "User is a second-year vet student in Bristol.", None),  # no change said
        # a day of the week held by a habit, changed when said to change
        (
            "they moved bell-ringing practice again, it is mondays now",
            "User's bell-ringing practice is on Wednesdays.",
            "User's bell-ringing practice is on Mondays now.",
        ),
        ("I went to bell-ringing practice on monday", "User's bell-ringing practice is on Wednesdays.", None),
    ],
)
def test_a_new_year_of_study_restates_the_stored_one(clause: str, stored: str, updated: str | None) -> None:
    from memlane.providers.llm.rules import updates
    from memlane.providers.llm.rules.text import expand_contractions

    assert updates.propose(expand_contractions(clause), [stored], {}) == updated


def test_it_stands_for_a_pet_never_for_a_person() -> None:
    """ "it" after a clause about the user's children is not about the children."""
    from memlane.model.candidate import ChatMessage
    from memlane.providers.llm.rules.extract import extract

    said = extract(
        [
            ChatMessage(role="user", content="my daughters Ivy and Mae are in Year 3"),
            ChatMessage(role="user", content="anyway it's spelling tests this week"),
        ]
    ).candidates
    assert not any("Ivy" in c.summary or "daughters" in c.summary for c in said), [c.summary for c in said]


@pytest.mark.parametrize(
    "message",
    [
        "I must say that was quick",
        "I need a minute",
        "I watch it sometimes",
        "I should head off",
        "lol, ok",
        "a table for two please",
        "coffee please",
        "and in Italian pls",
    ],
)  # a follow-up request, not a standing style
def test_a_request_or_a_remark_stores_nothing(message: str) -> None:
    assert summaries(message) == []


def test_a_message_flagged_important_is_stored_as_important() -> None:
    from memlane.model.candidate import ChatMessage
    from memlane.providers.llm.rules.extract import extract

    flagged = extract(
        [ChatMessage(role="user", content="Important: I must avoid liquorice because of my tablets")]
    )
    plain = extract([ChatMessage(role="user", content="I must avoid liquorice because of my tablets")])
    assert [c.importance for c in flagged.candidates] == [4]
    assert [c.importance for c in plain.candidates] == [2]


@pytest.mark.parametrize(
    ("first", "then", "kept"),
    [
        # the specification last, and what follows the thing left out of it
        (
            "I'm into sailing.",
            "Well, dinghy sailing on the lake, to be specific.",
            "User is into dinghy sailing.",
        ),
        (
            "i listen to a lot of jazz",
            "more specifically it's gypsy jazz i'm into",
            "User listens to a lot of gypsy jazz.",
        ),
    ],
)
def test_a_specification_replaces_the_general_fact(
    mem: Memory,  # noqa: F811
    first: str,
    then: str,
    kept: str,
) -> None:
    assert told_in_chat(mem, first, then) == [kept]


@pytest.mark.parametrize(
    ("first", "then", "kept", "gone"),
    [
        # leaving the named employer ends the job told with it
        (
            "I drive a lorry for Eddie Stobart",
            "Quick update: I left Eddie Stobart in May. I'm a taxi driver now",
            "taxi driver",
            "lorry",
        ),
        # a thing disposed of and its replacement in one message: the old one goes, no disposal memory stays
        (
            "I ride a Vespa to work",
            "got rid of the vespa, so I'm cycling to work now",
            "cycling",
            "Vespa to work",
        ),
        # stopping a game named with another verb
        (
            "i'm grinding ranked fortnite every night rn",
            "not playing fortnite anymore, deleted it for exams",
            "fortnite anymore",
            "grinding",
        ),
    ],
)
def test_a_later_message_replaces_what_it_ends(
    mem: Memory,  # noqa: F811
    first: str,
    then: str,
    kept: str,
    gone: str,
) -> None:
    active = told_in_chat(mem, first, then)
    assert any(kept in s for s in active), active
    assert not any(gone in s for s in active), active


def test_a_second_hobby_after_an_interjection_keeps_the_first(mem: Memory) -> None:  # noqa: F811
    active = told_in_chat(
        mem,
        "i do boxing twice a week",
        "also started painting minis to chill lol, boxing still twice a week tho",
    )
    assert any("boxing twice a week" in s for s in active), active
    assert any("painting minis" in s for s in active), active
