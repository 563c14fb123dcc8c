"""The chat proxy records a named chat's messages as group-chat sessions (docs/sessions.md).

A client (Open WebUI, the OpenAI SDK) resends the whole conversation each turn, so only its trailing
user turn is new, and only the part of it not recorded yet: a regenerated answer resends a user turn
the proxy already recorded. The rule (:func:`unrecorded`): the trailing user messages are those after
the request's last assistant message (the *anchor*). In the chat's latest session, the place to compare
is just after the last stored assistant message with the anchor's text (or the session's start when
the request has no anchor, or the anchor is not in that session); the trailing messages that match the
stored user messages there, in order, were recorded already; the rest are recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memlane.engine.memory import Memory
from memlane.model.session import SessionMessage
from memlane.server.chat_messages import text_of, user_text_of

MAX_COMPARED = 10_000  # of a (very long) latest session, the first messages compared


@dataclass(frozen=True)
class Said:
    text: str
    sender: str | None = None  # the OpenAI message's ``name``


def clean(text: str) -> str:
    return text.replace("\x00", "").strip()  # no NUL in a store


def trailing_turn(messages: Sequence[dict[str, Any]]) -> tuple[str | None, list[Said]]:
    """The request's user messages (with text) after its last assistant message, and the text of the
    last assistant message with text (None: the conversation's first turn). Tool and system messages
    are not chat messages."""
    n = len(messages)
    while n > 0 and messages[n - 1].get("role") != "assistant":
        n -= 1
    said = [
        Said(clean(user_text_of(m)), _sender(m))
        for m in messages[n:]
        if m.get("role") == "user" and clean(user_text_of(m))
    ]
    anchor = next(
        (
            clean(text_of(m))
            for m in reversed(messages[:n])
            if m.get("role") == "assistant" and clean(text_of(m))
        ),
        None,
    )
    return anchor, said


def _sender(message: dict[str, Any]) -> str | None:
    name = message.get("name")
    return name.strip() if isinstance(name, str) and name.strip() else None


def unrecorded(anchor: str | None, said: Sequence[Said], stored: Sequence[SessionMessage]) -> list[Said]:
    """``said`` without the leading messages the latest session (``stored``, oldest first) already holds
    after the anchor (see the module's docstring)."""
    start = 0
    if anchor is not None:
        start = next(
            (
                n + 1
                for n in range(len(stored) - 1, -1, -1)
                if stored[n].role == "assistant" and stored[n].text == anchor
            ),
            0,
        )
    done = 0
    for msg in stored[start:]:
        if msg.role != "user" or done == len(said) or msg.text != said[done].text:
            break
        done += 1
    return list(said[done:])


def _new_messages(memory: Memory, user: str, chat: str, messages: Sequence[dict[str, Any]]) -> list[Said]:
    anchor, said = trailing_turn(messages)
    if not said:
        return []
    latest = memory.sessions.latest(user_id=user, chat_id=chat)
    stored = (
        []
        if latest is None
        else memory.sessions.messages(latest.id, user_id=user, limit=min(latest.message_count, MAX_COMPARED))
    )
    return unrecorded(anchor, said, stored)


def record_request(memory: Memory, user: str, chat: str, messages: Sequence[dict[str, Any]]) -> int:
    """Record the request's new user messages in the chat; returns how many."""
    new = _new_messages(memory, user, chat, messages)
    if new:
        memory.sessions.record_messages(
            [{"role": "user", "content": s.text, "name": s.sender} for s in new], user_id=user, chat_id=chat
        )
    return len(new)


def record_answer(memory: Memory, user: str, chat: str, answer: str) -> None:
    if clean(answer):
        memory.sessions.record_messages(
            [{"role": "assistant", "content": clean(answer)}], user_id=user, chat_id=chat
        )
