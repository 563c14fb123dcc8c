"""``mem.sessions`` (docs/sessions.md): group-chat messages recorded per chat and split into sessions
by inactivity."""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from memlane.engine import validate as v
from memlane.engine.namespace import Namespace, warn_renamed
from memlane.formation import sessionize
from memlane.ledger.commit import commit_planned
from memlane.ledger.events import MemoryEvent
from memlane.ledger.mutations import Mutation
from memlane.lifecycle.schedule import task_job
from memlane.model.candidate import ChatMessage
from memlane.model.enums import MemoryState
from memlane.model.errors import ConfigError, NotFoundError, ValidationError
from memlane.model.ids import deterministic_id
from memlane.model.record import MemoryRecord, utcnow
from memlane.model.session import ChatSession, SessionFilter, SessionMessage, SessionStatus

MAX_MESSAGES = 1000  # per call


class Sessions(Namespace):
    """Every interface records group-chat messages through these calls."""

    def __call__(
        self, *, user_id: str, chat_id: str | None = None, status: str | None = None, limit: int = 100
    ) -> builtins.list[ChatSession]:
        """The old ``mem.sessions(...)``, kept one release: :meth:`list`."""
        warn_renamed("Memory.sessions", "mem.sessions.list")
        return self.list(user_id=user_id, chat_id=chat_id, status=status, limit=limit)

    def record_messages(
        self,
        messages: Sequence[ChatMessage | Mapping[str, Any]],
        *,
        user_id: str,
        chat_id: str,
        at: datetime | str | None = None,
        idempotency_key: str | None = None,
    ) -> builtins.list[SessionMessage]:
        """Record a chat's messages (``{"role", "content", "name", "at", "ref"}``; ``name`` is the sender,
        ``at`` defaults to ``at`` or now, ``ref`` is the client's own id of the message) and assign each
        to a session by its own time; returns them with their session ids. A message whose ``ref`` was
        recorded in the chat before, or a repeated call with the same ``idempotency_key``, returns the
        stored rows instead of recording them twice (ConflictError when their content differs). Refused
        (nothing recorded) with session memory off, or for a message older than the chat's latest
        session."""
        if not self.mem.settings.context_session_memory_enabled:
            raise ConfigError(
                "session memory is off (CONTEXT_SESSION_MEMORY_ENABLED=false); nothing was recorded"
            )
        user, chat = (
            v.user_id(user_id),
            v.required_id("chat_id", chat_id, "the group chat the messages belong to"),
        )
        if isinstance(messages, list | tuple) and len(messages) > MAX_MESSAGES:
            raise ValidationError(f"at most {MAX_MESSAGES} messages per call, got {len(messages)}")
        key = (
            None
            if idempotency_key is None
            else v.required_id("idempotency_key", idempotency_key, "a client's key for one call")
        )
        now = utcnow()
        checked = v.messages(
            list(messages) if isinstance(messages, list | tuple) else messages, v.when("at", at) or now
        )
        for n, m in enumerate(checked):
            if m.name is not None:
                v.optional_scope(f"messages[{n}].name", m.name)
            if m.ref is not None:
                v.optional_scope(f"messages[{n}].ref", m.ref)
        incoming = [
            SessionMessage(
                id=sessionize.message_id(user, chat, m.ref, key, n),
                user_id=user,
                chat_id=chat,
                session_id="",
                role=m.role,
                sender=m.name,
                text=m.content,
                at=v.when("at", m.at) or now,
                ref=m.ref,
            )
            for n, m in enumerate(checked)
        ]
        gap = timedelta(minutes=self.mem.settings.context_session_gap_minutes)
        every = self.mem.settings.memlane_schedule.get(
            "sessions", 0
        )  # the background task closes and summarises
        task = [task_job(user, "sessions", timedelta(hours=every), now)] if every > 0 else []
        stored, opened, closed = sessionize.record(self.mem.backend, user, incoming, gap, now, task)
        for kind, sessions in (("closed", closed), ("opened", opened)):  # the chat's last one closes first
            for s in sessions:
                self.mem.events.publish(
                    MemoryEvent(
                        type=f"session.{kind}", user_id=user, data={"session_id": s.id, "chat_id": chat}
                    )
                )
        return stored

    def record_message(
        self,
        text: str,
        *,
        user_id: str,
        chat_id: str,
        sender: str | None = None,
        role: str = "user",
        at: datetime | str | None = None,
    ) -> SessionMessage:
        """Record one chat message (see :meth:`record_messages`)."""
        item: dict[str, Any] = {"role": role, "content": text, "name": sender, "at": v.when("at", at)}
        return self.record_messages([item], user_id=user_id, chat_id=chat_id)[0]

    def list(
        self, *, user_id: str, chat_id: str | None = None, status: str | None = None, limit: int = 100
    ) -> builtins.list[ChatSession]:
        """The user's chat sessions, oldest first, of one chat and status when given."""
        state = v.choice("session status", status, SessionStatus)
        where = SessionFilter(
            chat_id=v.optional_scope("chat_id", chat_id), statuses=(state,) if state else ()
        )
        return self.mem.backend.sessions.chat_sessions(
            v.user_id(user_id), where, limit=v.positive("limit", limit)
        )

    def messages(self, session_id: str, *, user_id: str, limit: int = 1000) -> builtins.list[SessionMessage]:
        """A session's messages, oldest first."""
        return self.mem.backend.sessions.session_messages(
            v.user_id(user_id), v.required_id("session_id", session_id), limit=v.positive("limit", limit)
        )

    def get(self, session_id: str, *, user_id: str) -> ChatSession:
        """One of the user's sessions (NotFoundError when they have none of that id)."""
        user, sid = v.user_id(user_id), v.required_id("session_id", session_id)
        found = self.mem.backend.sessions.chat_sessions(user, SessionFilter(ids=(sid,)), limit=1)
        if not found:
            raise NotFoundError(f"no session {session_id!r} for user {user_id!r}")
        return found[0]

    def latest(self, *, user_id: str, chat_id: str) -> ChatSession | None:
        """The chat's latest session (the last started), or None when nothing was recorded in it."""
        user, chat = v.user_id(user_id), v.required_id("chat_id", chat_id, "the group chat")
        return self.mem.backend.sessions.latest_sessions(user, [chat]).get(chat)

    def delete(
        self, session_id: str, *, user_id: str, actor: str = "api", reason: str | None = None
    ) -> ChatSession:
        """Forget a session for good: its raw messages, the session itself and its summary memory (purged
        through the write path, with a history row); returns the session as it was. The same happens
        when the summary memory is purged (:meth:`purge`)."""
        user, sid = v.user_id(user_id), v.required_id("session_id", session_id)
        gone: builtins.list[ChatSession] = []

        def plan(stored: dict[str, MemoryRecord]) -> Mutation:
            gone[:] = [self.get(sid, user_id=user)]  # read under the write lock: no summary slips in
            m = Mutation(actor=actor)
            for summary in stored.values():
                if summary.id == gone[0].memory_id and summary.state is not MemoryState.PURGED:
                    m.purge(summary, reason or f"session {sid} deleted")
            m.drop_session(user, sid)
            return m

        ids = [deterministic_id(user, "session", sid)]  # the id the sessions task gives its summary
        known = self.get(sid, user_id=user).memory_id
        commit_planned(
            self.mem.backend,
            self.mem.events,
            {user: ids + ([known] if known and known not in ids else [])},
            plan,
        )
        return gone[0]
