"""Tools, parts of a whole and styles of answers, tested with people, values and phrasings of
their own: tools held one at a time (trackers, password managers, carriers, editors of two words), parts of a
named whole (cuisines by region), kinds of water and winter sports, "too busy" is no addition, styles of
answers read by the end of their scale, and the chat phrasings (time tails, pseudo-clefts, favourites named
first, switching back, a dropped "I am", "I live in X with my Y", prices and explanations asked for)."""

from __future__ import annotations

import pytest

from memlane import Memory
from memlane.providers.llm.rules.conflict import classify
from memlane.providers.llm.rules.same_fact import same_fact
from tests.test_rules_chat_changes import U, _say, mem  # noqa: F401 (mem is a fixture)
from tests.test_rules_chat_register import summaries


@pytest.mark.parametrize(
    ("existing", "candidate"),
    [
        ("User organises sprints in Trello.", "User's company migrated project tracking to Asana."),
        ("User keeps passwords in 1Password.", "User moved their passwords over to Bitwarden."),
        ("User's mobile contract is with EE.", "User switched their phone plan to giffgaff."),
        ("User writes code in Visual Studio Code.", "User adopted Zed as their editor."),
    ],
)
def test_a_tool_held_one_at_a_time_is_replaced_by_another_of_its_kind(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation == "contradiction"


def test_an_employer_that_is_also_a_carrier_is_no_carrier() -> None:
    assert classify(
        "User works at EE as an engineer.", "User's phone contract is with giffgaff."
    ).relation != ("contradiction")


def test_too_busy_is_a_reason_not_an_addition() -> None:
    verdict = classify(
        "User plays trombone in a brass band.", "User is no longer in the band, too busy with work."
    )
    assert verdict.relation == "contradiction"


@pytest.mark.parametrize(
    ("existing", "candidate"),
    [
        ("User likes Indian food.", "User loves Keralan cooking."),
        ("User likes Mexican food.", "User loves Oaxacan mole."),
        ("User is really into water sports.", "User goes windsurfing every Saturday."),
    ],
)
def test_a_part_or_a_kind_of_the_general_value_refines_it(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation == "refinement"


@pytest.mark.parametrize(
    ("existing", "candidate"),
    [
        ("User likes Thai food.", "User loves Italian food."),  # two wholes: both hold
        ("User likes Indian food.", "User does not like Keralan food."),  # an exception, no refinement
    ],
)
def test_another_whole_or_a_disliked_part_is_no_refinement(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation != "refinement"


@pytest.mark.parametrize(
    ("existing", "candidate"),
    [
        ("User prefers concise answers.", "User hates long, verbose replies."),
        (
            "User would like recipes in grams rather than cups.",
            "User wants the assistant to use metric units.",
        ),
    ],
)
def test_one_end_of_a_style_asked_for_twice_is_one_fact(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation == "redundancy"
    assert same_fact(existing, candidate).same_fact


def test_the_other_end_of_a_style_is_a_change() -> None:
    verdict = classify(
        "User wants measurements in imperial units.", "User prefers the assistant to use metric now."
    )
    assert verdict.relation == "contradiction"


def test_a_short_walk_is_no_style_of_answers() -> None:
    assert (
        classify("User lives a short walk from the office.", "User prefers long answers.").relation
        != "redundancy"
    )


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("I went vegan in the middle of June", "User is vegan."),
        ("What I really enjoy is bouldering", "User really enjoys bouldering."),
        ("Sufjan Stevens is my favourite singer", "User's favourite singer is Sufjan Stevens."),
        ("Switched back to oat milk.", "User switched back to oat milk."),
        ("Also allergic to cats, sadly.", "User is allergic to cats, sadly."),
        ("pls always quote me prices in yen", "User prefers answers in yen."),
        ("explain stuff to me like I'm a newbie", "User prefers explanations for a newbie."),
    ],
)
def test_chat_phrasings_are_read(message: str, expected: str) -> None:
    assert expected in summaries(message)


def test_living_somewhere_with_someone_is_two_facts() -> None:
    assert summaries("I live in Tromsø with my partner") == [
        "User lives in Tromsø.",
        "User lives with their partner.",
    ]


@pytest.mark.parametrize("message", ["Switched it off.", "I switched to the other tab to check"])
def test_switching_to_nothing_that_holds_is_not_stored_as_a_switch(message: str) -> None:
    assert not any("switched to" in s.lower() and "tab" not in s for s in summaries(message))


def test_a_kind_named_later_replaces_the_general_interest_even_far_in_meaning(mem: Memory) -> None:  # noqa: F811
    """ "into water sports" and "go windsurfing" are far apart for the embedding model (under the floor); the
    refinement still closes the general memory, through extraction, decision and SQLite."""
    _say(mem, "I'm really into water sports.", 1)
    _say(mem, "Mostly I go windsurfing, most Saturdays when the wind is up.", 8)
    active = [r.summary for r in mem.list(user_id=U)]
    assert any("windsurfing" in s for s in active), active
    assert not any("water sports" in s for s in active), active


def test_a_flip_flop_between_workout_times_keeps_the_last(mem: Memory) -> None:  # noqa: F811
    _say(mem, "I work out in the evenings after work.", 1)
    _say(mem, "I've started working out in the mornings instead.", 4)
    _say(mem, "Switched back to evening workouts.", 9)
    active = [r.summary for r in mem.list(user_id=U)]
    assert any("evening" in s for s in active), active
    assert not any("morning" in s for s in active), active


@pytest.mark.parametrize(
    ("existing", "candidate", "relation"),
    [
        ("User has a pet tortoise.", "User's tortoise is a Hermann's tortoise named Shelly.", "refinement"),
        ("User's tortoise is a Hermann's tortoise named Shelly.", "User has a pet tortoise.", "redundancy"),
    ],
)
def test_the_pet_the_user_has_told_with_its_kind_or_name(
    existing: str, candidate: str, relation: str
) -> None:
    assert classify(existing, candidate).relation == relation


def test_the_pet_at_the_vet_is_no_refinement_of_having_one() -> None:
    assert classify("User has a pet tortoise.", "User's tortoise is at the vet.").relation != "refinement"


def test_when_an_activity_is_liked_is_when_it_is_done() -> None:
    assert same_fact("User prefers cycling in the evening.", "User usually cycles in the evening.").same_fact
    assert not same_fact(
        "User likes jazz.", "User plays jazz."
    ).same_fact  # what is liked is not what is done


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("I've warmed to podcasts, I actually enjoy them now", "User enjoys podcasts now."),
        ("ok so, sardines are back on my plate - i love them again", "User loves sardines again."),
    ],
)
def test_them_after_a_stance_is_the_plural_just_named(message: str, expected: str) -> None:
    assert expected in summaries(message)


@pytest.mark.parametrize(
    ("message", "kept", "dropped"),
    [
        ("I swim every morning, it's the best part of my day", "User swims every morning.", "best part"),
        (
            "back to hating celery, had a really stringy one at lunch",
            "User is back to hating celery.",
            "stringy",
        ),
    ],
)
def test_a_comment_after_a_comma_is_not_part_of_the_fact(message: str, kept: str, dropped: str) -> None:
    found = summaries(message)
    assert kept in found and not any(dropped in s for s in found)


def test_a_value_after_its_is_kept_with_the_fact() -> None:
    assert "User's rent is £1,200 a month now." in summaries(
        "the landlord raised my rent, it's £1,200 a month now"
    )


@pytest.mark.parametrize("message", ["I put them in everything", "use the bike with me"])
def test_put_without_money_and_use_without_units_are_no_preferences(message: str) -> None:
    assert not any("invest" in s or "answers" in s for s in summaries(message))


def test_units_asked_for_with_please_lean_like_a_stated_preference() -> None:
    assert (
        classify(
            "User prefers answers in metric units.", "User is a metric person, litres and kilograms please."
        ).relation
        == "redundancy"
    )


def test_a_comma_after_my_something_still_ends_the_clause() -> None:
    """ "my hours changed, I'm on nights now": the exemption for "my husband and I ..." is for "and" only."""
    assert "User is on earlies now, 6am to 2pm." in summaries(
        "my rota changed, I'm on earlies now, 6am to 2pm"
    )
    assert summaries("my husband and I live in Ghent") == ["User and their husband live in Ghent."]


def test_lates_and_earlies_are_shifts_held_one_at_a_time() -> None:
    assert classify("User works the late shift at the warehouse.", "User is on earlies now.").relation == (
        "contradiction"
    )


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("officially a vegetarian now", "User is officially a vegetarian now."),
        ("finally a homeowner!", "User is finally a homeowner."),
    ],
)
def test_a_dropped_i_am_before_a_new_status_is_read(message: str, expected: str) -> None:
    assert expected in summaries(message)


def test_a_family_role_is_no_job() -> None:
    assert not any("works as" in s for s in summaries("I'm an aunt now"))
