"""The hot path: a turn becomes a durable job, then candidates and events at once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from memlane.model.candidate import Candidate, ChatMessage, Extraction
from memlane.model.config import Settings
from memlane.model.enums import MemoryType
from memlane.model.errors import ProviderError
from memlane.model.filters import live
from memlane.model.ids import new_id
from memlane.model.jobs import Job, JobStatus, OpEvent
from memlane.model.record import utcnow
from memlane.providers.llm.base import MemoryLLM
from memlane.providers.llm.structured import enforce_writing_constraints
from memlane.storage.base import Backend, WriteBatch

TURN, CANDIDATE = "turn", "candidate"


def turn_job(
    user_id: str, thread_id: str | None, messages: Sequence[ChatMessage], at: datetime, lease_s: float | None
) -> Job:
    """The accepted turn: leased to the hot path for ``lease_s`` seconds so a worker does not extract it
    twice, or with ``None`` pending, for the background worker to extract."""
    payload = {"messages": [m.model_dump(mode="json") for m in messages], "at": at.isoformat()}
    job_id = new_id()
    if lease_s is None:
        return Job(id=job_id, user_id=user_id, thread_id=thread_id, kind=TURN, payload=payload)
    return Job(  # the lease names this call, so its commit fails if a worker took the turn over meanwhile
        id=job_id,
        user_id=user_id,
        thread_id=thread_id,
        kind=TURN,
        status=JobStatus.RUNNING,
        payload=payload,
        attempts=1,
        locked_by=f"hotpath:{job_id}",
        locked_until=utcnow() + timedelta(seconds=lease_s),
    )


def extract(
    llm: MemoryLLM, messages: Sequence[ChatMessage], settings: Settings, existing: Sequence[str] = ()
) -> Extraction:
    """Candidates from the last user turn; empty when the last message is not the user's.
    ``existing``: stored memories related to the turn, so known facts are completed, not repeated."""
    if not messages or messages[-1].role != "user":
        return Extraction(should_create=False, reason="last message is not a user turn")
    window = list(messages)[-settings.episodic_window_n :]
    result = enforce_writing_constraints(
        llm.extract(window, existing), max_chars=settings.memory_candidate_max_chars
    )
    return result


def related_memories(
    backend: Backend, llm: MemoryLLM, user_id: str, messages: Sequence[ChatMessage], limit: int = 5
) -> list[str]:
    """A few of the user's own stored summaries sharing words with the last user turn, or with the words
    the LLM adds to look them up by (keyword search: no embedding on the hot path). Memories shared with
    the user are left out: they are another user's words, and the extractor would take them for known."""
    if not messages or messages[-1].role != "user":
        return []
    text = messages[-1].content
    query = " ".join([text, *llm.lookup_terms(text)])
    hits = backend.memories.keyword_search(user_id, query, live(), limit=limit)
    return [h.record.summary for h in hits]


@dataclass(frozen=True)
class Dropped:
    """Candidates a cap or the episodic guard left out of a turn: the pipeline reports each as a
    ``memory.error`` event with ``code`` (and an op event), never silently."""

    code: str
    count: int
    message: str

    @property
    def op(self) -> str:
        return self.code


def cap_candidates(
    candidates: Sequence[Candidate], settings: Settings
) -> tuple[list[Candidate], list[Dropped]]:
    """The first ``MEMORY_MAX_CANDIDATES_PER_TURN`` proposals in the extractor's order: the rest are not
    considered by the episodic guard or the write caps."""
    cap = settings.memory_max_candidates_per_turn
    over = len(candidates) - cap
    if over <= 0:
        return list(candidates), []
    return list(candidates[:cap]), [
        Dropped(
            "candidate_cap", over, f"{over} candidate(s) over MEMORY_MAX_CANDIDATES_PER_TURN not considered"
        )
    ]


# a candidate over the hourly cap is kept at the lowest importance: a flood of statements cannot rank
# above (or push out of a context) anything the user said at ordinary importance
RATE_LIMITED_IMPORTANCE = 1


@dataclass(frozen=True)
class Selected:
    """The candidates a turn keeps, in their original order, and the caps' reports. ``notes[i]`` says why
    ``kept[i]`` was changed (its importance lowered by the hourly cap), else None; it joins the decision's
    reason, so the memory's history says it."""

    kept: list[Candidate]
    notes: list[str | None]
    dropped: list[Dropped]


def select(candidates: Sequence[Candidate], settings: Settings, last_hour: int, last_day: int) -> Selected:
    """The most important candidates within ``MEMORY_MAX_WRITES_PER_TURN`` and the daily cap (the rest are
    dropped and reported); of those, the ones over ``MEMORY_WRITE_RATE_LIMIT_PER_HOUR`` are kept with their
    importance lowered to ``RATE_LIMITED_IMPORTANCE``, never dropped. ``last_hour``/``last_day``: the
    user's candidate jobs in that time."""
    per_turn = settings.memory_max_writes_per_turn
    hour_room = max(0, settings.memory_write_rate_limit_per_hour - last_hour)
    day_room = max(0, settings.memory_write_rate_limit_per_day - last_day)
    ranked = sorted(range(len(candidates)), key=lambda i: -candidates[i].importance)
    keep = ranked[: min(per_turn, day_room)]
    full = set(keep[:hour_room])  # the most important within the hourly cap keep their importance
    over_turn = max(0, len(candidates) - per_turn)
    over_day = len(candidates) - over_turn - len(keep)
    dropped = []
    if over_turn:
        dropped.append(
            Dropped(
                "turn_cap", over_turn, f"{over_turn} candidate(s) over MEMORY_MAX_WRITES_PER_TURN not stored"
            )
        )
    if over_day:
        dropped.append(
            Dropped(
                "daily_cap",
                over_day,
                f"rate limited: {over_day} candidate(s) over MEMORY_WRITE_RATE_LIMIT_PER_DAY",
            )
        )
    kept: list[Candidate] = []
    notes: list[str | None] = []
    for i in sorted(keep):
        cand = candidates[i]
        if i not in full:
            notes.append(_lowered(cand.importance, settings))
            cand = cand.model_copy(update={"importance": min(cand.importance, RATE_LIMITED_IMPORTANCE)})
        else:
            notes.append(None)
        kept.append(cand)
    return Selected(kept, notes, dropped)


def _lowered(importance: int, settings: Settings) -> str:
    return (
        f"rate limited: over MEMORY_WRITE_RATE_LIMIT_PER_HOUR "
        f"({settings.memory_write_rate_limit_per_hour}), kept with importance {importance} -> "
        f"{min(importance, RATE_LIMITED_IMPORTANCE)}"
    )


def enqueue_candidates(
    backend: Backend,
    user_id: str,
    thread_id: str | None,
    candidates: Sequence[Candidate],
    at: datetime,
    *,
    dropped: Sequence[Dropped] = (),
    notes: Sequence[str | None] = (),
    turn_id: str | None = None,
    owner: str | None = None,
    time_zone: str | None = None,
    node: str = "hotpath",
) -> list[Job]:
    """Commit one candidate job per candidate (and close the turn job, if ``owner`` still holds its lease:
    else :class:`LeaseLostError` and nothing is written), atomically. The turn's result keeps its
    observed time and how many episodic candidates it kept (the episodic cooldown reads them).
    The candidates of one turn come in the order they were said: each is observed a microsecond after the
    one before, so a later clause is the later word ("I quit, ... on Monday I start at KPMG").
    ``notes[i]``: why candidate ``i`` was changed on the way (kept in its job, added to its decision's
    reason) and reported as a ``rate_limit`` op event."""
    jobs = [
        Job(
            id=new_id(),
            user_id=user_id,
            thread_id=thread_id,
            kind=CANDIDATE,
            payload={
                "candidate": c.model_dump(mode="json"),
                "at": (at + timedelta(microseconds=i)).isoformat(),
                "turn": turn_id,
                **({"tz": time_zone} if time_zone else {}),
                **({"note": notes[i]} if i < len(notes) and notes[i] else {}),
            },
        )
        for i, c in enumerate(candidates)
    ]
    ops = [
        OpEvent(
            id=new_id(),
            user_id=user_id,
            thread_id=thread_id,
            node=node,
            op="classify",
            status="ok" if candidates else "skipped",
            at=at,
        )
    ]
    ops += [
        OpEvent(
            id=new_id(), user_id=user_id, thread_id=thread_id, node=node, op=d.op, status="skipped", at=at
        )
        for d in dropped
    ]
    ops += [
        OpEvent(id=new_id(), user_id=user_id, thread_id=thread_id, node=node, op="rate_limit", at=at)
        for note in notes
        if note
    ]
    episodic = sum(c.type is MemoryType.EPISODIC for c in candidates)
    result = {"candidate_jobs": [j.id for j in jobs], "at": at.isoformat(), "episodic": episodic}
    backend.apply(
        WriteBatch(
            jobs=jobs,
            op_events=ops,
            complete_job=turn_id,
            job_result=result if turn_id else None,
            job_owner=owner if turn_id else None,
        )
    )
    return jobs


__all__ = [
    "CANDIDATE",
    "TURN",
    "RATE_LIMITED_IMPORTANCE",
    "Dropped",
    "Selected",
    "ProviderError",
    "cap_candidates",
    "enqueue_candidates",
    "extract",
    "select",
    "turn_job",
]
