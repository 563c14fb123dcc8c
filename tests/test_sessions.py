"""Group-chat sessions (seed 004, issue 12) on SQLite and a real PostgreSQL: messages recorded per chat
are split into sessions by inactivity at exactly CONTEXT_SESSION_GAP_MINUTES, with participants and
counts; bad input and the disabled flag change nothing; one user never sees another's sessions.

Times are the messages' own (an import with past timestamps), so the boundary is exact."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memlane import AsyncMemory, Memory
from memlane.model.config import Settings
from memlane.model.errors import ConfigError, ConflictError, ValidationError
from memlane.model.session import SessionStatus
from memlane.storage.base import WriteBatch
from tests.formation_helpers import local_embedder

U, OTHER, CHAT = "maya", "lena", "trip-planning"
T0 = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)
MIN = timedelta(minutes=1)


def open_mem(location: str, **settings: Any) -> Memory:
    chosen: dict[str, Any] = {"worker": False, **settings}
    return Memory(location, embedder=local_embedder(), llm="rules", settings=Settings(db=location, **chosen))


@pytest.fixture
def mem(location: str) -> Iterator[Memory]:
    with open_mem(location) as m:
        yield m


def msg(text: str, at: datetime, name: str | None = None, role: str = "user") -> dict[str, Any]:
    return {"role": role, "content": text, "name": name, "at": at}


def test_a_silence_of_exactly_the_gap_stays_in_the_session_and_one_second_more_splits(mem: Memory) -> None:
    stored = mem.sessions.record_messages(
        [
            msg("Shall we book the cabin for June?", T0, "ana"),
            msg("Yes, the one near the lake.", T0 + 10 * MIN, "ben"),
            msg("I can pay the deposit.", T0 + 40 * MIN, "ana"),  # exactly 30 minutes after the last one
            msg("Did anyone check the ferry times?", T0 + 70 * MIN + timedelta(seconds=1), "ben"),
        ],
        user_id=U,
        chat_id=CHAT,
    )
    first, second = mem.sessions.list(user_id=U, chat_id=CHAT)
    assert [m.session_id for m in stored] == [first.id] * 3 + [second.id]
    assert (first.started_at, first.ended_at, first.message_count) == (T0, T0 + 40 * MIN, 3)
    assert (second.started_at, second.message_count) == (T0 + 70 * MIN + timedelta(seconds=1), 1)
    assert (first.status, second.status) == (SessionStatus.CLOSED, SessionStatus.OPEN)
    assert [m.text for m in mem.sessions.messages(first.id, user_id=U)] == [
        "Shall we book the cabin for June?",
        "Yes, the one near the lake.",
        "I can pay the deposit.",
    ]


def test_participants_and_counts_grow_message_by_message(mem: Memory) -> None:
    for n, (who, role) in enumerate([("ana", "user"), ("ben", "user"), (None, "assistant"), ("ana", "user")]):
        mem.sessions.record_message(
            f"message {n}", user_id=U, chat_id=CHAT, sender=who, role=role, at=T0 + n * MIN
        )
    (session,) = mem.sessions.list(user_id=U)
    assert session.participants == ["ana", "ben", "assistant"]
    assert session.message_count == 4 and session.ended_at == T0 + 3 * MIN
    assert [(m.sender, m.role) for m in mem.sessions.messages(session.id, user_id=U)] == [
        ("ana", "user"),
        ("ben", "user"),
        (None, "assistant"),
        ("ana", "user"),
    ]


def test_the_gap_is_configurable_and_chats_are_sessionized_apart(location: str) -> None:
    with open_mem(location, context_session_gap_minutes=5) as mem:
        mem.sessions.record_messages(
            [msg("a", T0, "ana"), msg("b", T0 + 6 * MIN, "ana")], user_id=U, chat_id=CHAT
        )
        mem.sessions.record_messages([msg("c", T0 + 3 * MIN, "cy")], user_id=U, chat_id="book-club")
        assert [s.message_count for s in mem.sessions.list(user_id=U, chat_id=CHAT)] == [1, 1]
        (club,) = mem.sessions.list(user_id=U, chat_id="book-club")
        assert club.participants == ["cy"] and club.status is SessionStatus.OPEN
        assert [s.chat_id for s in mem.sessions.list(user_id=U, status="open")] == ["book-club", CHAT]


def test_messages_are_placed_by_their_own_times_and_an_older_one_is_refused(mem: Memory) -> None:
    mem.sessions.record_messages(
        [msg("late", T0 + 50 * MIN, "ben"), msg("early", T0, "ana")], user_id=U, chat_id=CHAT
    )
    sessions = mem.sessions.list(user_id=U, chat_id=CHAT)
    assert [(s.started_at, s.message_count) for s in sessions] == [(T0, 1), (T0 + 50 * MIN, 1)]
    with pytest.raises(ValidationError, match="older than chat 'trip-planning'"):
        mem.sessions.record_messages(
            [msg("fine", T0 + 55 * MIN), msg("too old", T0 + 20 * MIN)], user_id=U, chat_id=CHAT
        )
    assert mem.sessions.list(user_id=U, chat_id=CHAT) == sessions  # nothing of the refused call was recorded


def test_tenancy_one_users_chat_is_not_anothers(mem: Memory) -> None:
    mem.sessions.record_message("mine", user_id=U, chat_id=CHAT, sender="ana", at=T0)
    mem.sessions.record_message("theirs", user_id=OTHER, chat_id=CHAT, sender="zed", at=T0 + 5 * MIN)
    (own,) = mem.sessions.list(user_id=U)
    (theirs,) = mem.sessions.list(user_id=OTHER)
    assert own.id != theirs.id and (own.participants, theirs.participants) == (["ana"], ["zed"])
    assert mem.sessions.messages(own.id, user_id=OTHER) == []
    mem.backend.delete_user(OTHER)
    assert mem.sessions.list(user_id=OTHER) == [] and mem.sessions.messages(theirs.id, user_id=OTHER) == []
    assert mem.sessions.list(user_id=U) == [own]


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda m: m.sessions.record_message("", user_id=U, chat_id=CHAT), "content is empty"),
        (lambda m: m.sessions.record_message("hi", user_id=U, chat_id=None), "chat_id is required"),
        (lambda m: m.sessions.record_message("hi", user_id=U, chat_id=" "), "chat_id must be"),
        (lambda m: m.sessions.record_message("hi", user_id="", chat_id=CHAT), "invalid user_id"),
        (lambda m: m.sessions.record_message("hi", user_id=U, chat_id=CHAT, role="robot"), "messages\\[0\\]"),
        (lambda m: m.sessions.record_message("hi", user_id=U, chat_id=CHAT, sender=""), "name must be"),
        (lambda m: m.sessions.record_message("hi", user_id=U, chat_id=CHAT, at="yesterday"), "ISO-8601"),
        (lambda m: m.sessions.record_messages([], user_id=U, chat_id=CHAT), "non-empty"),
        (
            lambda m: m.sessions.record_messages([msg("x", T0)] * 1001, user_id=U, chat_id=CHAT),
            "at most 1000",
        ),
        (lambda m: m.sessions.list(user_id=U, status="archived"), "unknown session status"),
    ],
)
def test_bad_input_is_a_clear_error_and_changes_nothing(mem: Memory, call: Any, error: str) -> None:
    mem.sessions.record_message("kept", user_id=U, chat_id=CHAT, sender="ana", at=T0)
    before = mem.sessions.list(user_id=U)
    with pytest.raises(ValidationError, match=error):
        call(mem)
    assert mem.sessions.list(user_id=U) == before


def test_a_session_write_from_a_stale_read_is_refused(mem: Memory) -> None:
    mem.sessions.record_messages([msg("a", T0, "ana"), msg("b", T0 + MIN, "ben")], user_id=U, chat_id=CHAT)
    (session,) = mem.sessions.list(user_id=U)
    stale = session.model_copy(update={"message_count": 1, "status": SessionStatus.SUMMARIZED})
    with pytest.raises(ConflictError, match="got messages since it was read"):
        mem.backend.apply(WriteBatch(sessions=[stale]))
    with pytest.raises(ConflictError, match="another user"):
        mem.backend.apply(WriteBatch(sessions=[session.model_copy(update={"user_id": OTHER})]))
    assert mem.sessions.list(user_id=U) == [session] and mem.sessions.list(user_id=OTHER) == []


def test_async_memory_records_through_the_same_engine(mem: Memory) -> None:
    amem = AsyncMemory(memory=mem)

    async def run() -> list[str]:
        await amem.sessions.record_messages([msg("a", T0, "ana")], user_id=U, chat_id=CHAT)
        await amem.sessions.record_message("b", user_id=U, chat_id=CHAT, sender="ben", at=T0 + 31 * MIN)
        first, second = await amem.sessions.list(user_id=U)
        assert (first.status, second.status) == (SessionStatus.CLOSED, SessionStatus.OPEN)
        assert await amem.sessions.latest(user_id=U, chat_id=CHAT) == await amem.sessions.get(
            second.id, user_id=U
        )
        texts = [m.text for m in await amem.sessions.messages(second.id, user_id=U)]
        assert (await amem.sessions.delete(first.id, user_id=U)).id == first.id
        assert [s.id for s in await amem.sessions.list(user_id=U)] == [second.id]
        return texts

    assert asyncio.run(run()) == ["b"]


def test_with_session_memory_off_nothing_is_recorded(location: str) -> None:
    with open_mem(location, context_session_memory_enabled=False) as mem:
        with pytest.raises(ConfigError, match="CONTEXT_SESSION_MEMORY_ENABLED=false"):
            mem.sessions.record_message("hello", user_id=U, chat_id=CHAT, at=T0)
        assert mem.sessions.list(user_id=U) == []


def test_a_message_with_the_clients_id_is_recorded_once(mem: Memory) -> None:
    first = [
        {**msg("Shall we book the cabin?", T0, "ana"), "ref": "wa-1"},
        {**msg("Yes, near the lake.", T0 + MIN, "ben"), "ref": "wa-2"},
    ]
    stored = mem.sessions.record_messages(first, user_id=U, chat_id=CHAT)
    # a re-import of the chat's history with one new message: the known ones come back as stored
    again = mem.sessions.record_messages(
        [*first, {**msg("June works.", T0 + 2 * MIN, "ana"), "ref": "wa-3"}], user_id=U, chat_id=CHAT
    )
    assert [m.id for m in again[:2]] == [m.id for m in stored]
    assert [(s.message_count, s.participants) for s in mem.sessions.list(user_id=U, chat_id=CHAT)] == [
        (3, ["ana", "ben"])
    ]
    with pytest.raises(ValidationError, match="same ref"):
        mem.sessions.record_messages(
            [{**msg("a", T0 + 3 * MIN), "ref": "x"}, {**msg("b", T0 + 4 * MIN), "ref": "x"}],
            user_id=U,
            chat_id=CHAT,
        )
    with pytest.raises(ConflictError, match="other content"):
        mem.sessions.record_messages(
            [{**msg("Shall we book the hotel?", T0, "ana"), "ref": "wa-1"}], user_id=U, chat_id=CHAT
        )
    assert mem.sessions.list(user_id=U, chat_id=CHAT)[0].message_count == 3  # nothing of the refused calls
    other = mem.sessions.record_messages(
        first, user_id=U, chat_id="another-chat"
    )  # a ref names a message of one chat
    assert {m.id for m in other}.isdisjoint(m.id for m in stored)
