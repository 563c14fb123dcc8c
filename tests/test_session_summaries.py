"""Session summaries (seed 004, issue 12) on SQLite and a real PostgreSQL with pgvector: the background
sessions task closes sessions idle past the gap and summarises closed ones of at least
CONTEXT_SESSION_MIN_MESSAGES, offline by extraction (the most central messages by embedding, entities,
decisions, open questions), into a ``session`` memory made through the write path; a new
CONTEXT_SESSION_SUMMARY_VERSION re-summarises it; a failing model marks the session failed and the next
run retries it; the context block shows the summary, and CONTEXT_SESSION_MEMORY_ENABLED=false leaves
the block exactly as it was.

Real parts: the bundled local embedder, the rule-based LLM (which writes no session summaries, so the
extractive digest runs), SQLite files and a PostgreSQL server. The task runs on a controllable clock
(``run_tasks(at=...)``); message times are the messages' own."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from memlane import Memory
from memlane.lifecycle import sessions as sessions_task
from memlane.model.config import Settings
from memlane.model.enums import HistoryEvent, MemoryState, MemoryType
from memlane.model.errors import ProviderError
from memlane.model.filters import Condition
from memlane.model.record import utcnow
from memlane.model.session import ChatSession, SessionDigest, SessionStatus
from tests.formation_helpers import ScriptedTransportLLM, local_embedder

U, CHAT = "maya", "trip-planning"
MIN, HOUR = timedelta(minutes=1), timedelta(hours=1)

CABIN = [  # (sender, text): one off-topic line among talk about the cabin trip
    ("ana", "Shall we book the Lakeview cabin near Tahoe for the first week of June?"),
    ("ben", "Yes, the Lakeview cabin has room for all six of us and a boat dock."),
    ("cy", "lol did anyone watch the match last night"),
    ("ana", "Let's book the Lakeview cabin for June 6 to June 13 then."),
    ("ben", "The cabin deposit is 300 dollars, I can pay it tomorrow."),
    ("cy", "Who is bringing the kayak to the cabin?"),
]


def open_mem(location: str, llm: Any = "rules", **settings: Any) -> Memory:
    chosen: dict[str, Any] = {"worker": False, "memlane_schedule": {"sessions": 1}, **settings}
    return Memory(location, embedder=local_embedder(), llm=llm, settings=Settings(db=location, **chosen))


def record_cabin(mem: Memory, start: datetime) -> None:
    mem.sessions.record_messages(
        [{"name": who, "content": text, "at": start + n * MIN} for n, (who, text) in enumerate(CABIN)],
        user_id=U,
        chat_id=CHAT,
    )


def chat_and_run(mem: Memory, start: datetime) -> ChatSession:
    """Record the cabin chat from ``start``, run the tasks due 3 hours later; the user's one session."""
    record_cabin(mem, start)
    mem.run_tasks(at=start + 3 * HOUR)
    (session,) = mem.sessions.list(user_id=U)
    return session


def model(*replies: str | Exception) -> ScriptedTransportLLM:
    """The real StructuredLLM (session.v1 prompt, strict JSON validation, one retry) over scripted replies."""
    return ScriptedTransportLLM(replies)


REPLY = SessionDigest(
    summary="Ana proposed the Lakeview cabin; the group booked June 6 to 13.",
    topics=["Cabin"],
    decisions=["Book the Lakeview cabin for June 6-13."],
    entities=["Tahoe"],
).model_dump_json()


def test_an_idle_session_is_closed_and_summarised_by_extraction(location: str) -> None:
    start = utcnow() - 20 * MIN
    with open_mem(location) as mem:
        record_cabin(mem, start)
        mem.sessions.record_messages(
            [{"name": "ana", "content": "hi", "at": start + 2 * HOUR}], user_id="lena", chat_id=CHAT
        )
        mem.run_tasks(at=start + 20 * MIN)  # idle 14 minutes: stays open, no summary
        (session,) = mem.sessions.list(user_id=U)
        assert session.status is SessionStatus.OPEN and mem.list(user_id=U, filters={"type": "session"}) == []

        assert mem.run_tasks(at=start + 3 * HOUR) >= 1
        (session,) = mem.sessions.list(user_id=U)
        assert (session.status, session.summary_version, session.error) == (SessionStatus.SUMMARIZED, 1, None)
        rec = mem.get(str(session.memory_id), user_id=U)
        payload = rec.metadata["session"]
        assert rec.type is MemoryType.SESSION and rec.chat_id == CHAT
        assert (rec.valid_from, rec.valid_to) == (session.started_at, session.ended_at)
        assert (
            rec.summary.startswith(f"Chat {CHAT}, {start:%Y-%m-%d %H:%M}") and "ana, ben, cy" in rec.summary
        )
        assert (
            "lol" not in payload["summary"] and payload["summary"].count(":") == 3
        )  # three central messages
        assert payload["decisions"] == ["ana: Let's book the Lakeview cabin for June 6 to June 13 then."]
        assert payload["open_questions"] == [
            "cy: Who is bringing the kayak to the cabin?"
        ]  # the first was answered
        assert {"Lakeview", "Tahoe"} <= set(payload["entities"]) and "cabin" in payload["topics"]
        assert (payload["model"], payload["summary_version"], payload["participants"]) == (
            "extractive",
            1,
            ["ana", "ben", "cy"],
        )
        assert "Decisions: ana: Let's book" in rec.summary and "Open questions: cy: Who is" in rec.summary
        assert [h.event for h in mem.history(rec.id, user_id=U)] == [HistoryEvent.ADD]
        # the other user's session was never summarised into this user's memories
        assert {r.user_id for r in mem.list(user_id=U, filters={"type": "session"})} == {U}


def test_the_task_is_scheduled_by_recording_not_seeded_for_every_user(location: str) -> None:
    with open_mem(location) as mem:
        mem.put("Maya plays chess.", user_id="lena")
        assert (
            mem.lifecycle.seed(utcnow()) == 0 and mem.backend.jobs.scheduled_users("task.sessions") == set()
        )
        record_cabin(mem, utcnow() - HOUR)
        assert mem.backend.jobs.scheduled_users("task.sessions") == {U}


def test_a_small_session_is_closed_but_not_summarised(location: str) -> None:
    start = utcnow() - HOUR
    with open_mem(location, context_session_min_messages=4) as mem:
        mem.sessions.record_messages(
            [
                {"name": "ana", "content": t, "at": start + n * MIN}
                for n, t in enumerate(["Pizza tonight?", "Sure", "Eight o'clock"])
            ],
            user_id=U,
            chat_id=CHAT,
        )
        mem.run_tasks(at=start + 3 * HOUR)
        (session,) = mem.sessions.list(user_id=U)
        assert (session.status, session.memory_id) == (SessionStatus.CLOSED, None)
        assert mem.list(user_id=U, filters={"type": "session"}) == []


def test_a_new_summary_version_resummarises_the_same_memory(location: str) -> None:
    start = utcnow() - HOUR
    with open_mem(location) as mem:
        v1 = chat_and_run(mem, start)
    llm = model("not json", REPLY)  # a malformed first reply is retried once with a correction
    with open_mem(location, llm=llm, context_session_summary_version=2) as mem:
        mem.run_tasks(at=start + 5 * HOUR)
        (v2,) = mem.sessions.list(user_id=U)
        assert (v2.summary_version, v2.memory_id, v2.status) == (2, v1.memory_id, SessionStatus.SUMMARIZED)
        rec = mem.get(str(v2.memory_id), user_id=U)
        assert (
            rec.metadata["session"]["model"] == llm.name and rec.metadata["session"]["summary_version"] == 2
        )
        assert "the group booked June 6 to 13. Decisions: Book the Lakeview" in rec.summary and rec.tags == [
            "cabin"
        ]
        assert llm.count("SessionDigest") == 2  # the malformed reply and the retry
        shown = llm.requests[0][1]
        assert all(f"user ({who}): {text}" in shown for who, text in CABIN)
        assert [h.event for h in mem.history(rec.id, user_id=U)] == [HistoryEvent.ADD, HistoryEvent.UPDATE]
        mem.run_tasks(at=start + 7 * HOUR)  # at the same version: nothing more
        assert llm.count("SessionDigest") == 2 and len(mem.history(rec.id, user_id=U)) == 2


def test_a_new_version_does_not_bring_back_a_deleted_summary(location: str) -> None:
    start = utcnow() - HOUR
    with open_mem(location) as mem:
        v1 = chat_and_run(mem, start)
        mem.delete(str(v1.memory_id), user_id=U)
    with open_mem(location, llm=model(REPLY), context_session_summary_version=2) as mem:
        mem.run_tasks(at=start + 5 * HOUR)
        (v2,) = mem.sessions.list(user_id=U)
        assert (v2.summary_version, v2.status) == (2, SessionStatus.SUMMARIZED)
        rec = mem.get(str(v1.memory_id), user_id=U)
        assert rec.state is MemoryState.SOFT_DELETED and "Ana proposed" not in rec.summary
        # (the task ran on a clock ahead of the delete's: compare the events, not their order)
        assert sorted(h.event.value for h in mem.history(rec.id, user_id=U)) == ["ADD", "DELETE"]


def test_a_failing_model_marks_the_session_failed_and_the_next_run_retries(location: str) -> None:
    start = utcnow() - HOUR
    with open_mem(location, llm=model(ProviderError("the model timed out"))) as mem:
        session = chat_and_run(mem, start)
        assert session.status is SessionStatus.FAILED and "the model timed out" in str(session.error)
        assert session.memory_id is None and mem.list(user_id=U, filters={"type": "session"}) == []
    with open_mem(location, llm=model(REPLY)) as mem:
        mem.run_tasks(at=start + 5 * HOUR)
        (session,) = mem.sessions.list(user_id=U)
        assert (session.status, session.error) == (SessionStatus.SUMMARIZED, None) and session.memory_id


def test_summarization_off_closes_sessions_without_summaries(location: str) -> None:
    start = utcnow() - HOUR
    with open_mem(location, context_session_summarization_enabled=False) as mem:
        session = chat_and_run(mem, start)
        assert (session.status, session.memory_id) == (SessionStatus.CLOSED, None)


def test_the_context_block_shows_the_summary_and_the_disabled_flag_leaves_it_unchanged(location: str) -> None:
    start = utcnow() - HOUR
    query = "When is the Lakeview cabin trip?"
    with open_mem(location, context_session_memory_enabled=False) as mem:
        mem.put("Maya likes kayaking on mountain lakes.", user_id=U)
        before = mem.context(query, user_id=U).text
    with open_mem(location) as mem:
        chat_and_run(mem, start)
        block = mem.context(query, user_id=U)
        assert [h.memory.type for h in block.sessions] == [MemoryType.SESSION]
        assert "Relevant earlier session summaries:" in block.text and "Lakeview cabin" in block.text
        hits = mem.search("Lakeview cabin deposit", user_id=U, filters={"type": "session"})
        assert [h.memory.id for h in hits] == [block.sessions[0].memory.id]
    with open_mem(location, context_session_memory_enabled=False) as mem:
        after = mem.context(query, user_id=U)
        assert after.text == before and after.sessions == []


def test_a_full_run_goes_on_at_once_and_failures_wait_for_a_later_run(
    location: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sessions_task, "BATCH", 3)
    start = utcnow() - 10 * HOUR
    four = [
        {"name": who, "content": f"{text} (session {k})", "at": start + k * HOUR + n * MIN}
        for k in range(4)
        for n, (who, text) in enumerate(CABIN[:4])
    ]
    with open_mem(location, llm=model(*[ProviderError("the model timed out")] * 4)) as mem:
        mem.sessions.record_messages(four, user_id=U, chat_id=CHAT)
        assert mem.run_tasks(at=start + 12 * HOUR) == 2  # 3 sessions, then the 4th; the failed ones wait
        assert [s.status for s in mem.sessions.list(user_id=U)] == [SessionStatus.FAILED] * 4
    with open_mem(location, llm=model(*[REPLY] * 4)) as mem:
        assert mem.run_tasks(at=start + 14 * HOUR) == 2
        assert [s.status for s in mem.sessions.list(user_id=U)] == [SessionStatus.SUMMARIZED] * 4


def test_a_summary_is_found_by_keyword_alone_and_by_vector(location: str) -> None:
    start = utcnow() - HOUR
    with open_mem(location) as mem:
        session = chat_and_run(mem, start)
        only = [Condition("type", "$eq", MemoryType.SESSION.value)]
        by_words = mem.backend.memories.keyword_search(U, "kayak deposit", only)
        by_vector = mem.backend.memories.vector_search(
            U, local_embedder().embed_one("who pays for the lake house?"), only
        )
        assert [h.record.id for h in by_words] == [h.record.id for h in by_vector] == [session.memory_id]
        assert mem.backend.memories.keyword_search("lena", "kayak deposit", only) == []
