"""Daily consolidation: duplicates and stale versions that slipped past the hot path
(facts written side by side, imports, puts, paraphrases below the merge band) are found and cleaned.

* Pool: the user's live semantic memories written in the last 72 h, of importance >= 3, or in the
  top decile by reads.
* Pairs, without an LLM: each pool memory's neighbours above the embedder's floor band, where one of
  the two was written in the last 90 days and the texts share a content word or both carry a number;
  a pair judged in the last 14 days (same ids, same rounded score) is skipped; at most
  ``MEMORY_CONSOLIDATION_MAX_PAIRS`` per user and run.
* Checks: the newer memory of each pair is judged against its older partners, up to
  ``PAIRS_PER_CALL`` in one call (the rules judge offline), within ``MEMORY_CONSOLIDATION_TOKEN_BUDGET``.
* Writes, through the one write path: redundant -> the older absorbs the newer (``merged_from``,
  ``memory.merged {from, into}``); a contradiction or refinement -> the newer supersedes the older;
  new or unsure -> both stay.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from memlane.formation.bands import Bands
from memlane.formation.records import absorbed, closed
from memlane.ledger.mutations import Mutation
from memlane.model.candidate import ConflictVerdict
from memlane.model.enums import MemoryState, MemoryType
from memlane.model.filters import Condition, live
from memlane.model.record import MemoryRecord
from memlane.providers.llm.base import MemoryLLM
from memlane.storage.base import Backend
from memlane.storage.keywords import STOP_WORDS, query_words

RECENT = timedelta(hours=72)
FRESH = timedelta(days=90)
RECHECK = timedelta(days=14)
PAIRS_PER_CALL = 8
POOL_LIMIT = 5000
NEIGHBOURS = 5
_NUMBER = re.compile(r"\d")


@dataclass(frozen=True)
class Pair:
    newer: MemoryRecord
    older: MemoryRecord
    score: float

    @property
    def fingerprint(self) -> str:
        a, b = sorted((self.newer.id, self.older.id))
        return f"{a}|{b}|{self.score:.2f}"


@dataclass
class Judged:
    """The pairs judged this run with their verdicts, and what judging cost."""

    verdicts: list[tuple[Pair, ConflictVerdict]] = field(default_factory=list)
    calls: int = 0
    tokens: int = 0


def _words(text: str) -> set[str]:
    return {w for w in query_words(text, limit=64) if w not in STOP_WORDS}


def worth_judging(a: MemoryRecord, b: MemoryRecord, now: datetime) -> bool:
    """The pre-filters: one of them is fresh, and the texts overlap in a content word or both hold a number."""
    if now - max(a.updated_at, b.updated_at) > FRESH:
        return False
    both_numbers = bool(_NUMBER.search(a.summary)) and bool(_NUMBER.search(b.summary))
    return both_numbers or bool(_words(a.summary) & _words(b.summary))


def pool(backend: Backend, user_id: str, now: datetime) -> list[MemoryRecord]:
    recs = backend.memories.list(
        user_id, [*live(), Condition("type", "$eq", MemoryType.SEMANTIC.value)], limit=POOL_LIMIT
    )
    reads = sorted(r.access_count for r in recs)
    decile = reads[int(0.9 * (len(reads) - 1))] if reads else 0
    return [
        r
        for r in recs
        if now - r.updated_at <= RECENT
        or r.importance >= 3
        or (r.access_count > 0 and r.access_count >= decile)
    ]


def find_pairs(
    backend: Backend, user_id: str, members: Sequence[MemoryRecord], bands: Bands, now: datetime, cap: int
) -> list[Pair]:
    """The best-scoring pairs worth judging, at most ``cap``; pairs judged within RECHECK are skipped."""
    seen = backend.memories.checked_pairs(user_id, now - RECHECK)
    vectors = backend.memories.vectors(user_id, [r.id for r in members])
    conds = [*live(), Condition("type", "$eq", MemoryType.SEMANTIC.value)]
    found: dict[str, Pair] = {}
    for rec in members:
        vector = vectors.get(rec.id)
        if vector is None:
            continue
        for hit in backend.memories.vector_search(user_id, vector, conds, limit=NEIGHBOURS + 1):
            other = hit.record
            if other.id == rec.id or hit.score < bands.floor or not worth_judging(rec, other, now):
                continue
            newer, older = sorted((rec, other), key=lambda r: (r.created_at, r.id), reverse=True)
            pair = Pair(newer, older, round(hit.score, 2))
            if pair.fingerprint not in seen:
                found.setdefault(f"{older.id}|{newer.id}", pair)
    return sorted(found.values(), key=lambda p: -p.score)[:cap]


def judge(llm: MemoryLLM, pairs: Sequence[Pair], token_budget: int) -> Judged:
    """Each newer memory against its older partners, ``PAIRS_PER_CALL`` at a time, until the budget ends."""
    groups: dict[str, list[Pair]] = {}
    for pair in pairs:
        groups.setdefault(pair.newer.id, []).append(pair)
    out = Judged()
    for group in groups.values():
        for i in range(0, len(group), PAIRS_PER_CALL):
            chunk = group[i : i + PAIRS_PER_CALL]
            cost = 150 + sum(len(p.newer.summary) + len(p.older.summary) for p in chunk) // 4
            if out.tokens + cost > token_budget:
                return out
            verdicts = llm.judge(chunk[0].newer.summary, [p.older.summary for p in chunk])
            out.calls += 1
            out.tokens += cost
            out.verdicts += list(zip(chunk, verdicts, strict=True))
    return out


def apply(m: Mutation, judged: Judged, stored: dict[str, MemoryRecord], now: datetime) -> dict[str, int]:
    """Write the verdicts on the records as stored now (a pair either side of which changed since it was
    read, or that this run already changed, is left for the next run)."""
    touched: set[str] = set()
    merged = superseded = 0
    for pair, verdict in judged.verdicts:
        m.batch.pair_checks.append((pair.newer.user_id, pair.fingerprint, now))
        newer, older = stored.get(pair.newer.id), stored.get(pair.older.id)
        if (
            newer is None
            or older is None
            or {newer.id, older.id} & touched
            or newer.updated_at != pair.newer.updated_at
            or older.updated_at != pair.older.updated_at
            or newer.state is not MemoryState.ACTIVE
            or older.state is not MemoryState.ACTIVE
        ):
            continue
        # Unlike a new candidate, both are stored facts: only a definite verdict changes them ("unsure"
        # leaves both; measured: letting the merge band decide merged "sister Zoe" into "colleague Zoe").
        relation = verdict.relation
        reason = f"consolidation: {relation} (cosine {pair.score:.2f}): {verdict.reason or '-'}"
        if relation == "redundancy":
            m.absorb(
                older,
                absorbed(older, newer, now),
                newer,
                closed(newer, at=now, superseded_by=older.id),
                reason,
            )
            merged += 1
        elif relation in ("contradiction", "refinement"):
            m.close(older, closed(older, at=now, superseded_by=newer.id), newer, reason)
            superseded += 1
        else:
            continue
        touched |= {newer.id, older.id}
    return {
        "pairs": len(judged.verdicts),
        "calls": judged.calls,
        "tokens": judged.tokens,
        "merged": merged,
        "superseded": superseded,
    }
