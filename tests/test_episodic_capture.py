"""Post-turn episodic capture (seed 002, issue 12): the hot path writes semantic memories only; a finished
turn becomes an episode when it had an outcome, dated in the user's time zone, within the cooldown and
daily cap, merged into the last episode of the same theme. SQLite and PostgreSQL, the bundled embedder,
the offline rules (and the openai client's request against a scripted server)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memlane import Memory
from memlane.model.config import Settings
from memlane.model.enums import HistoryEvent, MemoryType
from memlane.model.errors import ValidationError
from tests.formation_helpers import EventLog, local_embedder
from tests.scripted_chat_server import ScriptedChatServer, openai_llm

U = "maya"
T0 = datetime(2026, 1, 4, 23, 30, tzinfo=UTC)  # a Sunday in UTC, Monday 5 January in Tokyo
GYM = [
    {"role": "user", "content": "My gym costs 60 euros a month and I barely go. Should I keep it?"},
    {"role": "assistant", "content": "If you rarely go, cancelling would save you money."},
    {"role": "user", "content": "You're right. I've decided to cancel my gym membership."},
    {"role": "assistant", "content": "Good call, that saves you 720 euros a year."},
]


def open_mem(location: str, **settings: Any) -> Memory:
    return Memory(
        location,
        embedder=local_embedder(),
        llm="rules",
        settings=Settings(db=location, worker=False, **settings),
    )


@pytest.fixture
def mem(location: str) -> Iterator[Memory]:
    m = open_mem(location)
    yield m
    m.close()


def episodes(mem: Memory) -> list[Any]:
    return mem.list(user_id=U, filters={"type": "episodic"})


def test_the_hot_path_stores_facts_only_and_the_capture_makes_the_episode(mem: Memory) -> None:
    mem.add(GYM[:3], user_id=U, at=T0, wait=True)
    assert (
        episodes(mem) == []
    )  # seed 002: no episodic write from the entry node (capture off: one, see below)
    log = EventLog(mem)
    job = mem.capture_turn(GYM, user_id=U, at=T0, time_zone="Asia/Tokyo", wait=True)
    [episode] = episodes(mem)
    assert episode.summary == (
        "On 2026-01-05 (W02, 2026) we discussed the user's gym membership. "
        "Approach: User decided to cancel their gym membership."
    )
    assert (episode.date_iso, episode.week, episode.year) == ("2026-01-05", 2, 2026)
    assert [o.memory_id for o in mem.jobs.outcomes(job, user_id=U)] == [episode.id]
    assert log.kinds() == ["memory.candidate", "memory.created"]
    ops = {(e.node, e.op) for e in mem.backend.changes.op_events(U)}
    assert {("episodic", "classify"), ("episodic", "search"), ("episodic", "create")} <= ops


def test_a_routine_turn_is_skipped(mem: Memory) -> None:
    job = mem.capture_turn(
        [{"role": "user", "content": "Thanks, that helps!"}, {"role": "assistant", "content": "Anytime."}],
        user_id=U,
        at=T0,
        wait=True,
    )
    assert episodes(mem) == [] and mem.jobs.outcomes(job, user_id=U) == []
    [skip] = [e for e in mem.backend.changes.op_events(U) if e.node == "episodic"]
    assert (skip.op, skip.status) == ("skip", "skipped")


def test_a_tool_result_is_an_outcome(mem: Memory) -> None:
    mem.capture_turn(
        [
            {"role": "user", "content": "Book the 9:40 train to Porto"},
            {"role": "tool", "content": "Booked: Lisbon-Porto 09:40, seat 42, ref QX7"},
            {"role": "assistant", "content": "Done, you're on the 9:40."},
        ],
        user_id=U,
        at=T0,
        wait=True,
    )
    [episode] = episodes(mem)
    assert "we discussed the 9:40 train to Porto." in episode.summary and "ref QX7" in episode.summary


def test_the_cooldown_keeps_close_turns_from_piling_up_episodes(mem: Memory) -> None:
    """Within the cooldown a later outcome extends the running episode (merge first) instead of being lost."""
    log = EventLog(mem)
    mem.capture_turn("I've decided to cancel my gym membership.", user_id=U, at=T0, wait=True)
    mem.capture_turn(
        "I decided to sign up for a pottery class.", user_id=U, at=T0 + timedelta(minutes=2), wait=True
    )
    [episode] = episodes(mem)
    assert "gym membership" in episode.summary and "pottery class" in episode.summary, episode.summary
    assert [h.event for h in mem.history(episode.id, user_id=U)] == [HistoryEvent.ADD, HistoryEvent.UPDATE]
    assert log.of("memory.error") == []
    mem.capture_turn(
        "I decided to book a week in Crete in June.", user_id=U, at=T0 + timedelta(minutes=30), wait=True
    )
    assert len(episodes(mem)) == 2


def test_within_the_cooldown_another_thread_has_no_running_episode_to_extend(mem: Memory) -> None:
    log = EventLog(mem)
    mem.capture_turn("I've decided to cancel my gym membership.", user_id=U, thread_id="a", at=T0, wait=True)
    mem.capture_turn(
        "I decided to sign up for a pottery class.",
        user_id=U,
        thread_id="b",
        at=T0 + timedelta(minutes=2),
        wait=True,
    )
    [episode] = episodes(mem)
    assert "pottery" not in episode.summary
    assert [e.data["code"] for e in log.of("memory.error")] == ["episodic_cooldown"]


def test_the_same_theme_again_within_the_window_merges_into_the_last_episode(location: str) -> None:
    with open_mem(location, episodic_novelty_min=0.0, episodic_cooldown_minutes=0) as mem:
        mem.capture_turn("I've decided to cancel my gym membership.", user_id=U, at=T0, wait=True)
        mem.capture_turn(
            "I've decided to cancel my gym membership.", user_id=U, at=T0 + timedelta(hours=1), wait=True
        )
        [episode] = episodes(mem)
        assert [h.event for h in mem.history(episode.id, user_id=U)] == [HistoryEvent.ADD, HistoryEvent.MERGE]


def test_with_capture_off_the_hot_path_proposes_episodes_as_before(location: str) -> None:
    with open_mem(location, episodic_capture=False) as mem:
        mem.add("I've decided to cancel my gym membership.", user_id=U, at=T0, wait=True)
        assert [r.type for r in mem.list(user_id=U)] == [MemoryType.EPISODIC]


def test_a_capture_is_durable_before_it_returns(mem: Memory) -> None:
    job = mem.capture_turn("I decided to book a week in Crete in June.", user_id=U, at=T0)
    assert [j.status.value for j in mem.jobs.list(user_id=U) if j.id == job] == ["pending"] and episodes(
        mem
    ) == []
    assert mem.process_jobs() == 2  # the capture, then its candidate's decision
    assert "Crete" in episodes(mem)[0].summary


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"messages": "I decided to go.", "time_zone": "Mars/Olympus"}, "unknown time zone"),
        ({"messages": []}, "messages"),
        ({"messages": "I decided to go.", "user_id": ""}, "user_id"),
    ],
)
def test_bad_input_is_refused_and_leaves_no_job(mem: Memory, kwargs: dict[str, Any], fragment: str) -> None:
    args = {"user_id": U, **kwargs}
    with pytest.raises(ValidationError, match=fragment):
        mem.capture_turn(args.pop("messages"), **args)
    assert mem.jobs.list() == []


def test_openai_episode_request_and_reply(server: ScriptedChatServer) -> None:
    from memlane.model.candidate import ChatMessage

    server.reply(
        {
            "should_create": True,
            "topic": "the monthly budget",
            "approach": "User cut eating out to 150 euros.",
            "outcome": "decision",
            "category": "Finance",
            "importance": 3,
            "tags": ["budget"],
            "reason": "a decision",
        }
    )
    episode = openai_llm(server).summarize_episode(
        [
            ChatMessage(role="user", content="I'll cut eating out to 150."),
            ChatMessage(role="tool", content="budget updated"),
            ChatMessage(role="system", content="secret system prompt"),
        ]
    )
    assert episode.topic == "the monthly budget" and episode.outcome == "decision"
    [request] = server.requests
    assert request["json"]["response_format"]["json_schema"]["name"] == "Episode"
    user = request["json"]["messages"][1]["content"]
    assert "I'll cut eating out to 150." in user and "budget updated" in user and "secret" not in user
