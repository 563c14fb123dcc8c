"""The decision for one candidate (similarity bands, deterministic keys, the conflict classification).

Pure logic: given the candidate, the active memory under its key (if any) and its nearest
neighbours, say what to do. ``apply.py`` turns the decision into one atomic write.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from memlane.formation.bands import Bands
from memlane.formation.text import normalise, says_more
from memlane.model.candidate import Candidate, ConflictVerdict
from memlane.model.enums import MemoryType
from memlane.model.record import MemoryRecord
from memlane.model.time_buckets import undated
from memlane.providers.llm.base import MemoryLLM
from memlane.storage.base import ScoredRecord

Action = Literal["create", "merge", "supersede", "history", "ignore"]

# the nearest few facts under the floor are judged too ("lives in Tartu" / "moved to Tallinn" is 0.39 in
# all-MiniLM-L6-v2): a correction may share little wording with what it corrects. Only a contradiction or a
# refinement closes them, like the implied memories; never a merge, never a band.
BELOW_FLOOR = 3
UNFILED = "other"  # the category of a candidate filed under none (casefolded)


@dataclass(frozen=True)
class Decision:
    action: Action
    reason: str
    target: MemoryRecord | None = None
    score: float | None = None  # similarity of the best neighbour considered
    also: tuple[MemoryRecord, ...] = ()  # further memories the candidate contradicts (closed with the target)
    reword: bool = False  # a merge that keeps the candidate's words (the same fact, said more precisely)


def _observed(record: MemoryRecord) -> datetime:
    return record.valid_from or record.created_at


_ISO_DAY = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")


def _still_ahead(record: MemoryRecord, at: datetime) -> bool:
    """The stored episode names a day (ISO) on or after the candidate's: the event has not happened yet."""
    days = _ISO_DAY.findall(record.summary)
    return any(d >= at.date().isoformat() for d in days)


def _replace(target: MemoryRecord, cand: Candidate, at: datetime, why: str, score: float | None) -> Decision:
    """Flip-flop rule: only a statement observed later than the stored one replaces it. One observed
    before it (a turn processed out of order) is kept as the stored memory's earlier version."""
    if at <= _observed(target):
        return Decision(
            "history",
            f"{why}, but observed before the stored memory (flip-flop rule): kept as its earlier version",
            target,
            score,
        )
    return Decision("supersede", why, target, score)


def _by_verdict(
    verdict: ConflictVerdict, target: MemoryRecord, cand: Candidate, at: datetime, score: float | None
) -> Decision | None:
    """A replacement or a merge the verdict settles; None for "new" and "unsure"."""
    why = f"{verdict.relation}: {verdict.reason}" if verdict.reason else verdict.relation
    if verdict.relation in ("contradiction", "refinement"):
        return _replace(target, cand, at, why, score)
    if verdict.relation == "redundancy":
        return Decision("merge", why, target, score)
    return None


def _same_category(rec: MemoryRecord, cand: Candidate) -> bool:
    """Whether the band alone may merge them: the same category, or one of them filed under none."""
    mine, theirs = rec.category.casefold(), cand.category.casefold()
    return mine == theirs or UNFILED in (mine, theirs)


def _decide_one(
    cand: Candidate,
    *,
    at: datetime,
    keyed: MemoryRecord | None,
    judged: Sequence[tuple[ScoredRecord, ConflictVerdict]],
    llm: MemoryLLM,
    bands: Bands,
    heuristics: bool,
) -> Decision:
    # 1. same deterministic key -> update or supersede that memory directly
    if keyed is not None:
        verdict = judged[0][1]
        decided = _by_verdict(verdict, keyed, cand, at, None)
        return decided or _replace(keyed, cand, at, "new value for the same key", None)
    # 2. neighbours by band: "new" never merges (both facts hold); "unsure" leaves it to the band
    for n, verdict in judged:
        decided = _by_verdict(verdict, n.record, cand, at, n.score)
        if decided is None and verdict.relation == "unsure":
            why = f"unsure: {verdict.reason}" if verdict.reason else "unsure"
            # the band alone merges within a category; across categories the judge confirms it first
            if n.score >= bands.auto and _same_category(n.record, cand):
                # told with a number or a name more, the merged memory keeps those words
                reword = says_more(undated(n.record.summary), undated(cand.summary))
                decided = Decision(
                    "merge",
                    f"same fact by similarity{', said more precisely' if reword else ''}; {why}",
                    n.record,
                    n.score,
                    reword=reword,
                )
            elif n.score >= bands.low:
                same = llm.same_fact(
                    undated(n.record.summary), undated(cand.summary), cand.category if heuristics else None
                )
                if same.same_fact:
                    decided = Decision(
                        "merge", f"same fact: {same.reason or 'check band'}", n.record, n.score
                    )
        if decided is not None:
            return decided
    return Decision("create", "new information", None, None)


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
    implied: Sequence[ScoredRecord] = (),
    user_id: str | None = None,
) -> Decision:
    """The decision for ``cand``. The keyed memory, every neighbour at or above the floor (an episode
    out of the merge window only while the day it names is ahead), a fact's nearest ``BELOW_FLOOR``
    neighbours under the floor and the
    ``implied`` memories (found by :meth:`MemoryLLM.implied_terms`, judged whatever their similarity) are
    judged in one :meth:`MemoryLLM.judge` call; a supersession also closes every other ``implied`` memory
    the candidate contradicts ("I don't eat meat anymore" replaces both "loves steak" and "eats meat every
    day"), and no other: a nearby fact the judge calls contradicted stays unless the candidate retires it.

    ``user_id``: whose candidate it is. A neighbour of another owner (shared with the user, or global) is
    someone else's words: it never absorbs the candidate (no merge, no "already known"), it is only
    closed for this user by a contradiction or a refinement observed after it."""
    episodic = cand.type in (MemoryType.EPISODIC, MemoryType.SESSION)
    text = undated if episodic else str  # an episode's date is not what makes it another episode
    norm = normalise(text(cand.summary))

    def in_window(rec: MemoryRecord) -> bool:  # episodes merge only within EPISODIC_MERGE_WINDOW_HOURS
        return not episodic or abs(at - _observed(rec)) <= merge_window

    def own(rec: MemoryRecord) -> bool:  # the user's own memory, not one shared with them
        return user_id is None or rec.user_id == user_id

    # exact / normalised-text match with the user's own memory -> redundancy, with no judge asked
    for rec in ([keyed] if keyed else []) + [n.record for n in neighbours]:
        if own(rec) and normalise(text(rec.summary)) == norm and in_window(rec):
            return Decision("merge", "redundancy: same text", rec, 1.0)
    pool = [ScoredRecord(keyed, 1.0)] if keyed else []
    pool += [
        n
        for n in neighbours
        if n.score >= bands.floor and in_window(n.record) and (keyed is None or n.record.id != keyed.id)
    ]
    near = {p.record.id for p in pool}
    # an episode out of the merge window is judged only while the day it names is still ahead (a scan
    # "scheduled for 2026-03-12", moved five days later); one that has happened is another occasion
    ahead = [
        n
        for n in neighbours
        if episodic
        and n.score >= bands.floor
        and not in_window(n.record)
        and _still_ahead(n.record, at)
        and n.record.id not in near
    ]
    near |= {n.record.id for n in ahead}
    below = (
        []
        if episodic
        else [n for n in neighbours if n.score < bands.floor and n.record.id not in near][:BELOW_FLOOR]
    )
    near |= {n.record.id for n in below}
    far = (
        ahead + below + [n for n in implied if n.record.id not in near]
    )  # found by what the candidate retires
    pool += far
    verdicts = llm.judge(text(cand.summary), [text(n.record.summary) for n in pool]) if pool else []

    # a memory far in meaning is only ever closed by a contradiction or a refinement ("into water sports" /
    # "goes kitesurfing every weekend"), never merged or decided by a band; so is one shared with the user
    def counts(n: ScoredRecord, v: ConflictVerdict) -> bool:
        closes = v.relation in ("contradiction", "refinement")
        return (n not in far or closes) if own(n.record) else closes and at > _observed(n.record)

    judged = [(n, v) for n, v in zip(pool, verdicts, strict=True) if counts(n, v)]
    d = _decide_one(cand, at=at, keyed=keyed, judged=judged, llm=llm, bands=bands, heuristics=heuristics)
    best = neighbours[0].score if neighbours else None
    if d.action == "create":
        return Decision("create", d.reason, None, best)
    if d.action != "supersede" or d.target is None:
        return d
    # further memories close only where the candidate names what it retires: those found by its retired
    # words that the judge calls contradicted. A contradiction alone does not reach them: a change to one
    # attribute ("stepped down as church warden") leaves a nearby fact ("arranges the flowers") standing
    retired = {n.record.id for n in implied}
    also = tuple(
        n.record
        for n, v in judged
        if n.record.id != d.target.id
        and n.record.id in retired
        and at > _observed(n.record)
        and v.relation == "contradiction"
    )
    return Decision(d.action, d.reason, d.target, d.score, also)
