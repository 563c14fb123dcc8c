"""Support from related memories: a relation boost that depends on how relevant the linked memory is.

A memory is lifted by the relevance of what it is linked to:

- relation edges: ``weight(type) × strength × relevance(other end)``, the best edge counts. Edges
  of type ``follows`` (one message after another in a conversation) carry
  ``MEMORY_RELATION_TYPE_WEIGHTS``; other types (``related_to`` from formation) the smaller
  ``MEMORY_RELATION_WEIGHT``. The answer to a question is found through the question before it.
- the thread: ``MEMORY_THREAD_WEIGHT × mean relevance of the three best other candidates of the
  same thread`` (missing ones count as zero): a conversation that holds several strong hits is
  likely the one asked about.

Before that, the pool grows by its neighbours (:func:`add_neighbours`): a memory linked to a
candidate is a candidate too, read from the database under the request's conditions and scored from
its stored vector, so the reply to a matching question can rank although its own words do not match.
A reply to a question (the earlier end of a ``follows`` edge asks something: it holds a "?") takes
``REPLY_FACTOR`` times the edge's lift: the answer stands in for the question.

Relevance is the candidate's similarity plus its keyword evidence (cosine units, floored at zero);
an edge's far end outside the pool is scored from its stored vector.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from memlane.model.config import Settings
from memlane.model.filters import Condition
from memlane.model.record import Relation
from memlane.retrieval.hybrid import Pool, cosines, neighbour_similarity
from memlane.storage.base import Backend

THREAD_TOP = 3
REPLY_FACTOR = 2.0


def _linked_types(settings: Settings) -> set[str] | None:
    """Relation types that lift (None: all of them, when other types carry a weight)."""
    if settings.memory_relation_weight > 0:
        return None
    return {t for t, w in settings.memory_relation_type_weights.items() if w > 0}


def pool_edges(backend: Backend, user_id: str, pool: Pool) -> list[Relation]:
    """The relations touching the pool's candidates; each candidate's are read once per search
    (:func:`add_neighbours` and :func:`relation_boosts` share them)."""
    todo = [cid for cid in pool.candidates if cid not in pool.edges_read]
    if todo:
        pool.edges.update(((e.from_id, e.to_id), e) for e in backend.memories.relations(user_id, todo))
        pool.edges_read.update(todo)
    return [e for e in pool.edges.values() if e.from_id in pool.candidates or e.to_id in pool.candidates]


def add_neighbours(
    backend: Backend,
    settings: Settings,
    user_id: str,
    vector: Sequence[float],
    conditions: Sequence[Condition],
    pool: Pool,
) -> None:
    """Add the memories linked to a candidate (by a relation type that lifts) that pass ``conditions``."""
    ids = list(pool.candidates)
    types = _linked_types(settings)
    if not ids or types == set():
        return
    outside = {
        e.to_id if e.from_id in pool.candidates else e.from_id
        for e in pool_edges(backend, user_id, pool)
        if types is None or e.relation_type in types
    } - set(pool.candidates)
    if not outside:
        return
    found = backend.memories.list(
        user_id, [*conditions, Condition("id", "$in", sorted(outside))], limit=len(outside), shared=True
    )
    sims = cosines(vector, backend.memories.vectors(user_id, [r.id for r in found], shared=True))
    for record in found:
        pool.add(record).similarity = sims.get(record.id, 0.0)


def _asks(summary: str) -> bool:
    return "?" in summary


def relation_boosts(
    backend: Backend,
    settings: Settings,
    user_id: str,
    vector: Sequence[float],
    pool: Pool,
    relevance: dict[str, float],
) -> dict[str, float]:
    """Best weighted edge to a relevant memory, per candidate (absent: no edge)."""
    edges = pool_edges(backend, user_id, pool)
    if not edges:
        return {}
    outside = {e.to_id if e.from_id in pool.candidates else e.from_id for e in edges} - set(pool.candidates)
    far = neighbour_similarity(backend, user_id, vector, sorted(outside))
    weights = settings.memory_relation_type_weights
    asks = {cid for cid, c in pool.candidates.items() if _asks(c.record.summary)}
    boosts: dict[str, float] = {}
    for e in edges:
        w = weights.get(e.relation_type, settings.memory_relation_weight) * max(e.strength, 0.0)
        if w <= 0:
            continue
        for here, there in ((e.from_id, e.to_id), (e.to_id, e.from_id)):
            if here not in pool.candidates or here == there:
                continue
            rel = relevance.get(there, far.get(there, 0.0))
            lift = (
                w * REPLY_FACTOR if e.relation_type == "follows" and here == e.to_id and there in asks else w
            )
            boosts[here] = max(boosts.get(here, 0.0), lift * max(rel, 0.0))
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
