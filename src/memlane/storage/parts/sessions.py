"""The chat-sessions part of a backend."""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

from memlane.model.session import ChatSession, MessageHit, SessionFilter, SessionMessage


@runtime_checkable
class SessionStore(Protocol):
    """Chat sessions and their messages (written by a :class:`WriteBatch`), and the messages' vectors."""

    def chat_sessions(
        self, user_id: str, where: SessionFilter, *, limit: int = 100
    ) -> builtins.list[ChatSession]:
        """The user's chat sessions matching ``where``, oldest first, filtered in the database."""

    def latest_sessions(self, user_id: str, chat_ids: Sequence[str]) -> dict[str, ChatSession]:
        """Each of the chats' latest session (the last started), for the chats that have one."""

    def session_messages(
        self, user_id: str, session_id: str, *, limit: int = 1000
    ) -> builtins.list[SessionMessage]:
        """The messages of one of the user's sessions, oldest first."""

    def messages_by_id(self, user_id: str, ids: Sequence[str]) -> builtins.list[SessionMessage]:
        """The user's recorded messages among ``ids`` (an idempotent record reads what it stored before)."""

    def search_messages(
        self,
        user_id: str,
        *,
        text: str,
        vector: Sequence[float] | None,
        embedder: str,
        chat_id: str | None = None,
        limit: int = 20,
    ) -> builtins.list[MessageHit]:
        """The user's recorded messages (of one chat when given) best matching ``text`` by keyword and
        ``vector`` by cosine (against the vectors ``embedder`` made), ``limit`` of each, merged by id;
        a keyword hit gets its similarity when it has a vector of that embedder."""

    def messages_without_vector(
        self, user_id: str, embedder: str, *, limit: int = 256
    ) -> builtins.list[SessionMessage]:
        """The user's messages with no vector of ``embedder`` yet, oldest first."""

    def put_message_vectors(self, user_id: str, embedder: str, vectors: Mapping[str, Sequence[float]]) -> int:
        """Store (or replace) the vectors of the user's messages of those ids, one transaction; a message
        of another user's, or gone, is skipped. Returns how many were stored. Derived data, like an index:
        no history, no event."""
