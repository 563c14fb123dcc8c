"""PostgreSQL side of chat sessions and their messages (model/session.py): written inside a batch's
transaction, read by user."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import psycopg
from psycopg.rows import dict_row
from pydantic import TypeAdapter

from memlane.model.errors import ConflictError
from memlane.model.session import ChatSession, MessageHit, SessionFilter, SessionMessage
from memlane.storage.filter_sql import POSTGRES, session_where
from memlane.storage.postgres.search import OR_TSQUERY

S_FIELDS: tuple[str, ...] = tuple(ChatSession.model_fields)
M_FIELDS: tuple[str, ...] = tuple(SessionMessage.model_fields)
S_COLS, M_COLS = ", ".join(S_FIELDS), ", ".join(M_FIELDS)
MSG_COLS = ", ".join(f"m.{f}" for f in M_FIELDS)
_SESSIONS, _MESSAGES = TypeAdapter(list[ChatSession]), TypeAdapter(list[SessionMessage])
# One JSON array expanded by the server (as for records, rows.py); RETURNING leaves out another user's id.
_UPSERT = (
    f"INSERT INTO sessions ({S_COLS}) SELECT {S_COLS} FROM jsonb_populate_recordset(NULL::sessions, %s::jsonb) "
    f"ON CONFLICT (id) DO UPDATE SET "
    f"{', '.join(f'{f} = EXCLUDED.{f}' for f in S_FIELDS if f not in ('id', 'user_id', 'chat_id'))} "
    "WHERE sessions.user_id = EXCLUDED.user_id AND sessions.message_count <= EXCLUDED.message_count RETURNING id"
)
_INSERT = (
    f"INSERT INTO messages ({M_COLS}) SELECT {M_COLS} "
    "FROM jsonb_populate_recordset(NULL::messages, %s::jsonb)"
)


def write_sessions(
    cur: psycopg.Cursor[Any],
    sessions: Sequence[ChatSession],
    messages: Sequence[SessionMessage],
    dropped: Sequence[tuple[str, str]] = (),
) -> None:
    """Upsert the sessions, insert the messages, then delete the ``dropped`` (user, session) with their
    messages; ConflictError (the transaction rolls back) for a session id that is another user's, or a
    write that would lower a session's message count (a stale read)."""
    if sessions:
        written = {
            r[0] for r in cur.execute(_UPSERT, (_SESSIONS.dump_json(list(sessions)).decode(),)).fetchall()
        }
        refused = sorted({s.id for s in sessions} - written)
        if refused:
            raise ConflictError(
                f"session {', '.join(refused)} belongs to another user or got messages since it was read; nothing was written"
            )
    if messages:
        cur.execute(_INSERT, (_MESSAGES.dump_json(list(messages)).decode(),))
    if dropped:
        cur.executemany("DELETE FROM messages WHERE user_id = %s AND session_id = %s", dropped)
        cur.executemany("DELETE FROM sessions WHERE user_id = %s AND id = %s", dropped)


def chat_sessions(
    conn: psycopg.Connection[Any], user_id: str, where: SessionFilter, limit: int
) -> list[ChatSession]:
    sql, params = session_where(user_id, where, POSTGRES)
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            f"SELECT {S_COLS} FROM sessions WHERE {sql} ORDER BY started_at, id LIMIT %s", [*params, limit]
        ).fetchall()
    return [ChatSession.model_validate(r) for r in rows]


def latest_sessions(
    conn: psycopg.Connection[Any], user_id: str, chat_ids: Sequence[str]
) -> dict[str, ChatSession]:
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            f"SELECT DISTINCT ON (chat_id) {S_COLS} FROM sessions WHERE user_id = %s AND "
            "chat_id = ANY(%s) ORDER BY chat_id, started_at DESC",
            (user_id, list(chat_ids)),
        ).fetchall()
    return {r["chat_id"]: ChatSession.model_validate(r) for r in rows}


def session_messages(
    conn: psycopg.Connection[Any], user_id: str, session_id: str, limit: int
) -> list[SessionMessage]:
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            f"SELECT {M_COLS} FROM messages WHERE user_id = %s AND session_id = %s ORDER BY at, seq LIMIT %s",
            (user_id, session_id, limit),
        ).fetchall()
    return [SessionMessage.model_validate(r) for r in rows]


def messages_by_id(conn: psycopg.Connection[Any], user_id: str, ids: Sequence[str]) -> list[SessionMessage]:
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            f"SELECT {M_COLS} FROM messages WHERE user_id = %s AND id = ANY(%s)", (user_id, list(ids))
        ).fetchall()
    return [SessionMessage.model_validate(r) for r in rows]


def search_messages(
    conn: psycopg.Connection[Any],
    user_id: str,
    text: str,
    vector: Sequence[float] | None,
    embedder: str,
    chat_id: str | None,
    limit: int,
) -> list[MessageHit]:
    chat, chat_args = (" AND m.chat_id = %s", (chat_id,)) if chat_id is not None else ("", ())
    hits: dict[str, MessageHit] = {}
    with conn.cursor(row_factory=dict_row) as cur:
        query = cur.execute(OR_TSQUERY, (text, [])).fetchone()
        tsq = next(iter(query.values())) if query else None
        if tsq:
            for r in cur.execute(
                f"SELECT ts_rank(m.fts, %s::tsquery) AS score, {MSG_COLS} FROM messages m "
                f"WHERE m.user_id = %s AND m.fts @@ %s::tsquery{chat} ORDER BY score DESC, m.seq "
                "LIMIT %s",
                (tsq, user_id, tsq, *chat_args, limit),
            ).fetchall():
                score = r.pop("score")
                hits[r["id"]] = MessageHit(message=SessionMessage.model_validate(r), keyword=float(score))
        if vector is None:
            return list(hits.values())
        q = np.asarray(vector, dtype=np.float32)
        # exact cosine over the user's message vectors (a chat's history, not a corpus: see docs/sessions.md)
        for r in cur.execute(
            f"SELECT 1 - (v.embedding <=> %s) AS sim, {MSG_COLS} FROM message_vectors v "
            f"JOIN messages m ON m.id = v.message_id WHERE v.user_id = %s AND v.embedder = %s"
            f"{chat} ORDER BY v.embedding <=> %s LIMIT %s",
            (q, user_id, embedder, *chat_args, q, limit),
        ).fetchall():
            sim = r.pop("sim")
            hit = hits.setdefault(r["id"], MessageHit(message=SessionMessage.model_validate(r)))
            hit.similarity = float(sim)
        missing = [i for i, h in hits.items() if h.similarity is None]
        if missing:
            for r in cur.execute(
                "SELECT message_id, 1 - (embedding <=> %s) AS sim FROM message_vectors WHERE "
                "user_id = %s AND embedder = %s AND message_id = ANY(%s)",
                (q, user_id, embedder, missing),
            ).fetchall():
                hits[r["message_id"]].similarity = float(r["sim"])
    return list(hits.values())


def messages_without_vector(
    conn: psycopg.Connection[Any], user_id: str, embedder: str, limit: int
) -> list[SessionMessage]:
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            f"SELECT {MSG_COLS} FROM messages m WHERE m.user_id = %s AND NOT EXISTS (SELECT 1 FROM "
            "message_vectors v WHERE v.message_id = m.id AND v.embedder = %s) ORDER BY m.at, m.seq "
            "LIMIT %s",
            (user_id, embedder, limit),
        ).fetchall()
    return [SessionMessage.model_validate(r) for r in rows]


def put_message_vectors(
    conn: psycopg.Connection[Any], user_id: str, embedder: str, vectors: Mapping[str, Sequence[float]]
) -> int:
    stored = 0
    with conn.cursor() as cur:
        for message_id, vector in vectors.items():
            cur.execute(
                "INSERT INTO message_vectors (message_id, user_id, embedder, embedding) SELECT id, user_id, "
                "%s, %s FROM messages WHERE id = %s AND user_id = %s ON CONFLICT (message_id) DO UPDATE SET "
                "embedder = EXCLUDED.embedder, embedding = EXCLUDED.embedding",
                (embedder, np.asarray(vector, dtype=np.float32), message_id, user_id),
            )
            stored += cur.rowcount
    return stored
