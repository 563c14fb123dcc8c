"""The memories a candidate is judged against: its nearest stored vectors, or, in a store that keeps
no vectors (PostgreSQL without pgvector), the memories that share its words.

Without stored vectors the keyword hits are scored by cosine all the same: their texts are embedded
now, as they would have been when written, so the embedder's bands (duplicate, update, link) decide
as they do on stored vectors. A keyword rank (``ts_rank``) is no cosine and cannot be held to those
bands. What shares no word with the candidate is not found, so a paraphrase in other words is
created new where a vector search would have matched it.
"""

from __future__ import annotations

from collections.abc import Sequence

from memlane.model.config import Settings
from memlane.model.filters import Condition
from memlane.providers.embed import Embedder
from memlane.retrieval.embed_text import memory_text
from memlane.storage.base import Backend, ScoredRecord
from memlane.storage.cosine import cosines


def neighbours(
    backend: Backend,
    embedder: Embedder,
    settings: Settings,
    user_id: str,
    summary: str,
    vector: Sequence[float],
    conditions: Sequence[Condition],
    *,
    limit: int,
    shared: bool = False,
) -> list[ScoredRecord]:
    """Up to ``limit`` memories nearest ``vector`` (the embedding of ``summary``), nearest first."""
    if backend.has_vectors:
        return backend.memories.vector_search(user_id, vector, conditions, limit=limit, shared=shared)
    hits = backend.memories.keyword_search(user_id, summary, conditions, limit=limit, shared=shared)
    if not hits:
        return []
    embedded = embedder.embed([memory_text(h.record, settings) for h in hits])
    sims = cosines(vector, {h.record.id: list(v) for h, v in zip(hits, embedded, strict=True)})
    return sorted((ScoredRecord(h.record, sims[h.record.id]) for h in hits), key=lambda s: -s.score)
