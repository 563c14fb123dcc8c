"""Group-chat sessions beyond recording (issue 12), on SQLite and a real PostgreSQL: forgetting a session
(``mem.sessions.delete``, or purging its summary memory) removes its raw messages, the session and the
summary through the write path; export and import carry sessions and messages; the sessions task does
not bring back a session deleted during its run; ``session.*`` events; CONTEXT_SESSION_SUMMARY_MODEL.

Real parts: the bundled local embedder, the rule-based LLM (the extractive digest), SQLite files, a
PostgreSQL server, and for the summary model the real OpenAI client against a scripted server."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta
from typing import Any

import pytest

from memlane import Memory
from memlane.lifecycle import sessions as sessions_task
from memlane.model.config import Settings
from memlane.model.enums import HistoryEvent, MemoryState
from memlane.model.errors import NotFoundError, ValidationError
from memlane.model.record import utcnow
from memlane.model.session import ChatSession, SessionStatus
from tests.formation_helpers import local_embedder
from tests.scripted_chat_server import ScriptedChatServer

U, CHAT = "maya", "trip-planning"
MIN, HOUR = timedelta(minutes=1), timedelta(hours=1)
TALK = [
    ("ana", "Shall we book the Quillfeather cabin for the first week of June?"),
    ("ben", "Yes, the Quillfeather cabin has a boat dock."),
    ("ana", "Let's book it for June 6 to June 13 then."),
    ("ben", "I can pay the Quillfeather deposit tomorrow."),
]


def open_mem(location: str, **settings: Any) -> Memory:
    chosen: dict[str, Any] = {
        "worker": False,
        "memlane_schedule": {"sessions": 1},
        "llm": "rules",
        **settings,
    }
    return Memory(location, embedder=local_embedder(), settings=Settings(db=location, **chosen))


def chat(mem: Memory, start: datetime, user: str = U) -> None:
    mem.sessions.record_messages(
        [{"name": who, "content": text, "at": start + n * MIN} for n, (who, text) in enumerate(TALK)],
        user_id=user,
        chat_id=CHAT,
    )


def summarised(mem: Memory, start: datetime) -> ChatSession:
    chat(mem, start)
    mem.run_tasks(at=start + 3 * HOUR)
    (session,) = mem.sessions.list(user_id=U)
    assert session.status is SessionStatus.SUMMARIZED and session.memory_id
    return session


def nothing_left_of(mem: Memory, session: ChatSession) -> None:
    assert mem.sessions.list(user_id=U) == [] and mem.sessions.messages(session.id, user_id=U) == []
    assert session.memory_id is not None and mem.get(session.memory_id, user_id=U).state is MemoryState.PURGED
    assert HistoryEvent.PURGE in [h.event for h in mem.history(session.memory_id, user_id=U)]
    rows = json.dumps(list(mem.export_user(U)), default=str)
    assert "Quillfeather" not in rows and "quillfeather" not in rows
    assert mem.search("Quillfeather cabin", user_id=U) == []
    if not mem.settings.db.startswith("postgresql"):  # no row of any ordinary SQLite table keeps the talk
        with sqlite3.connect(mem.settings.db) as con:
            tables = [
                n
                for (n,) in con.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'"
                )
            ]
            rows = [
                (t, json.dumps(row, default=str).lower())
                for t in tables
                for row in con.execute(f'SELECT * FROM "{t}"').fetchall()
            ]
            assert [t for t, row in rows if "quillfeather" in row and f'"{U}"' in row] == []


def test_delete_session_forgets_its_messages_and_summary(location: str) -> None:
    start = utcnow() - 20 * MIN  # the sessions run is scheduled after now
    with open_mem(location) as mem:
        session = summarised(mem, start)
        chat(mem, start, user="lena")  # another user's chat of the same name stays
        with pytest.raises(NotFoundError):
            mem.sessions.delete(session.id, user_id="lena")
        gone = mem.sessions.delete(session.id, user_id=U, reason="user asked")
        assert gone.id == session.id and gone.message_count == 4
        nothing_left_of(mem, session)
        with pytest.raises(NotFoundError):
            mem.sessions.delete(session.id, user_id=U)
        assert [s.message_count for s in mem.sessions.list(user_id="lena")] == [4]
        mem.sessions.record_message("Back from the trip!", user_id=U, chat_id=CHAT, at=start + 5 * HOUR)
        assert [s.message_count for s in mem.sessions.list(user_id=U)] == [
            1
        ]  # the chat goes on in a new session


def test_purging_the_summary_memory_forgets_the_session_a_soft_delete_does_not(location: str) -> None:
    start = utcnow() - 20 * MIN  # the sessions run is scheduled after now
    with open_mem(location) as mem:
        session = summarised(mem, start)
        assert session.memory_id is not None
        mem.delete(session.memory_id, user_id=U)  # restorable: the conversation stays
        assert len(mem.sessions.messages(session.id, user_id=U)) == 4
        mem.purge(session.memory_id, user_id=U)
        nothing_left_of(mem, session)


def test_a_session_without_summary_is_deleted_with_its_messages(location: str) -> None:
    with open_mem(location) as mem:
        mem.sessions.record_message("hello", user_id=U, chat_id=CHAT)
        (session,) = mem.sessions.list(user_id=U)
        assert mem.sessions.delete(session.id, user_id=U).memory_id is None
        assert mem.sessions.list(user_id=U) == [] and mem.sessions.messages(session.id, user_id=U) == []
        with pytest.raises(ValidationError):
            mem.sessions.delete("", user_id=U)


def test_the_sessions_task_does_not_bring_back_a_session_deleted_during_its_run(
    location: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    start = utcnow() - 20 * MIN  # the sessions run is scheduled after now
    with open_mem(location) as mem:
        chat(mem, start)
        (session,) = mem.sessions.list(user_id=U)
        summarize = sessions_task.summarize

        def then_delete(*args: Any) -> None:
            summarize(*args)  # the model ran; the user deletes the session before the run commits
            mem.sessions.delete(session.id, user_id=U)

        monkeypatch.setattr(sessions_task, "summarize", then_delete)
        mem.run_tasks(at=start + 3 * HOUR)
        assert mem.sessions.list(user_id=U) == [] and mem.list(user_id=U, filters={"type": "session"}) == []


def test_export_and_import_carry_sessions_and_messages(location: str, tmp_path: Any) -> None:
    start = utcnow() - 20 * MIN  # the sessions run is scheduled after now
    with open_mem(location) as mem:
        session = summarised(mem, start)
        mem.sessions.record_message(
            "Anyone up for a swim?", user_id=U, chat_id=CHAT, sender="cy", at=start + 4 * HOUR
        )
        rows = list(mem.export_user(U))
        kinds = [r["kind"] for r in rows]
        assert kinds.count("session") == 2 and kinds.count("message") == 5
        assert kinds.index("session") < kinds.index("message")
        before = {s.id: s for s in mem.sessions.list(user_id=U)}
        texts = {sid: [m.text for m in mem.sessions.messages(sid, user_id=U)] for sid in before}
    with open_mem(str(tmp_path / "copy.db")) as copy:
        for _ in range(2):  # imported twice: nothing doubles
            copy.import_rows(json.loads(json.dumps(rows)))
        assert {s.id: s for s in copy.sessions.list(user_id=U)} == before
        assert {sid: [m.text for m in copy.sessions.messages(sid, user_id=U)] for sid in before} == texts
        assert copy.get(str(session.memory_id), user_id=U).metadata["session"]["id"] == session.id
        copy.sessions.record_message(
            "Back home.", user_id=U, chat_id=CHAT, at=start + 4 * HOUR + MIN
        )  # the chat goes on
        assert [s.message_count for s in copy.sessions.list(user_id=U)] == [4, 2]


def test_import_refuses_a_message_without_its_session_and_writes_nothing(tmp_path: Any) -> None:
    with open_mem(str(tmp_path / "m.db")) as mem:
        chat(mem, utcnow() - HOUR)
        rows = [r for r in mem.export_user(U) if r["kind"] in ("session", "message")]
    orphan = {**rows[1], "session_id": "no-such-session"}
    with open_mem(str(tmp_path / "n.db")) as other:
        with pytest.raises(ValidationError, match=r"row 2: .*no-such-session"):
            other.import_rows([rows[0], orphan])
        with pytest.raises(ValidationError, match="row 1"):
            other.import_rows([{**rows[0], "status": "lost"}])
        assert other.sessions.list(user_id=U) == []


def test_session_events_say_what_opened_closed_skipped_summarised_and_failed(location: str) -> None:
    start = utcnow() - 20 * MIN  # the sessions run is scheduled after now
    with open_mem(location) as mem:
        seen: list[tuple[str, str]] = []
        mem.events.subscribe(lambda e: seen.append((e.type, e.data.get("session_id", ""))))
        chat(mem, start)
        mem.sessions.record_message("Next trip?", user_id=U, chat_id=CHAT, at=start + 2 * HOUR)
        first, second = mem.sessions.list(user_id=U)
        mem.run_tasks(at=start + 3 * HOUR)
        session_events = [e for e in seen if e[0].startswith("session.")]
        # the message two hours later closes the first session and opens the second; the run closes the
        # second (idle past the gap), too small to summarise (one message), and summarises the first
        assert session_events == [
            ("session.opened", first.id),
            ("session.closed", first.id),
            ("session.opened", second.id),
            ("session.closed", second.id),
            ("session.skipped", second.id),
            ("session.summarized", first.id),
        ]


def test_a_summary_model_of_its_own_with_the_configured_provider(
    location: str, server: ScriptedChatServer
) -> None:
    reply = {
        "summary": "Ana and Ben booked the Quillfeather cabin.",
        "topics": ["cabin"],
        "decisions": [],
        "open_questions": [],
        "entities": ["Quillfeather"],
    }
    server.reply(reply)
    start = utcnow() - 20 * MIN  # the sessions run is scheduled after now
    with open_mem(
        location,
        llm="openai",
        openai_base_url=server.url,
        openai_api_key="k",
        llm_model="main-model",
        context_session_summary_model="summary-model",
    ) as mem:
        session = summarised(mem, start)
        assert mem.get(str(session.memory_id), user_id=U).metadata["session"]["summary"] == reply["summary"]
    assert [r["json"]["model"] for r in server.requests] == ["summary-model"]
    with pytest.raises(ValueError, match="MEMLANE_LLM=openai or bedrock"):
        Settings(llm="rules", context_session_summary_model="summary-model")
