"""Hybrid candidates: dense and keyword searches fused on one scale, filtered in the database.

Every channel is a database query scoped to the user (their own memories and those shared with them,
``shared=True``) and the request's conditions:

- dense: the ``pool`` nearest memories by cosine similarity;
- keyword: the ``pool`` best full-text matches (FTS5 / tsvector); they join the pool, so a memory
  that only matches by words is a candidate too;
- window: with a time phrase, the nearest memories inside its window (``valid_from``);
- recall: with recall intent, the nearest episodic and session memories.

Fusion is by score, not by rank (measured on LoCoMo: reciprocal rank fusion of the same lists loses
about 0.1 recall@10). A keyword score is made comparable across questions by dividing it by the
standard deviation of keyword scores over the user's memories (taken as zero outside the matches,
so the count of memories under the filters is enough); ``relevance = cosine + keyword_weight ×
keyword / σ``, in cosine units. Candidates that only the keyword search found get their cosine from
their stored vector.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from memlane.model.enums import MemoryType
from memlane.model.filters import Condition
from memlane.model.record import MemoryRecord, Relation
from memlane.retrieval.intent import QueryPlan
from memlane.storage.base import Backend
from memlane.storage.cosine import cosines

RECALL_TYPES = [MemoryType.EPISODIC.value, MemoryType.SESSION.value]


@dataclass
class Candidate:
    record: MemoryRecord
    similarity: float | None = None  # cosine to the query
    keyword: float = 0.0  # raw keyword score (0: not a keyword match)
    keyword_norm: float = 0.0  # keyword score over its standard deviation
    in_window: bool = False

    def relevance(self, keyword_weight: float) -> float:
        """Similarity plus the keyword evidence, in cosine units."""
        return (self.similarity or 0.0) + keyword_weight * self.keyword_norm


@dataclass
class Pool:
    candidates: dict[str, Candidate] = field(default_factory=dict)
    keyword_sd: float = 0.0
    edges: dict[tuple[str, str], Relation] = field(default_factory=dict)  # relations read so far (support.py)
    edges_read: set[str] = field(default_factory=set)  # candidates whose relations are in ``edges``

    def add(self, record: MemoryRecord) -> Candidate:
        cand = self.candidates.get(record.id)
        if cand is None:
            cand = self.candidates[record.id] = Candidate(record)
        return cand


def keyword_sd(scores: Sequence[float], population: int) -> float:
    """Standard deviation of keyword scores over ``population`` memories, zero outside ``scores``."""
    top = max(scores, default=0.0)
    if top <= 0:
        return 0.0
    n = max(population, len(scores), 1)
    scaled = [s / top for s in scores]  # scale-free: FTS5 scores can be tiny when a word is common
    mean = sum(scaled) / n
    var = sum(s * s for s in scaled) / n - mean * mean
    return math.sqrt(var) * top if var > 1e-9 else 0.0


def gather(
    backend: Backend,
    user_id: str,
    query: str,
    vector: Sequence[float],
    conditions: Sequence[Condition],
    plan: QueryPlan,
    *,
    pool_size: int,
    keyword: bool = True,
    dense: bool = True,
) -> Pool:
    """The candidate pool with similarity and normalised keyword score filled in for every member."""
    conds = list(conditions)
    channels = _dense_channels(conds, plan) if dense else []
    fetch = _fetch_local if backend.local_reads else _fetch_remote
    records, similarity, keyword_score = fetch(
        backend, user_id, query, vector, conds, channels, pool_size=pool_size, keyword=keyword
    )
    pool = Pool()
    if keyword_score:
        positive = {cid: max(score, 0.0) for cid, score in keyword_score.items()}
        pool.keyword_sd = keyword_sd(
            list(positive.values()), backend.memories.count(user_id, conds, shared=True)
        )
    for cid, record in records.items():
        cand = pool.add(record)
        cand.similarity = similarity.get(cid)
        cand.keyword = max(keyword_score.get(cid, 0.0), 0.0)
        cand.keyword_norm = cand.keyword / pool.keyword_sd if pool.keyword_sd else 0.0
    missing = [cid for cid, c in pool.candidates.items() if c.similarity is None]
    if missing and dense:
        sims = cosines(vector, backend.memories.vectors(user_id, missing, shared=True))
        for cid in missing:
            pool.candidates[cid].similarity = sims.get(cid, 0.0)
    if plan.window is not None:
        for cand in pool.candidates.values():
            cand.in_window = plan.window.contains(cand.record.valid_from)
    return pool


def _dense_channels(conds: list[Condition], plan: QueryPlan) -> list[list[Condition]]:
    """The vector searches to run: the query's filters, within its time window, and the recall types."""
    channels = [conds]
    if plan.window is not None:
        channels.append(
            [
                *conds,
                Condition("valid_from", "$gte", plan.window.start),
                Condition("valid_from", "$lt", plan.window.end),
            ]
        )
    if plan.recall and not any(c.field == "type" for c in conds):
        channels.append([*conds, Condition("type", "$in", RECALL_TYPES)])
    return channels


Fetched = tuple[dict[str, MemoryRecord], dict[str, float], dict[str, float]]


def _fetch_local(
    backend: Backend,
    user_id: str,
    query: str,
    vector: Sequence[float],
    conds: list[Condition],
    channels: list[list[Condition]],
    *,
    pool_size: int,
    keyword: bool,
) -> Fetched:
    """Ids and scores per channel, then the union's records in one read (a store on this machine)."""
    keyword_score: dict[str, float] = {}
    similarity: dict[str, float] = {}
    if keyword:
        keyword_score = dict(
            backend.memories.keyword_ids(user_id, query, conds, limit=pool_size, shared=True)
        )
    for channel in channels:
        similarity.update(backend.memories.vector_ids(user_id, vector, channel, limit=pool_size, shared=True))
    ids = list(dict.fromkeys([*similarity, *keyword_score]))
    records = {r.id: r for r in backend.memories.get_many(user_id, ids, shared=True)} if ids else {}
    return records, similarity, keyword_score


def _fetch_remote(
    backend: Backend,
    user_id: str,
    query: str,
    vector: Sequence[float],
    conds: list[Condition],
    channels: list[list[Condition]],
    *,
    pool_size: int,
    keyword: bool,
) -> Fetched:
    """The records come with each channel's hits (over a network: fewer round trips)."""
    records: dict[str, MemoryRecord] = {}
    similarity: dict[str, float] = {}
    keyword_score: dict[str, float] = {}
    if keyword:
        for hit in backend.memories.keyword_search(user_id, query, conds, limit=pool_size, shared=True):
            records[hit.record.id], keyword_score[hit.record.id] = hit.record, hit.score
    for channel in channels:
        for hit in backend.memories.vector_search(user_id, vector, channel, limit=pool_size, shared=True):
            records[hit.record.id], similarity[hit.record.id] = hit.record, hit.score
    return records, similarity, keyword_score


def neighbour_similarity(
    backend: Backend, user_id: str, vector: Sequence[float], ids: Sequence[str]
) -> dict[str, float]:
    """Cosine of memories outside the pool (relation neighbours), from their stored vectors."""
    if not ids:
        return {}
    return cosines(vector, backend.memories.vectors(user_id, list(ids), shared=True))
