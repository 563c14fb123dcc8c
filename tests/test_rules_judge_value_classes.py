"""The offline judge: mechanisms for classes of values, written with other people, values, verbs
and domains than any scenario set. Each mechanism has a few varied pairs and pairs it must not fire on."""

from __future__ import annotations

import pytest

from memlane.providers.llm.rules import RulesLLM
from memlane.providers.llm.rules.conflict import classify
from memlane.providers.llm.rules.same_fact import same_fact

LLM = RulesLLM()

# A named drink or food is a member of its group by class (grapes, beer styles, spirits, cheeses), so a
# state or a habit given up retires it; the words of the group are implied terms for the keyword search.
GROUP_RETIRED = [
    ("User's go-to order is a Malbec with steak.", "User has been teetotal since March."),
    ("User unwinds with a pint of Guinness on Fridays.", "User is sober now."),
    ("User's favourite cocktail is a negroni.", "User gave up alcohol for good."),
    ("User sips mezcal at weekend parties.", "User quit drinking alcohol entirely."),
    ("User puts paneer in every curry.", "User went vegan last month."),
    ("User loves a slice of brie after dinner.", "User has gone dairy-free."),
    ("User grills mackerel every Sunday.", "User became vegetarian."),
]
GROUP_KEPT = [
    ("User drinks green tea every morning.", "User stopped drinking alcohol."),  # another drink
    ("User lives in Bordeaux.", "User is teetotal now."),  # a place is no wine
    ("User loves cheese.", "User can't stand feta."),  # one cheese disliked under cheese: both hold
    ("User loves beer.", "User hates IPA."),
    ("User bakes sourdough every weekend.", "User went vegan last month."),
]


@pytest.mark.parametrize(("existing", "candidate"), GROUP_RETIRED)
def test_a_member_of_a_food_or_drink_group_is_retired_with_the_group(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation == "contradiction"


@pytest.mark.parametrize(("existing", "candidate"), GROUP_KEPT)
def test_another_food_a_place_or_an_exception_stays(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation != "contradiction"


def test_giving_up_a_habit_names_its_drinks_for_the_keyword_search() -> None:
    terms = set(LLM.implied_terms("User has stopped drinking alcohol completely."))
    assert {"merlot", "guinness", "bourbon", "negroni"} <= terms and "tea" not in terms
    assert {"feta", "gouda", "ghee"} <= set(LLM.implied_terms("User is vegan now."))


# A statement that already names a member of its general word ("favourite sport ... is hurling") is no
# general statement: another member said later is another fact, not a refinement of it.
NAMES_A_MEMBER = [
    ("User's favourite sport to play is padel.", "User likes playing squash."),
    ("User's favourite game to play with friends is mahjong.", "User likes playing chess with friends."),
    ("User's favourite dance to learn is kizomba.", "User is learning salsa."),
    ("User's favourite sport to follow is hurling.", "User likes following rugby."),
]
STILL_GENERAL = [
    ("User likes watching a sport.", "User likes watching hurling."),
    ("User plays a team sport.", "User plays netball on Tuesdays."),
    ("User plays an instrument.", "User plays the cello."),
    ("User's niece has a pet bird.", "User's niece has a budgie named Kiwi."),  # a compound: "pet bird"
]


@pytest.mark.parametrize(("existing", "candidate"), NAMES_A_MEMBER)
def test_a_statement_naming_a_member_is_not_refined_by_another(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation not in ("refinement", "contradiction")


@pytest.mark.parametrize(("existing", "candidate"), STILL_GENERAL)
def test_a_general_statement_is_still_refined(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation == "refinement"


# Opposite results (positive / negative) and blood groups are values held one at a time.
RESULT_CHANGED = [
    ("User's blood group is A positive.", "User's blood group is O positive."),
    ("User's blood type is AB negative.", "Actually the user's blood type is AB positive."),
    ("User's partner Ravi is Rh negative.", "User's partner Ravi is Rh positive."),
    ("User's son Milo tested positive for strep.", "User's son Milo tested negative for strep."),
]
RESULT_KEPT = [
    ("User got positive feedback from her manager.", "User got negative feedback from a client."),
    ("User's blood type is O negative.", "User donates blood every three months."),
]


@pytest.mark.parametrize(("existing", "candidate"), RESULT_CHANGED)
def test_another_blood_group_or_result_is_a_change(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation == "contradiction"


@pytest.mark.parametrize(("existing", "candidate"), RESULT_KEPT)
def test_a_result_word_in_another_frame_is_no_change(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation != "contradiction"


# A breed or variety of one or more words (lexicon_world.HYPERNYMS) refines the general word it is a kind of.
BREED_REFINES = [
    ("User has a dog.", "User has a Shiba Inu called Kuma."),
    ("User's sister has a dog.", "User's sister has a border collie named Pip."),
    ("User has a cat.", "User has a Norwegian Forest Cat named Birk."),
]
BREED_KEPT = [
    ("User has a dog.", "User works in a lab."),  # a breed's short name in another frame
    ("User has a dog.", "User has a Siamese named Miso."),  # a cat is no kind of dog
    ("User wants a dog.", "User has a beagle named Rolo."),  # wanting is not having
    ("User is allergic to cats.", "User has a Bengal named Ziggy."),
]


@pytest.mark.parametrize(("existing", "candidate"), BREED_REFINES)
def test_a_breed_refines_the_animal(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation == "refinement"


@pytest.mark.parametrize(("existing", "candidate"), BREED_KEPT)
def test_a_breed_of_another_animal_or_frame_refines_nothing(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation not in ("refinement", "contradiction")


# "Now works as" another role is a change for the same subject, whoever it is, whatever the new statement
# gives up on the way.
ROLE_CHANGED = [
    (
        "User's sister Lena works as a night nurse.",
        "User's sister Lena quit the hospital and now works as a pharmacist.",
    ),
    ("User's friend Oto works as a chef.", "User's friend Oto is now working as a food critic."),
    (
        "User's dad works as a postman.",
        "User's dad left the Royal Mail and works as a driving instructor now.",
    ),
]
ROLE_KEPT = [
    ("User's husband works as a firefighter.", "User's husband now also works as a paramedic on weekends."),
    ("User's brother works as a welder.", "User's brother works as a welder and coaches football."),
    ("User works as a nurse.", "User's wife now works as a paramedic."),  # another subject
]


@pytest.mark.parametrize(("existing", "candidate"), ROLE_CHANGED)
def test_another_role_now_is_a_change_for_anyone(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation == "contradiction"


@pytest.mark.parametrize(("existing", "candidate"), ROLE_KEPT)
def test_a_second_role_or_another_subject_is_no_change(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation != "contradiction"


# A part of the day said of a habit is a value, like a clock time: the same habit at another part of the day
# is a change, told back and forth ("best" and "better" are one word).
DAY_PART_CHANGED = [
    ("User writes best late at night.", "User now does their best writing first thing in the morning."),
    ("User's son Ade naps in the afternoon.", "User's son Ade now naps in the morning."),
    ("User concentrates better in the evenings.", "User concentrates best early in the morning these days."),
    ("User practises piano late at night.", "User is back to practising piano in the afternoons."),
]
DAY_PART_KEPT = [
    ("User runs in the morning.", "User does yoga in the evening."),  # another habit
    ("User walks the dog in the morning.", "User also walks the dog in the evening."),  # said to add
    ("User is a night owl.", "User is a morning person."),  # no one habit
]


@pytest.mark.parametrize(("existing", "candidate"), DAY_PART_CHANGED)
def test_a_habit_at_another_part_of_the_day_is_a_change(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation == "contradiction"


@pytest.mark.parametrize(("existing", "candidate"), DAY_PART_KEPT)
def test_another_habit_or_an_addition_at_another_part_of_the_day_stays(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation != "contradiction"


# One preference about the assistant's answers said twice in other words: answers/replies/responses,
# wanting/preferring, "formatted as", "written as", "kept", and the nouns that hold a style masked.
ANSWER_STYLE_SAME = [
    ("User likes replies kept short.", "User wants short answers."),
    ("User prefers answers in Spanish.", "User wants replies written in Spanish."),
    ("User wants responses formatted as tables.", "User prefers answers presented in tables."),
]
ANSWER_STYLE_OTHER = [
    ("User wants answers as bullet points.", "User wants answers as numbered lists."),
    ("User prefers short answers.", "User prefers long, detailed answers."),
    ("User wants answers in Spanish.", "User wants replies in English."),
    ("User wants answers.", "User prefers responses."),  # no style asked on either side
]


@pytest.mark.parametrize(("existing", "candidate"), ANSWER_STYLE_SAME)
def test_one_answer_style_said_twice_is_one_fact(existing: str, candidate: str) -> None:
    assert same_fact(existing, candidate).same_fact
    assert classify(existing, candidate).relation == "redundancy"


@pytest.mark.parametrize(("existing", "candidate"), ANSWER_STYLE_OTHER)
def test_another_answer_style_is_not_the_same_fact(existing: str, candidate: str) -> None:
    assert not same_fact(existing, candidate).same_fact
    assert classify(existing, candidate).relation != "redundancy"


# A shift (early, late, night, day) is held one at a time, in the singular or the plural.
SHIFT_CHANGED = [
    ("User's wife Ines works the night shift at the hospital.", "User's wife Ines is on the day shift now."),
    ("User works night shifts as a nurse.", "User is on day shifts now."),
    (
        "User's son Kai does the morning shift at the bakery.",
        "User's son Kai switched to the afternoon shift.",
    ),
]
SHIFT_KEPT = [
    ("User works the early shift at the depot.", "User's brother works the late shift."),  # another subject
    (
        "User works the early shift on weekdays.",
        "User also covers a night shift on Saturdays.",
    ),  # said to add
    ("User works the night shift.", "User works night shifts at the hospital."),  # the same shift
]


@pytest.mark.parametrize(("existing", "candidate"), SHIFT_CHANGED)
def test_another_shift_is_a_change(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation == "contradiction"


@pytest.mark.parametrize(("existing", "candidate"), SHIFT_KEPT)
def test_a_shift_of_someone_else_an_added_one_or_the_same_is_no_change(existing: str, candidate: str) -> None:
    assert classify(existing, candidate).relation != "contradiction"
