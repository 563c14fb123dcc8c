"""A candidate is readable at once (a provisional record): its job's id is the id of the memory it
proposes. The hot path hands that id back (:class:`Proposed`, ``memory.candidate``'s ``memory_id``);
until the worker decides, ``Memory.get`` reads it as a provisional memory built from the job; afterwards
as the memory it became. A created memory (or a supersession's new version) keeps the id; a candidate
merged into, or corroborating, a stored memory reads as that memory (a merge lists the id in its
``merged_from``), and a keyed fact as its key's memory. Nothing provisional is stored: the candidate
job already holds it durably, so the read costs nothing on the hot path."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memlane.formation.hotpath import CANDIDATE
from memlane.formation.records import record_from_candidate
from memlane.ledger.bus import EventBus
from memlane.ledger.events import MemoryEvent
from memlane.model.candidate import Candidate, Proposed
from memlane.model.config import Settings
from memlane.model.enums import MemoryState
from memlane.model.jobs import Job, JobStatus
from memlane.model.record import MemoryRecord
from memlane.storage.base import Backend


def with_memory_ids(candidates: Sequence[Candidate], job_ids: Sequence[str]) -> list[Proposed]:
    """The candidates with the ids of the memories they propose (their jobs' ids)."""
    return [Proposed(**c.model_dump(), memory_id=j) for c, j in zip(candidates, job_ids, strict=True)]


def publish_candidates(
    bus: EventBus, turn: Job, candidates: Sequence[Candidate], jobs: Sequence[Job]
) -> None:
    """One ``memory.candidate`` event per committed candidate, naming the memory it proposes."""
    for cand, cjob in zip(candidates, jobs, strict=True):
        bus.publish(
            MemoryEvent(
                type="memory.candidate",
                user_id=turn.user_id,
                thread_id=turn.thread_id,
                memory_id=cjob.id,
                data={
                    **cand.model_dump(mode="json"),
                    "id": cjob.id,
                    "created_at": cjob.payload["at"],
                    "turn": turn.id,
                    "candidate_id": cjob.id,
                    **({"note": cjob.payload["note"]} if "note" in cjob.payload else {}),
                },
            )
        )


def read(backend: Backend, settings: Settings, user_id: str, memory_id: str) -> MemoryRecord | None:
    """What ``memory_id`` names when no stored memory has that id: the candidate of that id, provisional
    while it is decided (also while its job waits for a retry), else the memory it became; None when
    there is no such candidate or its decision left no memory (a change held for consent)."""
    job = next((j for j in backend.jobs.get_jobs(user_id, [memory_id]) if j.kind == CANDIDATE), None)
    if job is None:
        return None
    if job.status is not JobStatus.DONE:
        return provisional_record(job, settings)
    became = job.payload.get("memory_id")
    if not became or became == memory_id:
        return None
    return backend.memories.get(user_id, became, shared=True)


def provisional_record(job: Job, settings: Settings) -> MemoryRecord:
    """The memory a candidate job proposes, as it would be created, in the provisional state."""
    cand = Candidate.model_validate(job.payload["candidate"])
    rec = record_from_candidate(
        cand,
        user_id=job.user_id,
        thread_id=job.thread_id,
        at=datetime.fromisoformat(job.payload["at"]),
        categories=settings.categories,
        tz=job.payload.get("tz") or settings.timezone,
        memory_id=job.id,
    )
    return rec.model_copy(update={"state": MemoryState.PROVISIONAL})
