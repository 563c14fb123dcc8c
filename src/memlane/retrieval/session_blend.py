"""Group-chat recall: recorded messages and session summaries merged through one reranker.

Two kinds of candidates answer a question about an earlier conversation: raw messages (found by
keyword and by their vectors, :meth:`SessionStore.search_messages`) and session summaries (memories of type
``session``, found by memlane's search). Each gets

    score = (relevance + recency_weight × recency + OVERLAP_WEIGHT × overlap) × bonus × coverage

- ``relevance``: cosine similarity plus the keyword evidence (``MEMORY_KEYWORD_WEIGHT`` × the keyword
  score over its spread), in cosine units as in memlane's search;
- ``recency``: halves every 72 hours since the message (the session's end); its weight is memlane's
  for the question (a question about the past keeps it only as a tie-breaker, :mod:`.history`);
- ``overlap``: the share of the question's content words the text holds (a keyword tie-break);
- ``bonus``: 1.25 for a session summary (it stands for many messages);
- ``coverage``: 0.5 for a message inside the time window of a session summary that is retrieved too
  (the summary already covers it), so the block is not one conversation told twice.

The reranked list keeps at most ``max_sessions`` summaries and ``max_messages`` messages.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from memlane.model.config import Settings
from memlane.model.record import SearchHit
from memlane.model.session import MessageHit, SessionMessage
from memlane.retrieval.hybrid import keyword_sd
from memlane.retrieval.intent import QueryPlan
from memlane.retrieval.rerank import question_recency_weight
from memlane.storage.keywords import query_words

HALF_LIFE_HOURS = 72.0
OVERLAP_WEIGHT = 0.15
SESSION_BONUS = 1.25
COVERED = 0.5


@dataclass
class BlendItem:
    """One reranked candidate: a message or a session summary, with the parts of its score."""

    kind: Literal["message", "session"]
    score: float
    parts: dict[str, float] = field(default_factory=dict)
    message: SessionMessage | None = None
    session: SearchHit | None = None

    @property
    def text(self) -> str:
        return self.message.text if self.message is not None else self.session.memory.summary  # type: ignore[union-attr]


def _overlap(words: set[str], text: str) -> float:
    return len(words & set(query_words(text, limit=256))) / len(words) if words else 0.0


def _recency(at: datetime, now: datetime) -> float:
    hours = max((now - at).total_seconds() / 3600.0, 0.0)
    return math.pow(0.5, hours / HALF_LIFE_HOURS)


def blend(
    query: str,
    plan: QueryPlan,
    now: datetime,
    settings: Settings,
    messages: Sequence[MessageHit],
    sessions: Sequence[SearchHit],
    *,
    max_messages: int,
    max_sessions: int,
) -> list[BlendItem]:
    """The reranked messages and session summaries, best first (see the module's docstring)."""
    words = set(query_words(query))
    w_recency = question_recency_weight(settings, plan)
    kw, sd = settings.memory_keyword_weight, keyword_sd([h.keyword for h in messages], len(messages))
    items: list[BlendItem] = []
    for s in sessions:
        rec = s.memory
        parts = {
            "relevance": s.breakdown.similarity,
            "recency": _recency(rec.valid_to or rec.created_at, now),
            "overlap": _overlap(words, rec.summary),
            "bonus": SESSION_BONUS,
            "coverage": 1.0,
        }
        items.append(BlendItem("session", 0.0, parts, session=s))
    ranked_sessions = sorted(items, key=lambda i: -_score(i.parts, w_recency))[:max_sessions]
    windows = [
        (i.session.memory.chat_id, i.session.memory.valid_from, i.session.memory.valid_to)
        for i in ranked_sessions
        if i.session is not None
    ]
    for h in messages:
        m = h.message
        covered = any(
            chat == m.chat_id and start is not None and end is not None and start <= m.at <= end
            for chat, start, end in windows
        )
        parts = {
            "relevance": (h.similarity or 0.0) + (kw * h.keyword / sd if sd else 0.0),
            "recency": _recency(m.at, now),
            "overlap": _overlap(words, m.text),
            "bonus": 1.0,
            "coverage": COVERED if covered else 1.0,
        }
        items.append(BlendItem("message", 0.0, parts, message=m))
    for item in items:
        item.score = _score(item.parts, w_recency)
    kept = {id(i) for i in ranked_sessions}
    out = [i for i in items if i.kind == "message" or id(i) in kept]
    out.sort(key=lambda i: -i.score)
    picked_messages = [i for i in out if i.kind == "message"][:max_messages]
    keep = kept | {id(i) for i in picked_messages}
    return [i for i in out if id(i) in keep]


def _score(parts: dict[str, float], w_recency: float) -> float:
    base = parts["relevance"] + w_recency * parts["recency"] + OVERLAP_WEIGHT * parts["overlap"]
    return base * parts["bonus"] * parts["coverage"]
