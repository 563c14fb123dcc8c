"""The hot path: a turn becomes a durable job, then candidates and events at once."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from memlane.model.candidate import Candidate, ChatMessage, Extraction
from memlane.model.config import Settings
from memlane.model.errors import ProviderError
from memlane.model.filters import live
from memlane.model.ids import new_id
from memlane.model.jobs import Job, JobStatus, OpEvent
from memlane.model.record import utcnow
from memlane.providers.llm.base import MemoryLLM
from memlane.providers.llm.structured import enforce_writing_constraints
from memlane.storage.base import Backend, WriteBatch

TURN, CANDIDATE = "turn", "candidate"


def turn_job(user_id: str, thread_id: str | None, messages: Sequence[ChatMessage], at: datetime,
             lease_s: float | None) -> Job:
    """The accepted turn: leased to the hot path for ``lease_s`` seconds so a worker does not extract it
    twice, or with ``None`` pending, for the background worker to extract."""
    payload = {"messages": [m.model_dump(mode="json") for m in messages], "at": at.isoformat()}
    if lease_s is None:
        return Job(id=new_id(), user_id=user_id, thread_id=thread_id, kind=TURN, payload=payload)
    return Job(
        id=new_id(), user_id=user_id, thread_id=thread_id, kind=TURN, status=JobStatus.RUNNING, payload=payload,
        attempts=1, locked_by="hotpath", locked_until=utcnow() + timedelta(seconds=lease_s),
    )


def extract(llm: MemoryLLM, messages: Sequence[ChatMessage], settings: Settings,
            existing: Sequence[str] = ()) -> Extraction:
    """Candidates from the last user turn; empty when the last message is not the user's.
    ``existing``: stored memories related to the turn, so known facts are completed, not repeated."""
    if not messages or messages[-1].role != "user":
        return Extraction(should_create=False, reason="last message is not a user turn")
    window = list(messages)[-settings.episodic_window_n:]
    result = enforce_writing_constraints(llm.extract(window, existing),
                                         max_chars=settings.memory_candidate_max_chars)
    return result


def related_memories(backend: Backend, user_id: str, messages: Sequence[ChatMessage], limit: int = 5) -> list[str]:
    """A few stored summaries sharing words with the last user turn (keyword search: no embedding
    on the hot path)."""
    if not messages or messages[-1].role != "user":
        return []
    hits = backend.keyword_search(user_id, messages[-1].content, live(), limit=limit)
    return [h.record.summary for h in hits]


def select(candidates: Sequence[Candidate], settings: Settings,
           recent_writes: int) -> tuple[list[Candidate], int, int]:
    """The most important candidates within ``MEMORY_MAX_WRITES_PER_TURN`` and the hourly cap, in their
    original order. Returns the kept candidates and how many each cap dropped (per turn, hourly)."""
    per_turn = settings.memory_max_writes_per_turn
    room = max(0, settings.memory_write_rate_limit_per_hour - recent_writes)
    ranked = sorted(range(len(candidates)), key=lambda i: -candidates[i].importance)
    keep = sorted(ranked[: min(per_turn, room)])
    over_turn = max(0, len(candidates) - per_turn)
    return [candidates[i] for i in keep], over_turn, len(candidates) - over_turn - len(keep)


def enqueue_candidates(
    backend: Backend, user_id: str, thread_id: str | None, candidates: Sequence[Candidate], at: datetime,
    *, dropped: int = 0, turn_id: str | None = None,
) -> list[Job]:
    """Commit one candidate job per candidate (and close the turn job), atomically."""
    jobs = [Job(id=new_id(), user_id=user_id, thread_id=thread_id, kind=CANDIDATE,
                payload={"candidate": c.model_dump(mode="json"), "at": at.isoformat(), "turn": turn_id})
            for c in candidates]
    ops = [OpEvent(id=new_id(), user_id=user_id, thread_id=thread_id, node="hotpath", op="classify",
                   status="ok" if candidates else "skipped", at=at)]
    if dropped:
        ops.append(OpEvent(id=new_id(), user_id=user_id, thread_id=thread_id, node="hotpath",
                           op="rate_limit", status="skipped", at=at))
    backend.apply(WriteBatch(jobs=jobs, op_events=ops, complete_job=turn_id,
                             job_result={"candidate_jobs": [j.id for j in jobs]} if turn_id else None))
    return jobs


__all__ = ["CANDIDATE", "TURN", "ProviderError", "enqueue_candidates", "extract", "select", "turn_job"]
