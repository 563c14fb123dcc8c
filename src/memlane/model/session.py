"""Group-chat sessions: the messages of a chat, split into sessions by inactivity.

A message belongs to its chat's latest session when it comes at most ``CONTEXT_SESSION_GAP_MINUTES``
after that session's last message; a longer silence closes the session and opens a new one. A
session is ``open`` while it may still grow, ``closed`` once it cannot, then ``summarized`` (or
``failed``) by the background summariser.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from memlane.model.brief import brief, cut


class SessionStatus(StrEnum):
    OPEN = "open"
    CLOSED = "closed"
    SUMMARIZED = "summarized"
    FAILED = "failed"


class SessionMessage(BaseModel):
    """One recorded chat message (its text stays in the messages table, never in a job payload)."""

    id: str
    user_id: str
    chat_id: str
    session_id: str
    role: Literal["user", "assistant", "system", "tool"] = "user"
    sender: str | None = None  # who wrote it in a group chat (a name or handle)
    text: str
    at: datetime
    ref: str | None = None  # the client's own id of the message (an import's source id), if it gave one

    def __repr_args__(self) -> list[tuple[str, Any]]:
        return brief(
            id=self.id,
            chat_id=self.chat_id,
            role=self.role,
            sender=self.sender,
            text=cut(self.text),
            at=self.at,
        )


class ChatSession(BaseModel):
    id: str
    user_id: str
    chat_id: str
    started_at: datetime
    ended_at: datetime  # the time of its last message
    message_count: int = 0
    participants: list[str] = Field(default_factory=list)  # senders, in order of first message
    status: SessionStatus = SessionStatus.OPEN
    summary_version: int = 0  # the CONTEXT_SESSION_SUMMARY_VERSION of its summary (0: none)
    memory_id: str | None = None  # its summary memory (type ``session``)
    error: str | None = None  # why its last summary failed
    updated_at: datetime


class SessionFilter(BaseModel):
    """Which of a user's sessions to read (every given field must hold; the ``_before`` times exclusive)."""

    chat_id: str | None = None
    ids: tuple[str, ...] = ()  # any of these session ids (empty: any)
    statuses: tuple[SessionStatus, ...] = ()  # any of these (empty: any status)
    ended_before: datetime | None = None
    updated_before: datetime | None = None
    min_messages: int | None = None
    version_below: int | None = None  # summary_version under this


class SessionDigest(BaseModel):
    """A closed session's summary payload, from a model or extracted offline."""

    model_config = ConfigDict(extra="forbid")

    summary: str = Field(description="3-6 short factual sentences about what the session covered.")
    topics: list[str] = Field(default_factory=list, max_length=6, description="Short topic tags.")
    decisions: list[str] = Field(
        default_factory=list, max_length=6, description="Explicit decisions or agreements."
    )
    open_questions: list[str] = Field(default_factory=list, max_length=6, description="Asks left unresolved.")
    entities: list[str] = Field(
        default_factory=list, max_length=12, description="People, places, tools named."
    )


class MessageHit(BaseModel):
    """A recorded message found for a query: its keyword rank score and/or its cosine similarity."""

    message: SessionMessage
    keyword: float = 0.0  # bm25 / ts_rank, higher is better (0: not a keyword match)
    similarity: float | None = None  # cosine to the query (None: no vector of the query's embedder yet)
