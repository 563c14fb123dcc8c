"""Support from related memories (seed 001 §2's relation boost, made query-aware).

A memory is lifted by the relevance of what it is linked to:

- relation edges: ``weight(type) × strength × relevance(other end)``, the best edge counts. Edges
  of type ``follows`` (one message after another in a conversation) carry
  ``MEMORY_RELATION_TYPE_WEIGHTS``; other types (``related_to`` from formation) the smaller
  ``MEMORY_RELATION_WEIGHT``. The answer to a question is found through the question before it.
- the thread: ``MEMORY_THREAD_WEIGHT × mean relevance of the three best other candidates of the
  same thread`` (missing ones count as zero): a conversation that holds several strong hits is
  likely the one asked about.

Relevance is the candidate's similarity plus its keyword evidence (cosine units, floored at zero);
an edge's far end outside the pool is scored from its stored vector.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from memlane.model.config import Settings
from memlane.retrieval.hybrid import Pool, neighbour_similarity
from memlane.storage.base import Backend

THREAD_TOP = 3


def relation_boosts(
    backend: Backend, settings: Settings, user_id: str, vector: Sequence[float], pool: Pool, relevance: dict[str, float]
) -> dict[str, float]:
    """Best weighted edge to a relevant memory, per candidate (absent: no edge)."""
    ids = list(pool.candidates)
    edges = backend.relations(user_id, ids) if ids else []
    if not edges:
        return {}
    outside = {e.to_id if e.from_id in pool.candidates else e.from_id for e in edges} - set(pool.candidates)
    far = neighbour_similarity(backend, user_id, vector, sorted(outside))
    weights = settings.memory_relation_type_weights
    boosts: dict[str, float] = {}
    for e in edges:
        w = weights.get(e.relation_type, settings.memory_relation_weight) * max(e.strength, 0.0)
        if w <= 0:
            continue
        for here, there in ((e.from_id, e.to_id), (e.to_id, e.from_id)):
            if here not in pool.candidates or here == there:
                continue
            rel = relevance.get(there, far.get(there, 0.0))
            boosts[here] = max(boosts.get(here, 0.0), w * max(rel, 0.0))
    return boosts


def thread_boosts(settings: Settings, pool: Pool, relevance: dict[str, float]) -> dict[str, float]:
    weight = settings.memory_thread_weight
    if weight <= 0:
        return {}
    by_thread: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for cid, cand in pool.candidates.items():
        if cand.record.thread_id:
            by_thread[cand.record.thread_id].append((max(relevance[cid], 0.0), cid))
    out: dict[str, float] = {}
    for members in by_thread.values():
        if len(members) < 2:
            continue
        members.sort(reverse=True)
        for cid in (c for _, c in members):
            others = [r for r, o in members if o != cid][:THREAD_TOP]
            out[cid] = weight * sum(others) / THREAD_TOP
    return out
