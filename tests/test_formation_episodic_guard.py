"""The hot path's guards on what a turn may store: the episodic guard (cooldown in turns and minutes, a
daily quota, novelty against the last episodes) with the hot path proposing episodes
(``EPISODIC_CAPTURE`` off; the same guard on captured turns is in test_episodic_capture.py), the cap on
what the extractor may propose, and the daily cap on extraction writes. Every rule that drops a candidate reports it as a ``memory.error``
event with its code and an op event; semantic candidates pass the episodic guard untouched.

Real parts: the bundled all-MiniLM-L6-v2 embedder, SQLite files. The LLM is a :class:`ScriptedLLM` at
the provider boundary.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import ValidationError as PydanticValidationError

from memlane import Memory
from memlane.model.config import Settings
from memlane.model.enums import MemoryType
from tests.formation_helpers import EventLog, ScriptedLLM, cosine, local_embedder, open_memory

U = "maya"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
# only the rule under test bites
OFF: dict[str, Any] = {"episodic_cooldown_turns": 0, "episodic_max_per_day": 100, "episodic_novelty_min": 0.0}


def episode(summary: str, importance: int = 3) -> dict[str, Any]:
    return {"summary": summary, "type": "episodic", "importance": importance}


def turn(mem: Memory, llm: ScriptedLLM, *facts: Any, at: datetime) -> list[str]:
    """One turn whose extraction proposes ``facts``; the summaries the hot path kept."""
    llm.will_extract(*facts)
    return [c.summary for c in mem.add("a turn", user_id=U, at=at, wait=True)]


def codes(log: EventLog) -> list[str]:
    return [e.data["code"] for e in log.of("memory.error")]


def episodes(mem: Memory) -> list[str]:
    return sorted(r.summary for r in mem.list(user_id=U) if r.type is MemoryType.EPISODIC)


def test_the_cooldown_in_turns_drops_episodes_and_reports_them(location: str) -> None:
    llm = ScriptedLLM()
    settings = {**OFF, "episodic_cooldown_turns": 3, "episodic_cooldown_minutes": 600}
    with open_memory(location, llm, episodic_capture=False, **settings) as mem:
        log = EventLog(mem)
        assert turn(mem, llm, episode("User went hiking in the Alps."), at=T0) == [
            "User went hiking in the Alps."
        ]
        assert turn(mem, llm, "User lives in Lisbon.", at=T0 + timedelta(minutes=1)) == [
            "User lives in Lisbon."
        ]
        # two turns after the last episode: still cooling down; the semantic fact of the turn is kept
        kept = turn(
            mem,
            llm,
            episode("User bought a new bike."),
            "User works as a nurse.",
            at=T0 + timedelta(minutes=2),
        )
        assert kept == ["User works as a nurse."]
        [error] = log.of("memory.error")
        assert error.data["code"] == "episodic_cooldown"
        assert "1 episodic candidate(s) not stored: the last episode was 2 turn(s)" in error.data["message"]
        assert "EPISODIC_COOLDOWN_TURNS (3)" in error.data["message"]
        assert [e.status for e in mem.backend.changes.op_events(U) if e.op == "episodic_cooldown"] == [
            "skipped"
        ]
        # three turns after it (a dropped episode does not restart the cooldown)
        assert turn(mem, llm, episode("User bought a new bike."), at=T0 + timedelta(minutes=3)) == [
            "User bought a new bike."
        ]
        assert episodes(mem) == ["User bought a new bike.", "User went hiking in the Alps."]
        assert codes(log) == ["episodic_cooldown"]


def test_turns_queued_for_the_worker_are_guarded_in_the_order_they_were_accepted(location: str) -> None:
    """The chat proxy commits turns and the worker extracts them later: turns accepted after the one
    being extracted are not turns since the last episode."""
    llm = ScriptedLLM()
    settings = {**OFF, "episodic_cooldown_turns": 3, "episodic_cooldown_minutes": 600}
    with open_memory(location, llm, episodic_capture=False, **settings) as mem:
        mem.start_worker = lambda: None  # type: ignore[method-assign]  # the turns wait for process_jobs
        log = EventLog(mem)
        llm.will_extract(episode("User went hiking in the Alps.")).will_extract(
            episode("User bought a new bike.")
        )
        llm.will_extract("User lives in Lisbon.").will_extract("User works as a nurse.")
        for i in range(4):
            mem.enqueue_turn(f"turn {i}", user_id=U, at=T0 + timedelta(minutes=i))
        mem.process_jobs()
        assert episodes(mem) == ["User went hiking in the Alps."]
        assert codes(log) == ["episodic_cooldown"]
        assert "1 turn(s)" in log.of("memory.error")[0].data["message"]


def test_the_cooldown_is_over_after_enough_minutes(location: str) -> None:
    llm = ScriptedLLM()
    settings = {**OFF, "episodic_cooldown_turns": 100, "episodic_cooldown_minutes": 10}
    with open_memory(location, llm, episodic_capture=False, **settings) as mem:
        log = EventLog(mem)
        assert turn(mem, llm, episode("User went hiking in the Alps."), at=T0)
        assert turn(mem, llm, episode("User bought a new bike."), at=T0 + timedelta(minutes=5)) == []
        assert codes(log) == ["episodic_cooldown"]
        assert "5 minute(s) ago" in log.of("memory.error")[0].data["message"]
        assert turn(mem, llm, episode("User bought a new bike."), at=T0 + timedelta(minutes=11)) == [
            "User bought a new bike."
        ]
        assert codes(log) == ["episodic_cooldown"]


def test_the_daily_quota_keeps_the_most_important_episodes_and_counts_queued_ones(location: str) -> None:
    llm = ScriptedLLM()
    with open_memory(location, llm, episodic_capture=False, **{**OFF, "episodic_max_per_day": 2}) as mem:
        mem.start_worker = lambda: None  # type: ignore[method-assign]  # decisions wait: candidates stay queued
        log = EventLog(mem)
        llm.will_extract(
            episode("User went hiking in the Alps.", 1),
            episode("User adopted a cat named Miso.", 5),
            episode("User ran a half marathon.", 4),
            "User lives in Lisbon.",
        )
        kept = [c.summary for c in mem.add("a turn", user_id=U, at=T0)]
        assert kept == [
            "User adopted a cat named Miso.",
            "User ran a half marathon.",
            "User lives in Lisbon.",
        ]
        [error] = log.of("memory.error")
        assert error.data["code"] == "episodic_daily_cap"
        assert "1 episodic candidate(s) over EPISODIC_MAX_PER_DAY (2) on 2026-03-02" in error.data["message"]
        # the two queued episodes count before any decision has stored them
        llm.will_extract(episode("User painted the kitchen."))
        assert mem.add("later that day", user_id=U, at=T0 + timedelta(hours=8)) == []
        assert codes(log) == ["episodic_daily_cap", "episodic_daily_cap"]
        mem.process_jobs()
        assert len(episodes(mem)) == 2
        # stored ones count the same; the next day has room again
        assert turn(mem, llm, episode("User painted the kitchen."), at=T0 + timedelta(hours=10)) == []
        assert turn(mem, llm, episode("User painted the kitchen."), at=T0 + timedelta(days=1)) == [
            "User painted the kitchen."
        ]
        assert codes(log) == ["episodic_daily_cap"] * 3


def test_an_episode_too_close_to_a_recent_one_is_not_novel(location: str) -> None:
    hiking, again = (
        "User went hiking in the Alps with Lena on Saturday.",
        "User went hiking in the Alps with Lena.",
    )
    pottery = "User started a pottery class on Tuesday evenings."
    assert cosine(local_embedder(), hiking, again) > 0.85 > cosine(local_embedder(), hiking, pottery)
    llm = ScriptedLLM()
    with open_memory(location, llm, episodic_capture=False, **{**OFF, "episodic_novelty_min": 0.15}) as mem:
        log = EventLog(mem)
        assert turn(mem, llm, episode(hiking), at=T0) == [hiking]
        assert turn(mem, llm, episode(again), episode(pottery), at=T0 + timedelta(hours=1)) == [pottery]
        [error] = log.of("memory.error")
        assert error.data["code"] == "episodic_not_novel"
        assert "below EPISODIC_NOVELTY_MIN (0.15)" in error.data["message"]
        # within one turn too: the second of two near-identical episodes is dropped
        later = T0 + timedelta(days=3)
        assert turn(
            mem,
            llm,
            episode("User flew to Tokyo for work."),
            episode("User flew to Tokyo for a work trip."),
            at=later,
        ) == ["User flew to Tokyo for work."]
        assert codes(log) == ["episodic_not_novel", "episodic_not_novel"]
        assert episodes(mem) == sorted([hiking, pottery, "User flew to Tokyo for work."])


def test_the_guard_is_off_with_zero_knobs(location: str) -> None:
    llm = ScriptedLLM()
    settings = {"episodic_cooldown_turns": 0, "episodic_novelty_min": 0.0}
    with open_memory(location, llm, episodic_capture=False, **settings) as mem:
        log = EventLog(mem)
        for i in range(3):
            assert turn(mem, llm, episode("User went hiking in the Alps."), at=T0 + timedelta(minutes=i))
        assert log.of("memory.error") == []


FACTS = [
    ("User plays the violin.", 1),
    ("User is allergic to peanuts.", 5),
    ("User lives in Lisbon.", 2),
    ("User's favourite colour is blue.", 4),
    ("User works as a nurse.", 3),
]


def test_the_candidate_cap_keeps_the_first_proposals_and_reports_the_rest(location: str) -> None:
    llm = ScriptedLLM()
    with open_memory(location, llm, memory_max_candidates_per_turn=2) as mem:
        log = EventLog(mem)
        kept = turn(mem, llm, *({"summary": s, "importance": i} for s, i in FACTS), at=T0)
        assert kept == ["User plays the violin.", "User is allergic to peanuts."]  # the extractor's order
        [error] = log.of("memory.error")
        assert error.data["code"] == "candidate_cap"
        assert error.data["message"] == "3 candidate(s) over MEMORY_MAX_CANDIDATES_PER_TURN not considered"


@pytest.mark.parametrize("value", [0, 6])
def test_the_candidate_cap_is_within_what_an_extraction_may_hold(value: int) -> None:
    with pytest.raises(PydanticValidationError, match="memory_max_candidates_per_turn|MEMORY_MAX_CANDIDATES"):
        Settings(memory_max_candidates_per_turn=value)


def test_the_daily_write_cap_drops_extra_candidates_with_an_error_and_an_op_event(location: str) -> None:
    llm = ScriptedLLM()
    with open_memory(location, llm, memory_write_rate_limit_per_day=3) as mem:
        log = EventLog(mem)
        assert len(turn(mem, llm, "User plays the violin.", "User lives in Lisbon.", at=T0)) == 2
        kept = turn(
            mem,
            llm,
            {"summary": "User works as a nurse.", "importance": 2},
            {"summary": "User is allergic to peanuts.", "importance": 5},
            at=T0,
        )
        assert kept == ["User is allergic to peanuts."]
        assert turn(mem, llm, "User's favourite colour is blue.", at=T0) == []
        errors = log.of("memory.error")
        assert [e.data["code"] for e in errors] == ["daily_cap", "daily_cap"]
        assert (
            errors[0].data["message"] == "rate limited: 1 candidate(s) over MEMORY_WRITE_RATE_LIMIT_PER_DAY"
        )
        assert [e.status for e in mem.backend.changes.op_events(U) if e.op == "daily_cap"] == [
            "skipped",
            "skipped",
        ]
        assert len(mem.list(user_id=U)) == 3
