"""Search: candidates from the vector index, filtered in the database, reranked with a breakdown."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from memlane.model.config import Settings
from memlane.model.filters import Condition
from memlane.model.record import SearchHit
from memlane.providers.embed import Embedder
from memlane.retrieval.rerank import composite
from memlane.storage.base import Backend


@dataclass(frozen=True)
class SearchRequest:
    user_id: str
    query: str
    conditions: Sequence[Condition]
    now: datetime
    limit: int = 10
    offset: int = 0
    threshold: float | None = None


def search(backend: Backend, embedder: Embedder, settings: Settings, req: SearchRequest) -> list[SearchHit]:
    """Retrieval's entry point (``Memory.search`` calls it)."""
    vector = embedder.embed_one(req.query)
    return search_memories(backend, settings, req.user_id, vector, req.conditions, now=req.now, limit=req.limit,
                           offset=req.offset, threshold=req.threshold)


def search_memories(
    backend: Backend,
    settings: Settings,
    user_id: str,
    query_vector: Sequence[float],
    conditions: Sequence[Condition],
    *,
    now: datetime,
    limit: int,
    offset: int = 0,
    threshold: float | None = None,
) -> list[SearchHit]:
    pool = max(settings.memory_context_topk, limit + offset)
    candidates = backend.vector_search(user_id, query_vector, conditions, limit=pool)
    decay = settings.memory_decay_half_life_days if settings.memory_decay_enabled else None
    hits = []
    for cand in candidates:
        if threshold is not None and cand.score < threshold:
            continue
        breakdown = composite(
            cand.record, cand.score, now, settings.memory_rerank_weights,
            half_life_days=settings.memory_recency_half_life_days, decay_half_life_days=decay,
        )
        hits.append(SearchHit(memory=cand.record, score=breakdown.final, breakdown=breakdown))
    hits.sort(key=lambda h: h.score, reverse=True)
    return hits[offset: offset + limit]
