"""The sessions task: a background run per user that never blocks the message path.

* Closes the user's open sessions whose last message is more than ``CONTEXT_SESSION_GAP_MINUTES`` old.
* Summarises closed sessions of at least ``CONTEXT_SESSION_MIN_MESSAGES`` messages whose summary is
  missing, failed, or older than ``CONTEXT_SESSION_SUMMARY_VERSION`` (a new version re-summarises), when
  ``CONTEXT_SESSION_SUMMARIZATION_ENABLED``. The payload (:mod:`memlane.lifecycle.session_digest`) is
  stored as a memory of type ``session`` through the write path: its text the flattened summary with a
  header, its topics as tags, its entities, and the structured payload in ``metadata["session"]``. A
  re-summarised session updates its memory (with history), unless the user deleted it. A provider error marks the session
  ``failed`` with the error; the next run tries it again.
* A session write never lowers its message count (storage refuses it): a message recorded meanwhile
  makes the run fail and retry, instead of overwriting it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from memlane.ledger.bus import EventBus
from memlane.ledger.events import MemoryEvent
from memlane.ledger.mutations import Mutation
from memlane.lifecycle.session_digest import digest, flatten
from memlane.model.config import Settings
from memlane.model.enums import MemoryState, MemoryType, Source
from memlane.model.errors import ProviderError
from memlane.model.ids import deterministic_id
from memlane.model.record import MemoryRecord
from memlane.model.session import ChatSession, SessionDigest, SessionFilter, SessionStatus
from memlane.providers.embed import Embedder
from memlane.providers.llm.base import MemoryLLM
from memlane.retrieval.embed_text import memory_text
from memlane.storage.base import Backend

log = logging.getLogger("memlane.lifecycle.sessions")

BATCH = 20  # sessions summarised per run at most; a full run schedules the next one at once
MAX_MESSAGES = 400  # a session's latest messages a summary reads


@dataclass
class Summary:
    session: ChatSession
    payload: SessionDigest | None = None
    model: str = ""
    error: str | None = None
    vector: list[float] = field(default_factory=list)
    quoted: list[str] = field(default_factory=list)  # ids of the messages the summary quotes verbatim


@dataclass
class Work:
    close: list[ChatSession]
    summaries: list[Summary]
    more: bool


def due(backend: Backend, user_id: str, settings: Settings, now: datetime) -> Work:
    gap = timedelta(minutes=settings.context_session_gap_minutes)
    idle = backend.sessions.chat_sessions(
        user_id, SessionFilter(statuses=(SessionStatus.OPEN,), ended_before=now - gap), limit=BATCH
    )
    closed = [s.model_copy(update={"status": SessionStatus.CLOSED, "updated_at": now}) for s in idle]
    todo: list[ChatSession] = []
    if settings.context_session_summarization_enabled:

        def find(statuses: tuple[SessionStatus, ...], updated_before: datetime | None) -> list[ChatSession]:
            return backend.sessions.chat_sessions(
                user_id,
                SessionFilter(
                    statuses=statuses,
                    min_messages=settings.context_session_min_messages,
                    version_below=settings.context_session_summary_version,
                    updated_before=updated_before,
                ),
                limit=BATCH,
            )

        # a failure is retried by a later run, not by a full run's immediate successor (same time)
        todo = find((SessionStatus.CLOSED, SessionStatus.SUMMARIZED), None) + find(
            (SessionStatus.FAILED,), now
        )
        todo += [s for s in closed if s.message_count >= settings.context_session_min_messages]
    return Work(closed, [Summary(s) for s in todo[:BATCH]], len(idle) >= BATCH or len(todo) >= BATCH)


def summarize(work: Work, backend: Backend, llm: MemoryLLM, embedder: Embedder, settings: Settings) -> None:
    """Each due session's payload (or error) and the vector of its memory text, outside the write lock."""
    for s in work.summaries:
        messages = backend.sessions.session_messages(s.session.user_id, s.session.id, limit=10**6)[
            -MAX_MESSAGES:
        ]
        try:
            s.payload, s.model, s.quoted = digest(messages, llm, embedder)
        except Exception as exc:  # noqa: BLE001 - recorded on the session as failed, tried again next run
            s.error = f"{type(exc).__name__}: {exc}"
            log.warning(
                "session %s of user %s not summarised: %s",
                s.session.id,
                s.session.user_id,
                s.error,
                exc_info=not isinstance(exc, ProviderError),
            )  # a bug, not a provider outage: its trace
    done = [s for s in work.summaries if s.payload is not None]
    texts = [memory_text(record(s, settings, s.session.updated_at), settings) for s in done]
    for s, vector in zip(done, embedder.embed(texts) if texts else [], strict=True):
        s.vector = list(vector)


def record(s: Summary, settings: Settings, now: datetime, old: MemoryRecord | None = None) -> MemoryRecord:
    session, payload = s.session, s.payload
    assert payload is not None
    meta = {
        "session": {
            "id": session.id,
            "chat_id": session.chat_id,
            "started_at": session.started_at.isoformat(),
            "ended_at": session.ended_at.isoformat(),
            "message_count": session.message_count,
            "participants": session.participants,
            "summary_version": settings.context_session_summary_version,
            "model": s.model,
            "quoted": s.quoted,
            **payload.model_dump(),
        }
    }
    fields = {
        "summary": flatten(session, payload),
        "tags": [t.strip().lower() for t in payload.topics if t.strip()][:4],
        "entities": payload.entities,
        "metadata": meta,
        "valid_from": session.started_at,
        "valid_to": session.ended_at,
        "updated_at": now,
    }
    if old is not None:
        return old.model_copy(update=fields)
    return MemoryRecord(
        id=deterministic_id(session.user_id, "session", session.id),
        user_id=session.user_id,
        chat_id=session.chat_id,
        type=MemoryType.SESSION,
        importance=2,
        source=Source.SYSTEM,
        created_at=now,
        **fields,
    )


def apply(
    m: Mutation, work: Work, stored: dict[str, MemoryRecord], settings: Settings, now: datetime
) -> dict[str, object]:
    rows = {s.id: s for s in work.close}
    summarized: list[str] = []
    failed: list[str] = []
    for s in work.summaries:
        session = rows.get(s.session.id, s.session)
        if s.payload is None:
            rows[session.id] = session.model_copy(
                update={"status": SessionStatus.FAILED, "error": s.error, "updated_at": now}
            )
            failed.append(session.id)
            continue
        old = stored.get(session.memory_id or "")
        rec = record(s, settings, now, old)
        if old is None:
            m.create(rec, s.vector, f"summary of chat session {session.id}")
        elif old.state is MemoryState.ACTIVE:
            m.update(
                old,
                rec,
                s.vector,
                f"summary of chat session {session.id}, version {settings.context_session_summary_version}",
            )
        # else: the user deleted (or purged) the summary; a new version does not bring it back
        rows[session.id] = session.model_copy(
            update={
                "status": SessionStatus.SUMMARIZED,
                "summary_version": settings.context_session_summary_version,
                "memory_id": rec.id,
                "error": None,
                "updated_at": now,
            }
        )
        summarized.append(session.id)
    m.batch.sessions.extend(rows.values())
    small = [
        s.id
        for s in work.close
        if settings.context_session_summarization_enabled
        and s.message_count < settings.context_session_min_messages
    ]
    return {
        "closed": [s.id for s in work.close],
        "skipped": small,
        "summarized": summarized,
        "failed": failed,
    }


def keep_existing(work: Work, backend: Backend, user_id: str) -> None:
    """Leave out of ``work`` the sessions deleted since it was planned (a run must not bring one back)."""
    ids = tuple({s.id for s in work.close} | {s.session.id for s in work.summaries})
    alive = (
        {s.id for s in backend.sessions.chat_sessions(user_id, SessionFilter(ids=ids), limit=len(ids))}
        if ids
        else set()
    )
    work.close = [s for s in work.close if s.id in alive]
    work.summaries = [s for s in work.summaries if s.session.id in alive]


def announce(bus: EventBus, user_id: str, report: dict[str, Any]) -> None:
    """Per session of a committed run (the server counts them): ``session.closed`` (idle past the gap),
    ``session.skipped`` (closed with fewer messages than ``CONTEXT_SESSION_MIN_MESSAGES``: not summarised),
    ``session.summarized`` and ``session.failed``."""
    for kind in ("closed", "skipped", "summarized", "failed"):
        for sid in report.get(kind, ()):
            data = {"session_id": sid, **({"reason": "too_small"} if kind == "skipped" else {})}
            bus.publish(MemoryEvent(type=f"session.{kind}", user_id=user_id, data=data))


def memory_ids(work: Work) -> Sequence[str]:
    return [s.session.memory_id for s in work.summaries if s.session.memory_id]
