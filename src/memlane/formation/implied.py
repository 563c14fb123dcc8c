"""Stored memories a candidate may retire though they are not near it in meaning.

"User is teetotal now" is far from "User has a cold beer after every shift" in embedding space, so the
nearest neighbours miss it. The judge names the words of what the candidate retires
(:meth:`MemoryLLM.implied_terms`); a keyword search finds the memories that use them, and ``decide()``
judges those with the neighbours. Their score is their real similarity, so no band treats them as near.
"""

from __future__ import annotations

from collections.abc import Sequence

from memlane.model.filters import Condition
from memlane.storage.base import Backend, ScoredRecord
from memlane.storage.cosine import cosines

_WORDS_PER_QUERY = 30  # keyword queries read at most 32 words (storage/keywords.py)


def implied_memories(
    backend: Backend,
    user_id: str,
    vector: Sequence[float],
    terms: Sequence[str],
    conditions: Sequence[Condition],
    *,
    limit: int,
) -> list[ScoredRecord]:
    """Up to ``limit`` memories matching any of ``terms`` (none when there are no terms), each scored by
    its cosine similarity to ``vector`` (``decide()`` leaves out those it judges already)."""
    found: dict[str, ScoredRecord] = {}
    for start in range(0, len(terms), _WORDS_PER_QUERY):
        query = " ".join(terms[start : start + _WORDS_PER_QUERY])
        for hit in backend.memories.keyword_search(user_id, query, conditions, limit=limit, shared=True):
            found.setdefault(hit.record.id, hit)
    if not found:
        return []
    sims = cosines(vector, backend.memories.vectors(user_id, list(found), shared=True))
    scored = [ScoredRecord(hit.record, sims.get(rid, 0.0)) for rid, hit in found.items()]
    return sorted(scored, key=lambda s: -s.score)[:limit]
