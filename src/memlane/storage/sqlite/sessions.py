"""SQLite side of chat sessions and their messages (model/session.py): written inside a batch's
transaction, read by user."""

from __future__ import annotations

import builtins
import json
from collections.abc import Sequence
from typing import Any

from memlane.model.errors import ConflictError
from memlane.model.session import ChatSession, SessionFilter, SessionMessage
from memlane.storage.filter_sql import SQLITE, iso, session_where

S_FIELDS: tuple[str, ...] = tuple(ChatSession.model_fields)
M_FIELDS: tuple[str, ...] = tuple(SessionMessage.model_fields)
S_COLS, M_COLS = ", ".join(S_FIELDS), ", ".join(M_FIELDS)
_UPSERT = (f"INSERT INTO sessions({S_COLS}) VALUES ({', '.join('?' for _ in S_FIELDS)}) ON CONFLICT(id) DO UPDATE "
           f"SET {', '.join(f'{f} = excluded.{f}' for f in S_FIELDS if f not in ('id', 'user_id', 'chat_id'))} "
           "WHERE sessions.user_id = excluded.user_id AND sessions.message_count <= excluded.message_count RETURNING id")


def _session_params(s: ChatSession) -> tuple[Any, ...]:
    row = s.model_dump(mode="json")
    row.update(participants=json.dumps(s.participants), started_at=iso(s.started_at), ended_at=iso(s.ended_at),
               updated_at=iso(s.updated_at))
    return tuple(row[f] for f in S_FIELDS)


def write_sessions(c: Any, sessions: Sequence[ChatSession], messages: Sequence[SessionMessage],
                   dropped: Sequence[tuple[str, str]] = ()) -> None:
    """Upsert the sessions, insert the messages, then delete the ``dropped`` (user, session) with their
    messages; ConflictError (the transaction rolls back) for a session id that is another user's, or a
    write that would lower a session's message count (a stale read)."""
    for s in sessions:
        if c.execute(_UPSERT, _session_params(s)).fetchone() is None:
            raise ConflictError(f"session {s.id} belongs to another user or got messages since it was read; nothing was written")
    c.executemany(f"INSERT INTO messages({M_COLS}) VALUES ({', '.join('?' for _ in M_FIELDS)})",
                  [tuple(iso(m.at) if f == "at" else getattr(m, f) for f in M_FIELDS) for m in messages])
    c.executemany("DELETE FROM messages WHERE user_id = ? AND session_id = ?", dropped)
    c.executemany("DELETE FROM sessions WHERE user_id = ? AND id = ?", dropped)


def _session(r: Any) -> ChatSession:
    return ChatSession.model_validate({**{f: r[f] for f in S_FIELDS}, "participants": json.loads(r["participants"])})


class SqliteSessionsMixin:
    """Needs the backend's ``_rows`` (a read)."""

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> builtins.list[Any]:
        raise NotImplementedError

    def chat_sessions(self, user_id: str, where: SessionFilter, *, limit: int = 100) -> builtins.list[ChatSession]:
        sql, params = session_where(user_id, where, SQLITE)
        rows = self._rows(f"SELECT {S_COLS} FROM sessions WHERE {sql} ORDER BY started_at, id LIMIT ?",
                          (*params, limit))
        return [_session(r) for r in rows]

    def latest_sessions(self, user_id: str, chat_ids: Sequence[str]) -> dict[str, ChatSession]:
        marks = ", ".join("?" for _ in chat_ids)
        rows = self._rows(f"SELECT {S_COLS} FROM sessions s WHERE user_id = ? AND chat_id IN ({marks}) AND "
                          "started_at = (SELECT max(started_at) FROM sessions t WHERE t.user_id = s.user_id "
                          "AND t.chat_id = s.chat_id)", (user_id, *chat_ids))
        return {r["chat_id"]: _session(r) for r in rows}

    def session_messages(self, user_id: str, session_id: str, *, limit: int = 1000) -> builtins.list[SessionMessage]:
        rows = self._rows(f"SELECT {M_COLS} FROM messages WHERE user_id = ? AND session_id = ? "
                          "ORDER BY at, rowid LIMIT ?", (user_id, session_id, limit))
        return [SessionMessage.model_validate({f: r[f] for f in M_FIELDS}) for r in rows]
