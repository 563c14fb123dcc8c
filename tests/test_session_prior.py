"""Session-level evidence as a prior on memories (retrieval/session_prior.py)."""

from __future__ import annotations

from memlane.model.record import MemoryRecord, ScoreBreakdown, SearchHit, utcnow
from memlane.retrieval.session_prior import lift, session_ranks


def hit(mid: str, thread: str | None, score: float) -> SearchHit:
    now = utcnow()
    rec = MemoryRecord(id=mid, user_id="u", summary=mid, thread_id=thread, created_at=now, updated_at=now)
    return SearchHit(memory=rec, score=score, breakdown=ScoreBreakdown(final=score))


def test_sessions_are_ranked_by_their_best_message() -> None:
    scored = [("s1", 0.3), ("s2", 0.9), ("s2", 0.4), ("s3", 0.5), (None, 1.0)]
    assert session_ranks(scored, top=3) == {"s2": 1.0, "s3": 0.5, "s1": 1 / 3}
    assert session_ranks(scored, top=1) == {"s2": 1.0}  # a message with no session ranks none
    assert session_ranks([], top=3) == {}


def test_a_memory_of_the_top_session_overtakes_a_slightly_better_one() -> None:
    hits = [hit("a", "s1", 0.90), hit("b", "s2", 0.88), hit("c", "s2", 0.50), hit("d", None, 0.70)]
    lifted = lift(hits, {"s2": 1.0, "s1": 0.5}, lambda h: h.memory.thread_id, weight=0.08)
    assert [(h.memory.id, round(s, 2)) for h, s in lifted] == [
        ("b", 0.96),
        ("a", 0.94),
        ("d", 0.70),
        ("c", 0.58),
    ]
    # the prior only adds: a weak memory of the top session stays below a strong one of no session
    unlifted = lift(hits, {}, lambda h: h.memory.thread_id)
    assert [h.memory.id for h, _ in unlifted] == ["a", "b", "d", "c"]
