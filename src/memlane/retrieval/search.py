"""Search: hybrid candidates filtered in the database, reranked with a score breakdown.

1. Plan the question (:mod:`memlane.retrieval.intent`): recall intent, and a time window from a
   time phrase relative to ``now`` in the user's time zone.
2. Embed it (with the contextual header a question can have, :mod:`memlane.retrieval.embed_text`).
3. Gather candidates (:mod:`memlane.retrieval.hybrid`): dense, keyword, the time window, recall.
4. Score each with the weighted composite (:mod:`memlane.retrieval.rerank`) plus the support of related
   memories (:mod:`memlane.retrieval.support`), less the brevity of a short message read with its
   context (:mod:`memlane.retrieval.brevity`) and what a memory about someone the question does not
   ask about loses (:mod:`memlane.retrieval.subject`), and one holding no answer of the kind the question
   asks for (a job, a home, an age: :mod:`memlane.retrieval.answer_kind`); drop those under the similarity threshold. A pin
   counts when the pinned memory is among the 3 candidates closest to the question and its cosine within
   ``MEMORY_PIN_MARGIN`` of the best one's (:func:`memlane.retrieval.rerank.pin_signal`).

``mode="dense"`` and ``mode="keyword"`` skip fusion and rerank and return one channel's ranking as
it is (the baselines of ``memlane eval locomo``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from memlane.model.config import Settings
from memlane.model.enums import MemoryType
from memlane.model.filters import Condition
from memlane.model.record import ScoreBreakdown, SearchHit
from memlane.providers.embed import Embedder
from memlane.retrieval.answer_kind import kind_penalty
from memlane.retrieval.brevity import brevity_penalty
from memlane.retrieval.embed_text import query_text
from memlane.retrieval.hybrid import Pool, gather
from memlane.retrieval.intent import QueryPlan, plan_query
from memlane.retrieval.rerank import (
    DEFAULT_WEIGHTS,
    PIN_CLOSEST,
    composite,
    pin_signal,
    question_recency_weight,
    same_aspect,
    time_fit,
)
from memlane.retrieval.subject import subject_penalty
from memlane.retrieval.support import add_neighbours, relation_boosts, thread_boosts
from memlane.storage.base import Backend

MODES = ("hybrid", "dense", "keyword")


@dataclass(frozen=True)
class SearchRequest:
    user_id: str
    query: str
    conditions: Sequence[Condition]
    now: datetime
    limit: int = 10
    offset: int = 0
    threshold: float | None = None  # minimum cosine similarity; None: MEMORY_SCORE_THRESHOLD (0 = off)
    intent: str | None = None  # None or "auto": detect recall intent; "recall" / "plain" force it
    time_phrases: bool | None = None  # None: MEMORY_TIME_PHRASES
    thread_id: str | None = None  # the asking thread, for the query's contextual header
    mode: str = "hybrid"


def _scope_value(conditions: Sequence[Condition], name: str) -> str | None:
    found = [c.value for c in conditions if c.field == name and c.op == "$eq" and isinstance(c.value, str)]
    return found[0] if len(found) == 1 else None


def search(backend: Backend, embedder: Embedder, settings: Settings, req: SearchRequest) -> list[SearchHit]:
    """Retrieval's entry point (``Memory.search``, the context block and ``memory.query`` call it)."""
    if req.mode not in MODES:
        raise ValueError(f"search mode must be one of {', '.join(MODES)}, got {req.mode!r}")
    use_phrases = settings.memory_time_phrases if req.time_phrases is None else req.time_phrases
    plan = plan_query(req.query, req.now, tz=settings.timezone, intent=req.intent, time_phrases=use_phrases)
    conditions = list(req.conditions)
    if plan.window is not None and settings.memory_time_phrase_mode == "filter":
        conditions += [
            Condition("valid_from", "$gte", plan.window.start),
            Condition("valid_from", "$lt", plan.window.end),
        ]
    pool_size = max(settings.memory_context_topk, req.limit + req.offset)
    if req.mode == "keyword":
        found = backend.memories.keyword_search(
            req.user_id, req.query, conditions, limit=req.limit, offset=req.offset, shared=True
        )
        return [
            SearchHit(
                memory=h.record, score=h.score, breakdown=ScoreBreakdown(keyword=h.score, final=h.score)
            )
            for h in found
        ]
    thread = req.thread_id or _scope_value(conditions, "thread_id")
    text = query_text(req.query, settings, thread_id=thread, topic=_scope_value(conditions, "category"))
    if req.mode == "dense":
        found = backend.memories.vector_search(
            req.user_id, embedder.embed_one(text), conditions, limit=req.limit, offset=req.offset, shared=True
        )
        return [
            SearchHit(
                memory=h.record, score=h.score, breakdown=ScoreBreakdown(similarity=h.score, final=h.score)
            )
            for h in found
        ]
    vector = embedder.embed_one(text)
    pool = gather(backend, req.user_id, req.query, vector, conditions, plan, pool_size=pool_size)
    add_neighbours(backend, settings, req.user_id, vector, conditions, pool)
    threshold = req.threshold if req.threshold is not None else (settings.memory_score_threshold or None)
    if threshold is not None:
        pool.candidates = {cid: c for cid, c in pool.candidates.items() if (c.similarity or 0.0) >= threshold}
    hits = rerank(backend, settings, req, vector, pool, plan)
    return hits[req.offset : req.offset + req.limit]


def rerank(
    backend: Backend,
    settings: Settings,
    req: SearchRequest,
    vector: Sequence[float],
    pool: Pool,
    plan: QueryPlan,
) -> list[SearchHit]:
    kw = settings.memory_keyword_weight
    relevance = {cid: c.relevance(kw) for cid, c in pool.candidates.items()}
    related = relation_boosts(backend, settings, req.user_id, vector, pool, relevance)
    threads = thread_boosts(settings, pool, relevance)
    weights = dict(settings.memory_rerank_weights)
    if plan.caution:  # what to be careful about: what matters most about the user counts more
        weights["importance"] = (
            weights.get("importance", DEFAULT_WEIGHTS["importance"])
            * settings.memory_caution_importance_factor
        )
    recency_weight = question_recency_weight(settings, plan)
    decay = settings.memory_decay_half_life_days if settings.memory_decay_enabled else None
    closest = sorted((c.similarity or 0.0 for c in pool.candidates.values()), reverse=True)[:PIN_CLOSEST]
    hits = []
    for cid, cand in pool.candidates.items():
        breakdown = composite(
            cand.record,
            cand.similarity or 0.0,
            req.now,
            weights,
            half_life_days=settings.memory_recency_half_life_days,
            keyword=kw * cand.keyword_norm,
            decay_half_life_days=decay,
            recency=time_fit(cand.record, plan.window) if plan.window is not None else None,
            recency_weight=recency_weight,
            boost=related.get(cid, 0.0) + threads.get(cid, 0.0),
            brevity=brevity_penalty(cand.record, settings),
            subject=subject_penalty(req.query, cand.record.summary, settings.memory_subject_penalty),
            kind=kind_penalty(req.query, cand.record.summary, settings.memory_answer_kind_penalty),
            pin=pin_signal(
                cand.record,
                cand.similarity or 0.0,
                closest,
                settings.memory_pin_margin,
                shares_words=cand.keyword > 0 or same_aspect(req.query, cand.record),
            ),
            type_weight=settings.memory_insight_weight if cand.record.type is MemoryType.INSIGHT else 1.0,
        )
        hits.append(SearchHit(memory=cand.record, score=breakdown.final, breakdown=breakdown))
    hits.sort(key=lambda h: (-h.score, h.memory.id))
    return hits
