"""Recall of earlier group-chat conversation: the two channels, then the blend.

Session summaries come from memlane's search over memories of type ``session`` (of the chat, when one
is named); their query carries the chat's name in front, as their text does (the contextual header
at write time is the summary's first line: chat, time range, participants, topics). Messages come from
:meth:`SessionStore.search_messages`; those of the named chat's open session are left out (the caller has
them in its prompt: they are the conversation going on). :mod:`memlane.retrieval.session_blend` ranks
both.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memlane.model.config import Settings
from memlane.model.enums import MemoryType
from memlane.model.filters import Condition, live
from memlane.model.session import SessionStatus
from memlane.providers.embed import Embedder
from memlane.retrieval.intent import plan_query
from memlane.retrieval.search import SearchRequest, search
from memlane.retrieval.session_blend import BlendItem, blend
from memlane.storage.base import Backend

POOL = 20  # candidates of each channel


def recall(
    backend: Backend,
    embedder: Embedder,
    settings: Settings,
    *,
    query: str,
    user_id: str,
    chat_id: str | None,
    now: datetime,
    max_messages: int,
    max_sessions: int,
    scope: Sequence[Condition] | None = None,
    pool: int = POOL,
) -> list[BlendItem]:
    """The blended messages and session summaries for ``query`` (``scope``: the conditions session
    memories must meet, default live ones; ``pool``: candidates of each channel)."""
    conds = [*(live() if scope is None else scope), Condition("type", "$eq", MemoryType.SESSION.value)]
    if chat_id is not None:
        conds.append(Condition("chat_id", "$eq", chat_id))
    sessions = []
    if max_sessions > 0:
        asked = f"Chat {chat_id}. {query}" if chat_id is not None else query
        sessions = search(
            backend,
            embedder,
            settings,
            SearchRequest(
                user_id=user_id, query=asked, now=now, conditions=conds, limit=max(pool, max_sessions)
            ),
        )
    hits = []
    if max_messages > 0:
        hits = backend.sessions.search_messages(
            user_id,
            text=query,
            vector=embedder.embed_one(query),
            embedder=embedder.identity,
            chat_id=chat_id,
            limit=pool,
        )
        if chat_id is not None and hits:
            latest = backend.sessions.latest_sessions(user_id, [chat_id]).get(chat_id)
            if latest is not None and latest.status is SessionStatus.OPEN:
                hits = [h for h in hits if h.message.session_id != latest.id]
    plan = plan_query(query, now, tz=settings.timezone, time_phrases=settings.memory_time_phrases)
    return blend(
        query, plan, now, settings, hits, sessions, max_messages=max_messages, max_sessions=max_sessions
    )
