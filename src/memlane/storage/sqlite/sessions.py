"""SQLite side of chat sessions and their messages (model/session.py): written inside a batch's
transaction, read by user."""

from __future__ import annotations

import builtins
import json
from collections.abc import Mapping, Sequence
from typing import Any

from memlane.model.errors import ConflictError
from memlane.model.session import ChatSession, MessageHit, SessionFilter, SessionMessage
from memlane.storage.filter_sql import SQLITE, iso, session_where
from memlane.storage.keywords import query_words
from memlane.storage.parts.sessions import SessionStore
from memlane.storage.sqlite.fts import match_messages, message_row
from memlane.storage.sqlite.part import SqlitePart
from memlane.storage.sqlite.rows import vector_blob

S_FIELDS: tuple[str, ...] = tuple(ChatSession.model_fields)
M_FIELDS: tuple[str, ...] = tuple(SessionMessage.model_fields)
S_COLS, M_COLS = ", ".join(S_FIELDS), ", ".join(M_FIELDS)
MSG_COLS = ", ".join(f"m.{f}" for f in M_FIELDS)
_UPSERT = (
    f"INSERT INTO sessions({S_COLS}) VALUES ({', '.join('?' for _ in S_FIELDS)}) ON CONFLICT(id) DO UPDATE "
    f"SET {', '.join(f'{f} = excluded.{f}' for f in S_FIELDS if f not in ('id', 'user_id', 'chat_id'))} "
    "WHERE sessions.user_id = excluded.user_id AND sessions.message_count <= excluded.message_count RETURNING id"
)


def _session_params(s: ChatSession) -> tuple[Any, ...]:
    row = s.model_dump(mode="json")
    row.update(
        participants=json.dumps(s.participants),
        started_at=iso(s.started_at),
        ended_at=iso(s.ended_at),
        updated_at=iso(s.updated_at),
    )
    return tuple(row[f] for f in S_FIELDS)


def write_sessions(
    c: Any,
    sessions: Sequence[ChatSession],
    messages: Sequence[SessionMessage],
    dropped: Sequence[tuple[str, str]] = (),
) -> None:
    """Upsert the sessions, insert the messages, then delete the ``dropped`` (user, session) with their
    messages; ConflictError (the transaction rolls back) for a session id that is another user's, or a
    write that would lower a session's message count (a stale read)."""
    for s in sessions:
        if c.execute(_UPSERT, _session_params(s)).fetchone() is None:
            raise ConflictError(
                f"session {s.id} belongs to another user or got messages since it was read; nothing was written"
            )
    insert = f"INSERT INTO messages({M_COLS}) VALUES ({', '.join('?' for _ in M_FIELDS)}) RETURNING rowid"
    for m in messages:
        rowid = c.execute(
            insert, tuple(iso(m.at) if f == "at" else getattr(m, f) for f in M_FIELDS)
        ).fetchone()[0]
        c.execute(
            "INSERT INTO messages_fts(rowid, uid, text) VALUES (?, ?, ?)",
            message_row(rowid, m.user_id, m.text),
        )
    c.executemany(
        "DELETE FROM messages WHERE user_id = ? AND session_id = ?", dropped
    )  # a trigger takes fts, vectors
    c.executemany("DELETE FROM sessions WHERE user_id = ? AND id = ?", dropped)


def _session(r: Any) -> ChatSession:
    return ChatSession.model_validate(
        {**{f: r[f] for f in S_FIELDS}, "participants": json.loads(r["participants"])}
    )


def _message(r: Any) -> SessionMessage:
    return SessionMessage.model_validate({f: r[f] for f in M_FIELDS})


class SqliteSessions(SqlitePart, SessionStore):
    """``SqliteBackend.sessions``."""

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
        chat, chat_args = (" AND m.chat_id = ?", (chat_id,)) if chat_id is not None else ("", ())
        hits: dict[str, MessageHit] = {}
        words = query_words(text)
        if words:  # bm25 is negative, lower is better; the user's own postings only (fts.py)
            for r in self._rows(
                f"SELECT -bm25(messages_fts) AS score, {MSG_COLS} FROM messages_fts f JOIN messages m "
                f"ON m.rowid = f.rowid WHERE messages_fts MATCH ? AND m.user_id = ?{chat} "
                "ORDER BY bm25(messages_fts) LIMIT ?",
                (match_messages(user_id, words), user_id, *chat_args, limit),
            ):
                hits[r["id"]] = MessageHit(message=_message(r), keyword=float(r["score"]))
        if vector is None:
            return list(hits.values())
        blob = vector_blob(vector)
        # exact cosine over the user's message vectors (a chat's history, not a corpus: see docs/sessions.md)
        for r in self._rows(
            f"SELECT 1.0 - vec_distance_cosine(v.embedding, ?) AS sim, {MSG_COLS} FROM message_vectors v "
            f"JOIN messages m ON m.id = v.message_id WHERE v.user_id = ? AND v.embedder = ?{chat} "
            "ORDER BY sim DESC LIMIT ?",
            (blob, user_id, embedder, *chat_args, limit),
        ):
            hit = hits.setdefault(r["id"], MessageHit(message=_message(r)))
            hit.similarity = float(r["sim"])
        missing = [i for i, h in hits.items() if h.similarity is None]
        if missing:
            marks = ", ".join("?" for _ in missing)
            for r in self._rows(
                "SELECT message_id, 1.0 - vec_distance_cosine(embedding, ?) AS sim FROM message_vectors "
                f"WHERE user_id = ? AND embedder = ? AND message_id IN ({marks})",
                (blob, user_id, embedder, *missing),
            ):
                hits[r["message_id"]].similarity = float(r["sim"])
        return list(hits.values())

    def messages_without_vector(
        self, user_id: str, embedder: str, *, limit: int = 256
    ) -> builtins.list[SessionMessage]:
        rows = self._rows(
            f"SELECT {MSG_COLS} FROM messages m WHERE m.user_id = ? AND NOT EXISTS (SELECT 1 FROM "
            "message_vectors v WHERE v.message_id = m.id AND v.embedder = ?) ORDER BY m.at, m.rowid "
            "LIMIT ?",
            (user_id, embedder, limit),
        )
        return [_message(r) for r in rows]

    def put_message_vectors(self, user_id: str, embedder: str, vectors: Mapping[str, Sequence[float]]) -> int:
        stored = 0
        with self._tx() as c:
            for message_id, vector in vectors.items():
                stored += c.execute(
                    "INSERT OR REPLACE INTO message_vectors(message_id, user_id, embedder, embedding) "
                    "SELECT id, user_id, ?, ? FROM messages WHERE id = ? AND user_id = ?",
                    (embedder, vector_blob(vector), message_id, user_id),
                ).rowcount
        return stored

    def chat_sessions(
        self, user_id: str, where: SessionFilter, *, limit: int = 100
    ) -> builtins.list[ChatSession]:
        sql, params = session_where(user_id, where, SQLITE)
        rows = self._rows(
            f"SELECT {S_COLS} FROM sessions WHERE {sql} ORDER BY started_at, id LIMIT ?", (*params, limit)
        )
        return [_session(r) for r in rows]

    def latest_sessions(self, user_id: str, chat_ids: Sequence[str]) -> dict[str, ChatSession]:
        marks = ", ".join("?" for _ in chat_ids)
        rows = self._rows(
            f"SELECT {S_COLS} FROM sessions s WHERE user_id = ? AND chat_id IN ({marks}) AND "
            "started_at = (SELECT max(started_at) FROM sessions t WHERE t.user_id = s.user_id "
            "AND t.chat_id = s.chat_id)",
            (user_id, *chat_ids),
        )
        return {r["chat_id"]: _session(r) for r in rows}

    def session_messages(
        self, user_id: str, session_id: str, *, limit: int = 1000
    ) -> builtins.list[SessionMessage]:
        rows = self._rows(
            f"SELECT {M_COLS} FROM messages WHERE user_id = ? AND session_id = ? ORDER BY at, rowid LIMIT ?",
            (user_id, session_id, limit),
        )
        return [_message(r) for r in rows]

    def messages_by_id(self, user_id: str, ids: Sequence[str]) -> builtins.list[SessionMessage]:
        found: builtins.list[SessionMessage] = []
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            found += [
                _message(r)
                for r in self._rows(
                    f"SELECT {M_COLS} FROM messages WHERE user_id = ? AND id IN ({', '.join('?' for _ in chunk)})",
                    (user_id, *chunk),
                )
            ]
        return found
