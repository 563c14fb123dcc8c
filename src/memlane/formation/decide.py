"""The decision for one candidate (similarity bands, deterministic keys, the conflict classification).

Pure logic: given the candidate, the active memory under its key (if any) and its nearest
neighbours, say what to do. ``apply.py`` turns the decision into one atomic write.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from memlane.formation.bands import Bands
from memlane.formation.text import normalise
from memlane.model.candidate import Candidate
from memlane.model.enums import MemoryType
from memlane.model.record import MemoryRecord
from memlane.providers.llm.base import MemoryLLM
from memlane.storage.base import ScoredRecord

Action = Literal["create", "merge", "supersede", "ignore"]


@dataclass(frozen=True)
class Decision:
    action: Action
    reason: str
    target: MemoryRecord | None = None
    score: float | None = None  # similarity of the best neighbour considered
    also: tuple[MemoryRecord, ...] = ()  # further memories the candidate contradicts (closed with the target)


def _observed(record: MemoryRecord) -> datetime:
    return record.valid_from or record.created_at


def _replace(target: MemoryRecord, cand: Candidate, at: datetime, why: str, score: float | None) -> Decision:
    """Flip-flop rule: only a statement observed later than the stored one replaces it."""
    if at <= _observed(target):
        return Decision("ignore", f"{why}, but observed before the stored memory (flip-flop rule)", target, score)
    return Decision("supersede", why, target, score)


def _by_verdict(
    llm: MemoryLLM, target: MemoryRecord, cand: Candidate, at: datetime, score: float | None, same_band: bool
) -> Decision | None:
    verdict = llm.classify_conflict(target.summary, cand.summary)
    why = f"{verdict.relation}: {verdict.reason}" if verdict.reason else verdict.relation
    if verdict.relation == "contradiction":
        return _replace(target, cand, at, why, score)
    if verdict.relation == "refinement":
        return _replace(target, cand, at, why, score)
    if verdict.relation == "redundancy" or same_band:
        return Decision("merge", why if verdict.relation == "redundancy" else f"same fact by similarity; {why}",
                        target, score)
    return None


def _decide_one(
    cand: Candidate,
    *,
    at: datetime,
    keyed: MemoryRecord | None,
    neighbours: Sequence[ScoredRecord],
    llm: MemoryLLM,
    bands: Bands,
    merge_window: timedelta,
    heuristics: bool = True,
) -> Decision:
    norm = normalise(cand.summary)
    episodic = cand.type in (MemoryType.EPISODIC, MemoryType.SESSION)

    def in_window(rec: MemoryRecord) -> bool:  # episodes merge only within EPISODIC_MERGE_WINDOW_HOURS
        return not episodic or abs(at - _observed(rec)) <= merge_window

    # 1. exact / normalised-text match -> redundancy
    for rec in ([keyed] if keyed else []) + [n.record for n in neighbours]:
        if normalise(rec.summary) == norm and in_window(rec):
            return Decision("merge", "redundancy: same text", rec, 1.0)
    # 2. same deterministic key -> update or supersede that memory directly
    if keyed is not None:
        decided = _by_verdict(llm, keyed, cand, at, None, same_band=False)
        return decided or _replace(keyed, cand, at, "new value for the same key", None)
    # 3. neighbours in the same user and type, by band
    for n in neighbours:
        if n.score < bands.floor:
            break
        if not in_window(n.record):
            continue
        if n.score >= bands.auto:
            decided = _by_verdict(llm, n.record, cand, at, n.score, same_band=True)
        elif n.score >= bands.low:
            decided = _by_verdict(llm, n.record, cand, at, n.score, same_band=False)
            if decided is None:
                same = llm.same_fact(n.record.summary, cand.summary, cand.category if heuristics else None)
                if same.same_fact:
                    decided = Decision("merge", f"same fact: {same.reason or 'check band'}", n.record, n.score)
        else:  # related but below the band: only an explicit contradiction or refinement replaces
            decided = _by_verdict(llm, n.record, cand, at, n.score, same_band=False)
            if decided is not None and decided.action == "merge":
                decided = decided if decided.reason.startswith("redundancy") else None
        if decided is not None:
            return decided
    best = neighbours[0].score if neighbours else None
    return Decision("create", "new information", None, best)


def decide(
    cand: Candidate,
    *,
    at: datetime,
    keyed: MemoryRecord | None,
    neighbours: Sequence[ScoredRecord],
    llm: MemoryLLM,
    bands: Bands,
    merge_window: timedelta,
    heuristics: bool = True,
) -> Decision:
    """The decision for ``cand``; a supersession also closes every other neighbour it contradicts
    ("I don't eat meat anymore" replaces both "loves steak" and "eats meat every day")."""
    d = _decide_one(cand, at=at, keyed=keyed, neighbours=neighbours, llm=llm, bands=bands,
                    merge_window=merge_window, heuristics=heuristics)
    if d.action != "supersede" or d.target is None:
        return d
    also = []
    for n in neighbours:
        if n.score < bands.floor:
            break
        rec = n.record
        if rec.id == d.target.id or at <= _observed(rec):
            continue
        if llm.classify_conflict(rec.summary, cand.summary).relation == "contradiction":
            also.append(rec)
    return Decision(d.action, d.reason, d.target, d.score, tuple(also))
