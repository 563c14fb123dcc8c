"""Sessionization: assign incoming chat messages to sessions by their own times.

Messages are taken in time order per chat. One at most ``gap`` after the chat's latest session's last
message joins that session (a silence of exactly ``gap`` does not split); a longer silence closes it
and opens a new one; so does any message after a session the background task already closed. A
message older than the chat's latest session's start (or than the end of a closed one) is refused:
history is recorded in time order (an import sends the oldest first).

Recording is idempotent for messages with a stable id (a client's ``ref`` or an idempotency key, see
``message_id``): one already stored is returned as stored, not recorded twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from memlane.model.errors import ConflictError, ValidationError
from memlane.model.ids import deterministic_id, new_id
from memlane.model.jobs import Job
from memlane.model.session import ChatSession, SessionMessage, SessionStatus
from memlane.storage.base import Backend, WriteBatch


def message_id(user_id: str, chat_id: str, ref: str | None, key: str | None, n: int) -> str:
    """A message's id: stable for the client's own id (``ref``) in a chat, else for the ``n``-th message
    of a call with an idempotency ``key``, else new."""
    if ref is not None:
        return deterministic_id(user_id, f"message:{chat_id}", f"ref:{ref}")
    if key is not None:
        return deterministic_id(user_id, f"message:{chat_id}", f"key:{key}#{n}")
    return new_id()


def assign(
    latest: Mapping[str, ChatSession], incoming: Sequence[SessionMessage], gap: timedelta, now: datetime
) -> tuple[list[ChatSession], list[SessionMessage]]:
    """The sessions to write (changed or new) and the messages with their session ids. ``latest`` maps
    a chat to its latest stored session."""
    current = dict(latest)
    touched: dict[str, ChatSession] = {}
    placed: list[SessionMessage] = []
    for msg in sorted(incoming, key=lambda m: m.at):  # stable: equal times keep their given order
        session = current.get(msg.chat_id)
        is_open = session is not None and session.status is SessionStatus.OPEN
        if session is not None and msg.at < (session.started_at if is_open else session.ended_at):
            raise ValidationError(
                f"message at {msg.at.isoformat()} is older than chat {msg.chat_id!r}'s latest session "
                f"(from {session.started_at.isoformat()}); record a chat's messages in time order"
            )
        if session is None or not is_open or msg.at - session.ended_at > gap:
            if session is not None and is_open:
                touched[session.id] = session.model_copy(
                    update={"status": SessionStatus.CLOSED, "updated_at": now}
                )
            session = ChatSession(
                id=new_id(),
                user_id=msg.user_id,
                chat_id=msg.chat_id,
                started_at=msg.at,
                ended_at=msg.at,
                updated_at=now,
            )
        who = msg.sender or msg.role
        session = session.model_copy(
            update={
                "ended_at": max(session.ended_at, msg.at),
                "message_count": session.message_count + 1,
                "participants": session.participants + ([who] if who not in session.participants else []),
                "updated_at": now,
            }
        )
        current[msg.chat_id] = touched[session.id] = session
        placed.append(msg.model_copy(update={"session_id": session.id}))
    return list(touched.values()), placed


def record(
    backend: Backend,
    user_id: str,
    incoming: Sequence[SessionMessage],
    gap: timedelta,
    now: datetime,
    schedule: Sequence[Job] = (),
) -> tuple[list[SessionMessage], list[ChatSession], list[ChatSession]]:
    """Sessionize and store ``incoming`` (one user's) in one transaction, with ``schedule`` (the user's
    next sessions task, enqueued unless it is); returns the stored messages, the sessions they opened and
    the sessions they closed (a message past the gap starts the chat's next session).
    The user lock makes the read of each chat's latest session and the write one step."""
    if len({m.id for m in incoming}) < len(incoming):
        raise ValidationError(
            "two messages of one call have the same ref; each message's ref must be its own"
        )
    with backend.user_lock(user_id):
        stored = {m.id: m for m in backend.sessions.messages_by_id(user_id, [m.id for m in incoming])}
        for m in incoming:
            old = stored.get(m.id)
            if old is not None and (old.text, old.role, old.sender) != (m.text, m.role, m.sender):
                raise ConflictError(
                    f"message {m.ref or m.id!r} was recorded before with other content; nothing "
                    "was recorded (a ref or an idempotency key names one message)"
                )
        fresh = [m for m in incoming if m.id not in stored]
        latest = (
            backend.sessions.latest_sessions(user_id, sorted({m.chat_id for m in fresh})) if fresh else {}
        )
        sessions, placed = assign(latest, fresh, gap, now)
        if fresh:
            backend.apply(WriteBatch(sessions=sessions, messages=placed, schedule=list(schedule)))
    known = {s.id for s in latest.values()}
    stored.update((m.id, m) for m in placed)
    return (
        [stored[m.id] for m in sorted(incoming, key=lambda m: m.at)],
        [s for s in sessions if s.id not in known],
        [s for s in sessions if s.status is SessionStatus.CLOSED],
    )
