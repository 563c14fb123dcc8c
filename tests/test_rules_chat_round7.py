"""Chat extraction, issue 11 round 7: durable statements the offline extractor dropped or misread, found by a
probe of everyday messages written for it (not from any scenario set): taking something up or going
part-time said in the past, a dwelling "on" something, moving in with someone, a role named with a month,
giving one's things away, a status held "at the moment", one weighty word (a name, a rate, a condition), a
child starting school, and names or days that are not what they look like."""

from __future__ import annotations

import pytest

from tests.test_rules_chat_register import summaries


@pytest.mark.parametrize(("message", "expected"), [
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
])
def test_a_durable_statement_is_kept(message: str, expected: str) -> None:
    assert expected in summaries(message)


@pytest.mark.parametrize("message", [
    "I am in Porto",  # where the user is now
    "I'm tired at the moment",  # a passing state
    "I went back to bed",  # a passing return
    "I gave a talk at the meetup",  # giving that gives nothing up
])
def test_a_passing_statement_is_not_kept(message: str) -> None:
    assert summaries(message) == []


def test_a_capitalised_name_is_not_read_as_a_word_it_abbreviates() -> None:
    assert "User's partner's name is Dev." in summaries("My partner's name is Dev")
    assert "User works as a backend developer at Zalando." in summaries("I'm a backend dev at Zalando")


def test_a_day_after_an_employer_is_no_part_of_its_name() -> None:
    assert "User works at Lidl." in summaries("Started a new job at Lidl on Tuesday")
    assert "User lives in Stratford upon Avon." in summaries("I live in Stratford upon Avon")
