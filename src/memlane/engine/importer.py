"""Import of JSONL rows written by ``export_user``: validated first, then written in batches (memories,
relations and history, then chat sessions with their messages)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError as PydanticError

from memlane.engine import validate as v
from memlane.engine.import_as import as_user
from memlane.ledger.commit import commit
from memlane.ledger.mutations import Mutation
from memlane.model.enums import MemoryState
from memlane.model.errors import ValidationError
from memlane.model.invalid import describe
from memlane.model.record import HistoryEntry, MemoryRecord, Relation
from memlane.model.session import ChatSession, SessionFilter, SessionMessage
from memlane.storage.base import Backend, WriteBatch

if TYPE_CHECKING:
    from memlane.engine.memory import Memory


@dataclass
class Parsed:
    memories: list[MemoryRecord] = field(default_factory=list)
    history: list[HistoryEntry] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    sessions: list[ChatSession] = field(default_factory=list)
    messages: list[SessionMessage] = field(default_factory=list)
    owners: dict[str, str] = field(default_factory=dict)  # session id -> user


def _chat_row(kind: str, data: dict[str, Any], out: Parsed) -> None:
    """A session, or a message of a session given in an earlier row (of the same user)."""
    if kind == "session":
        session = ChatSession.model_validate(data)
        v.user_id(session.user_id)
        out.sessions.append(session)
        out.owners[session.id] = session.user_id
        return
    msg = SessionMessage.model_validate(data)
    if out.owners.get(msg.session_id) != msg.user_id:
        raise ValidationError(
            f"message {msg.id} belongs to session {msg.session_id!r}, which no earlier "
            "session row of its user gives"
        )
    out.messages.append(msg)


def parse_rows(rows: Iterable[Mapping[str, Any]], max_chars: int) -> Parsed:
    """Validate every row before anything is written; the error names the row number."""
    out = Parsed()
    memories, history, relations = out.memories, out.history, out.relations
    for n, row in enumerate(rows, start=1):
        if not isinstance(row, Mapping):
            raise ValidationError(f"row {n}: expected a JSON object")
        data = {k: val for k, val in row.items() if k != "kind"}
        kind = row.get("kind", "memory")
        try:
            if kind == "memory":
                rec = MemoryRecord.model_validate(data)
                v.user_id(rec.user_id)
                if rec.state is not MemoryState.PURGED:
                    rec.summary = v.summary(rec.summary, max_chars)
                memories.append(rec)
            elif kind == "history":
                history.append(HistoryEntry.model_validate(data))
            elif kind == "relation":
                relations.append(Relation.model_validate(data))
            elif kind in ("session", "message"):
                _chat_row(kind, data, out)
            else:
                raise ValidationError(
                    f"unknown kind {kind!r} (memory, history, relation, session or message)"
                )
        except PydanticError as exc:
            raise ValidationError(f"row {n}: {describe(exc)}") from None
        except ValidationError as exc:
            raise ValidationError(f"row {n}: {exc}") from None
    return out


def import_rows(
    memory: Memory,
    rows: Iterable[Mapping[str, Any]],
    *,
    batch_size: int = 64,
    progress: Callable[[int], None] | None = None,
    user_id: str | None = None,
) -> int:
    if user_id is not None:
        rows = as_user(rows, v.user_id(user_id))
    parsed = parse_rows(rows, memory.settings.memory_summary_max_chars)
    memories, history, relations = parsed.memories, parsed.history, parsed.relations
    for start in range(0, len(memories), batch_size):
        chunk = memories[start : start + batch_size]
        live = [r for r in chunk if r.state is not MemoryState.PURGED]
        vectors = (
            dict(
                zip(
                    [r.id for r in live],
                    memory.embedder.embed([memory.embed_text(r) for r in live]),
                    strict=True,
                )
            )
            if live
            else {}
        )
        m = Mutation(actor="import")
        for r in chunk:
            m.load(r, vectors.get(r.id))
        commit(memory.backend, memory.events, m)
        if progress:
            progress(len(chunk))
    if history or relations:
        known = {
            (h.user_id, h.id)
            for u in {h.user_id for h in history}
            for h in memory.backend.memories.history(u, limit=10**9)
        }
        m = Mutation(actor="import")
        m.batch.history += [h for h in history if (h.user_id, h.id) not in known]
        m.batch.relations += relations  # the export's own history rows record these links
        commit(memory.backend, memory.events, m)
    _import_sessions(memory.backend, parsed.sessions, parsed.messages)
    return len(memories)


def _import_sessions(backend: Backend, sessions: list[ChatSession], messages: list[SessionMessage]) -> None:
    """Sessions as exported (a stored one is updated unless it holds more messages: ConflictError) and
    the messages not stored yet (an import run twice adds none), in one transaction per user."""
    for user in dict.fromkeys(s.user_id for s in sessions):
        mine = [s for s in sessions if s.user_id == user]
        stored = {
            m.id
            for s in backend.sessions.chat_sessions(
                user, SessionFilter(ids=tuple(s.id for s in mine)), limit=len(mine)
            )
            for m in backend.sessions.session_messages(user, s.id, limit=10**9)
        }
        backend.apply(
            WriteBatch(
                sessions=mine, messages=[m for m in messages if m.user_id == user and m.id not in stored]
            )
        )
