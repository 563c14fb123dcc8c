"""Build and change records for formation: new memories from candidates, merges, supersessions."""

from __future__ import annotations

from datetime import datetime

from memlane.model.candidate import Candidate
from memlane.model.category import normalise_category
from memlane.model.enums import MemoryState, MemoryType, Source
from memlane.model.ids import deterministic_id, new_id
from memlane.model.record import MemoryRecord
from memlane.model.time_buckets import buckets


def record_from_candidate(
    cand: Candidate,
    *,
    user_id: str,
    thread_id: str | None,
    at: datetime,
    categories: list[str],
    tz: str,
    memory_id: str | None = None,
) -> MemoryRecord:
    rec = MemoryRecord(
        id=memory_id or (deterministic_id(user_id, cand.type.value, cand.key) if cand.key else new_id()),
        user_id=user_id,
        thread_id=thread_id,
        type=cand.type,
        category=normalise_category(cand.category, categories),
        key=cand.key,
        summary=cand.summary,
        tags=list(dict.fromkeys(cand.tags)),
        entities=list(dict.fromkeys(cand.entities)),
        importance=cand.importance,
        pinned=cand.pinned,
        source=Source.CHAT,
        state=MemoryState.ACTIVE,
        valid_from=at,
        created_at=at,
        updated_at=at,
        last_verified_at=at,
    )
    if rec.type in (MemoryType.EPISODIC, MemoryType.SESSION):
        rec.date_iso, rec.week, rec.year = buckets(at, tz)
    return rec


def merged(
    target: MemoryRecord, cand: Candidate, at: datetime, candidate_id: str | None = None
) -> MemoryRecord:
    """The merge policy: tags and entities union, importance max, access count, verified now, and the
    candidate's id (its job's) in ``merged_from``."""
    return target.model_copy(
        update={
            "merged_from": list(
                dict.fromkeys([*target.merged_from, *([candidate_id] if candidate_id else [])])
            ),
            "tags": list(dict.fromkeys([*target.tags, *cand.tags])),
            "entities": list(dict.fromkeys([*target.entities, *cand.entities])),
            "importance": max(target.importance, cand.importance),
            "pinned": target.pinned or cand.pinned,
            "access_count": target.access_count + 1,
            "last_verified_at": max(at, target.last_verified_at or at),
            "last_accessed": at,
            "updated_at": max(at, target.updated_at),
        }
    )


def closed(
    target: MemoryRecord, *, at: datetime, superseded_by: str, memory_id: str | None = None
) -> MemoryRecord:
    """The old fact, no longer true from ``at``: kept for history, out of retrieval."""
    return target.model_copy(
        update={
            "id": memory_id or target.id,
            "state": MemoryState.SUPERSEDED,
            "valid_to": at,
            "superseded_by": superseded_by,
            "updated_at": at,
            "key": target.key if memory_id is None else None,
        }
    )


def absorbed(keeper: MemoryRecord, dup: MemoryRecord, at: datetime) -> MemoryRecord:
    """The merge policy for two stored memories: ``keeper`` takes ``dup``'s tags, entities, importance
    and pin, and lists it in ``merged_from``."""
    return keeper.model_copy(
        update={
            "tags": list(dict.fromkeys([*keeper.tags, *dup.tags])),
            "entities": list(dict.fromkeys([*keeper.entities, *dup.entities])),
            "importance": max(keeper.importance, dup.importance),
            "pinned": keeper.pinned or dup.pinned,
            "merged_from": [*keeper.merged_from, dup.id],
            "updated_at": at,
            "last_verified_at": at,
        }
    )
