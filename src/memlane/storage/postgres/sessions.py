"""PostgreSQL side of chat sessions and their messages (model/session.py): written inside a batch's
transaction, read by user."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg.rows import dict_row
from pydantic import TypeAdapter

from memlane.model.errors import ConflictError
from memlane.model.session import ChatSession, SessionFilter, SessionMessage
from memlane.storage.filter_sql import POSTGRES, session_where

S_FIELDS: tuple[str, ...] = tuple(ChatSession.model_fields)
M_FIELDS: tuple[str, ...] = tuple(SessionMessage.model_fields)
S_COLS, M_COLS = ", ".join(S_FIELDS), ", ".join(M_FIELDS)
_SESSIONS, _MESSAGES = TypeAdapter(list[ChatSession]), TypeAdapter(list[SessionMessage])
# One JSON array expanded by the server (as for records, rows.py); RETURNING leaves out another user's id.
_UPSERT = (
    f"INSERT INTO sessions ({S_COLS}) SELECT {S_COLS} FROM jsonb_populate_recordset(NULL::sessions, %s::jsonb) "
    f"ON CONFLICT (id) DO UPDATE SET "
    f"{', '.join(f'{f} = EXCLUDED.{f}' for f in S_FIELDS if f not in ('id', 'user_id', 'chat_id'))} "
    "WHERE sessions.user_id = EXCLUDED.user_id AND sessions.message_count <= EXCLUDED.message_count RETURNING id"
)
_INSERT = (f"INSERT INTO messages ({M_COLS}) SELECT {M_COLS} "
           "FROM jsonb_populate_recordset(NULL::messages, %s::jsonb)")


def write_sessions(cur: psycopg.Cursor[Any], sessions: Sequence[ChatSession],
                   messages: Sequence[SessionMessage], dropped: Sequence[tuple[str, str]] = ()) -> None:
    """Upsert the sessions, insert the messages, then delete the ``dropped`` (user, session) with their
    messages; ConflictError (the transaction rolls back) for a session id that is another user's, or a
    write that would lower a session's message count (a stale read)."""
    if sessions:
        written = {r[0] for r in cur.execute(_UPSERT, (_SESSIONS.dump_json(list(sessions)).decode(),)).fetchall()}
        refused = sorted({s.id for s in sessions} - written)
        if refused:
            raise ConflictError(f"session {', '.join(refused)} belongs to another user or got messages since it was read; nothing was written")
    if messages:
        cur.execute(_INSERT, (_MESSAGES.dump_json(list(messages)).decode(),))
    if dropped:
        cur.executemany("DELETE FROM messages WHERE user_id = %s AND session_id = %s", dropped)
        cur.executemany("DELETE FROM sessions WHERE user_id = %s AND id = %s", dropped)


def chat_sessions(conn: psycopg.Connection[Any], user_id: str, where: SessionFilter, limit: int) -> list[ChatSession]:
    sql, params = session_where(user_id, where, POSTGRES)
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(f"SELECT {S_COLS} FROM sessions WHERE {sql} ORDER BY started_at, id LIMIT %s",
                           [*params, limit]).fetchall()
    return [ChatSession.model_validate(r) for r in rows]


def latest_sessions(conn: psycopg.Connection[Any], user_id: str, chat_ids: Sequence[str]) -> dict[str, ChatSession]:
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(f"SELECT DISTINCT ON (chat_id) {S_COLS} FROM sessions WHERE user_id = %s AND "
                           "chat_id = ANY(%s) ORDER BY chat_id, started_at DESC", (user_id, list(chat_ids))).fetchall()
    return {r["chat_id"]: ChatSession.model_validate(r) for r in rows}


def session_messages(conn: psycopg.Connection[Any], user_id: str, session_id: str,
                     limit: int) -> list[SessionMessage]:
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(f"SELECT {M_COLS} FROM messages WHERE user_id = %s AND session_id = %s "
                           "ORDER BY at, seq LIMIT %s", (user_id, session_id, limit)).fetchall()
    return [SessionMessage.model_validate(r) for r in rows]
