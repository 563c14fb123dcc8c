"""Session-level evidence as a prior on memories: the sessions whose recorded messages match a question
best lift the memories of those sessions.

The message channel ranks sessions (each by its best-matching message); the first ``top`` of them get
a prior of 1, 1/2, 1/3, … and a memory of a ranked session gains ``weight`` × that prior:

    score = memlane's score + weight × 1 / (rank of its session + 1)

Nothing is dropped and nothing is added: only the order of memlane's own results changes, so a
question whose messages match nothing keeps memlane's ranking. Chosen on LoCoMo conversations 1-3
(docs/locomo.md, "Session channel as a prior"): the rank form was flat over 2-5 sessions and weights
0.08-0.12; a prior from the session summaries added nothing over the messages' and is not used.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

from memlane.model.record import SearchHit

TOP = 3  # sessions that get a prior
WEIGHT = 0.08  # in memlane's score units (cosine-like; a top hit scores about 1)

K = TypeVar("K", bound=Hashable)


def session_ranks(scored: Iterable[tuple[K | None, float]], top: int = TOP) -> dict[K, float]:
    """The prior of the ``top`` sessions by their best score: 1, 1/2, 1/3, … (``None``: no session)."""
    best: dict[K, float] = {}
    for key, score in scored:
        if key is not None and (key not in best or score > best[key]):
            best[key] = score
    ranked = sorted(best, key=lambda k: -best[k])[:top]
    return {k: 1.0 / (i + 1) for i, k in enumerate(ranked)}


def lift(
    hits: Sequence[SearchHit],
    prior: Mapping[K, float],
    session_of: Callable[[SearchHit], K | None],
    weight: float = WEIGHT,
) -> list[tuple[SearchHit, float]]:
    """``hits`` with their lifted scores, best first (ties keep memlane's order)."""
    scored = []
    for hit in hits:
        key = session_of(hit)
        scored.append((hit, hit.score + weight * (prior.get(key, 0.0) if key is not None else 0.0)))
    return sorted(scored, key=lambda pair: -pair[1])
