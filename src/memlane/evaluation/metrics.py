"""Retrieval metrics over ranked evidence ids: recall@k (of ids and of their sessions), NDCG@k, latency
percentiles."""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

H = TypeVar("H", bound=Hashable)


def distinct(ids: Iterable[H], k: int | None = None) -> list[H]:
    """The first ``k`` distinct ids, in order."""
    out: list[H] = []
    for i in ids:
        if i not in out:
            out.append(i)
            if k is not None and len(out) >= k:
                break
    return out


def recall_at(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    """Share of ``gold`` among the first ``k`` distinct ranked ids."""
    if not gold:
        raise ValueError("recall needs at least one gold id")
    top = set(distinct(ranked, k))
    return sum(1 for g in set(gold) if g in top) / len(set(gold))


def session_recall_at(
    ranked: Sequence[str], gold: Sequence[str], k: int, session_of: Mapping[str, Hashable]
) -> float:
    """Share of the sessions holding ``gold`` among the first ``k`` distinct sessions of the ranked ids
    (an id with no session is passed over)."""
    wanted = {session_of[g] for g in gold if g in session_of}
    if not wanted:
        raise ValueError("session recall needs at least one gold id with a session")
    top = set(distinct((session_of[i] for i in ranked if i in session_of), k))
    return len(wanted & top) / len(wanted)


def ndcg_at(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    """Binary-relevance NDCG over the first ``k`` distinct ranked ids."""
    wanted = set(gold)
    if not wanted:
        raise ValueError("NDCG needs at least one gold id")
    dcg = sum(1.0 / math.log2(i + 2) for i, x in enumerate(distinct(ranked, k)) if x in wanted)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(wanted), k)))
    return dcg / ideal


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (``q`` in 0..100); 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)
