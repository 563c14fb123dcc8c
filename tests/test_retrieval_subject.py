"""Whose fact: the question's subject against each memory's (retrieval/subject.py), and in a real search
(the bundled local embedder, a SQLite file). Phrasings of our own, apart from every scenario set."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memlane.engine.memory import Memory
from memlane.model.config import Settings
from memlane.retrieval.subject import USER, Subject, asked_about, memory_about, subject_penalty
from tests.formation_helpers import local_embedder

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("query", "subject"),
    [
        ("What instrument do I play?", USER),
        ("Where is the user based?", USER),
        ("How old is my mum?", Subject("mother")),
        ("What does our eldest son study?", Subject("son")),
        ("Where did the user's grandpa grow up?", Subject("grandfather")),
        ("What breed is my dog?", Subject("dog")),
        ("Which team does my little sister support?", Subject("sister")),
        ("Who is the user married to?", None),  # asks for a person: no subject
        ("What should I cook for my wife tonight?", USER),  # the user first, the wife after
        ("Tell me about the user's stepdad.", Subject("stepfather")),  # "me" is no subject
        ("My sister is visiting. What should we do in Leeds?", None),  # several sentences: a chat turn
        ("What is trending in Lisbon this week?", None),
    ],
)
def test_the_subject_a_question_asks_about(query: str, subject: Subject | None) -> None:
    assert asked_about(query) == subject


@pytest.mark.parametrize(
    ("summary", "subject"),
    [
        ("User teaches yoga on weekends.", USER),
        ("The user is training for a triathlon.", USER),
        ("User's sister Noor teaches piano.", Subject("sister")),
        ("User's older brother lives in Oslo.", Subject("brother")),
        ("Mateo, the user's nephew, plays the cello.", Subject("nephew")),
        ("User's grandma is 91 years old.", Subject("grandmother")),
        ("User's car is a hybrid.", USER),  # a car is the user's own
        (
            "User's old climbing buddy Theo lives in Leeds.",
            Subject("friend"),
        ),  # someone named after who they are
        ("User's landlord Mr Pike is strict about pets.", Subject("landlord")),
        ("User's bestie Ama runs a bakery.", Subject("friend")),
        (
            "User's favourite poet Mary Oliver wrote Wild Geese.",
            USER,
        ),  # a liking, not a person the user knows
        ("User's visa expires in June.", USER),  # words that say no one: a verb, a preposition
        ("User's flight to Oslo leaves at 6.", USER),
        ("Jon: I went climbing yesterday.", None),  # a conversation turn
        ("On 2026-05-02 (W18, 2026) we discussed the move. Approach: ...", None),
    ],
)
def test_the_subject_of_a_memory(summary: str, subject: Subject | None) -> None:
    assert memory_about(summary) == subject


def test_the_penalty_falls_on_memories_about_someone_else() -> None:
    w = 0.2
    # a question about the user: a relation's fact loses, the user's and a pet's keep their score
    assert subject_penalty("What do I teach?", "User's sister Noor teaches piano.", w) == w
    assert subject_penalty("What do I teach?", "User teaches yoga on weekends.", w) == 0.0
    assert subject_penalty("How old am I?", "User's cat Biscuit is 12 years old.", w) == 0.0
    # a question about a relation: memories that do not mention it lose; one that mentions it keeps
    assert subject_penalty("Where does my mum live?", "User lives in Porto.", w) == w
    assert subject_penalty("Where does my mum live?", "User's mother lives in Faro.", w) == 0.0
    assert (
        subject_penalty("Where does my mum live?", "User visits their mother in Faro every month.", w) == 0.0
    )
    assert subject_penalty("Where does my mum live?", "User's uncle lives in Faro.", w) == w
    # no subject on either side, or a zero weight: nothing
    assert subject_penalty("Who is the user married to?", "User's husband is called Ilan.", w) == 0.0
    assert subject_penalty("What do I teach?", "Ada: I teach maths.", w) == 0.0
    assert subject_penalty("What do I teach?", "User's sister Noor teaches piano.", 0.0) == 0.0
    # a relation the question names as well keeps its memories' score
    assert (
        subject_penalty("What should I cook for my wife tonight?", "User's wife is allergic to prawns.", w)
        == 0.0
    )
    assert subject_penalty("What should I cook for my wife tonight?", "User's brother is vegan.", w) == w
    # the question names someone the memory mentions: it asks about them
    assert subject_penalty("What do I know about Noor?", "User's sister Noor teaches piano.", w) == 0.0


def test_a_question_about_the_user_ranks_the_users_fact_over_a_relations(tmp_path: Path) -> None:
    mem = Memory(str(tmp_path / "who.db"), embedder=local_embedder(), settings=Settings(timezone="UTC"))
    try:
        own = mem.put(
            "User works as a yoga instructor at a studio downtown.", user_id="u", at=NOW - timedelta(days=90)
        )
        sister = mem.put(
            "User's sister Noor works as a piano teacher.", user_id="u", at=NOW - timedelta(days=1)
        )
        hits = mem.search("What do I do for work?", user_id="u", at=NOW)
        assert hits[0].memory.id == own.id
        by_id = {h.memory.id: h.breakdown for h in hits}
        assert (
            by_id[sister.id].subject == mem.settings.memory_subject_penalty and by_id[own.id].subject == 0.0
        )
        assert mem.search("What does my sister do for work?", user_id="u", at=NOW)[0].memory.id == sister.id
        off = Memory(
            str(tmp_path / "off.db"),
            embedder=local_embedder(),
            settings=Settings(timezone="UTC", memory_subject_penalty=0.0),
        )
        try:
            off.put(
                "User works as a yoga instructor at a studio downtown.",
                user_id="u",
                at=NOW - timedelta(days=90),
            )
            off.put("User's sister Noor works as a piano teacher.", user_id="u", at=NOW - timedelta(days=1))
            first = off.search("What do I do for work?", user_id="u", at=NOW)[0]
            assert first.memory.summary.startswith(
                "User's sister"
            )  # without the penalty: closer and newer wins
        finally:
            off.close()
    finally:
        mem.close()
