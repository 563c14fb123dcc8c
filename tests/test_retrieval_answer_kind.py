"""What kind of answer a question asks for (retrieval/answer_kind.py), and in a real search (the bundled
local embedder, a SQLite file). Phrasings of our own, apart from every scenario set."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memlane.engine.memory import Memory
from memlane.model.config import Settings
from memlane.retrieval.answer_kind import asked_kind, kind_penalty
from tests.formation_helpers import local_embedder

NOW = datetime(2026, 8, 1, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("What does my brother do for a living?", "occupation"),
        ("what's my profession again?", "occupation"),
        ("What does the user do?", "occupation"),
        ("Where does my aunt live now?", "home"),
        ("Where am I based?", "home"),
        ("What is the user's home town?", "home"),
        ("How old is my nephew?", "age"),
        ("Does the user keep any pets?", "pet"),
        ("What music does the user like?", None),
        ("what did we end up choosing for the patio tiles?", "decision"),
        ("What did I decide about the allotment?", "decision"),
        ("what was my decision on the Lyon offer?", "decision"),  # a decision about a job is still a decision
        ("What did I eat on Sunday?", None),
        ("Where did I park?", None),
        ("How much is my rent?", None),
        (
            "I start a new job on Monday. Any tips for the first week?",
            None,
        ),  # a chat turn of several sentences
    ],
)
def test_the_kind_of_answer_a_question_asks_for(query: str, kind: str | None) -> None:
    assert asked_kind(query) == kind


@pytest.mark.parametrize(
    ("query", "summary", "holds"),
    [
        ("What is my job?", "User is a wildlife photographer.", True),  # an occupation by its suffix
        ("What is my job?", "User works in insurance.", True),
        ("What is my job?", "User teaches chemistry at a sixth-form college.", True),
        ("What is my job?", "User runs their own bakery in Deal.", True),
        ("What is my job?", "User moved to Galway.", False),
        ("What is my job?", "User plays the oboe.", False),
        ("Where do I live?", "User moved to Galway last spring.", True),
        ("Where do I live?", "User is a wildlife photographer.", False),
        ("How old is my niece?", "User's niece Pia turned seven in May.", True),
        ("How old is my niece?", "User's niece Pia is 7 years old.", True),
        ("How old is my niece?", "User's niece Pia loves ponies.", False),
        ("Have I got a pet?", "User keeps two axolotls in a tank.", True),
        ("Have I got a pet?", "User's whippet Dot sleeps all day.", True),
        ("Have I got a pet?", "User adopted a Maine Coon last year.", True),
        ("Have I got a pet?", "User is allergic to penicillin.", False),
        ("What is my job?", "User works long weekend shifts at the harbour.", True),
        ("What is my job?", "User works out at the climbing gym.", False),
        ("What did I decide about the gym?", "User is cancelling their gym membership.", True),
        ("What did I decide about the gym?", "User went with the cheaper climbing gym.", True),
        ("What did I decide about the gym?", "User pays 40 pounds a month for two gyms.", False),
    ],
)
def test_a_memory_holds_an_answer_of_the_kind_or_loses(query: str, summary: str, holds: bool) -> None:
    assert kind_penalty(query, summary, 0.2) == (0.0 if holds else 0.2)


def test_no_penalty_without_a_kind_a_third_person_memory_or_a_weight() -> None:
    assert kind_penalty("What music do I like?", "User moved to Galway.", 0.2) == 0.0
    assert kind_penalty("What is my job?", "Sam: I moved to Galway.", 0.2) == 0.0  # a conversation turn
    assert kind_penalty("What is my job?", "User moved to Galway.", 0.0) == 0.0


def test_a_newer_memory_of_another_kind_does_not_outrank_the_answer(tmp_path: Path) -> None:
    def top(penalty: float) -> str:
        mem = Memory(
            str(tmp_path / f"k{penalty}.db"),
            embedder=local_embedder(),
            settings=Settings(timezone="UTC", memory_answer_kind_penalty=penalty),
        )
        try:
            mem.put("User is a structural engineer.", user_id="u", at=NOW - timedelta(days=120))
            mem.put("User moved to Tromsø with their family.", user_id="u", at=NOW - timedelta(days=2))
            hits = mem.search("What is my occupation?", user_id="u", at=NOW)
            return hits[0].memory.summary
        finally:
            mem.close()

    assert top(0.2) == "User is a structural engineer."
    assert top(0.0) == "User moved to Tromsø with their family."  # without it: the newer memory wins


def test_a_decision_outranks_the_question_that_led_to_it(tmp_path: Path) -> None:
    mem = Memory(str(tmp_path / "d.db"), embedder=local_embedder(), settings=Settings(timezone="UTC"))
    try:
        mem.put(
            "User subscribes to three newspapers and reads only one of them.",
            user_id="u",
            at=NOW - timedelta(days=3),
        )
        mem.put(
            "User is cancelling two of their newspaper subscriptions.",
            user_id="u",
            at=NOW - timedelta(days=3),
        )
        mem.put(
            "User subscribes to three newspapers and reads only the weekend one.",
            user_id="u",
            at=NOW - timedelta(days=1),
        )
        hits = mem.search("What did I decide about my newspapers?", user_id="u", at=NOW)
        assert "cancelling" in hits[0].memory.summary
    finally:
        mem.close()
