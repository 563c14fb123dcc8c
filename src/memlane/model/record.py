"""The memory record, its history row and search results as typed data (no I/O here)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memlane.model.brief import brief, cut
from memlane.model.enums import HistoryEvent, MemoryState, MemoryType, Source

# what a history row's ``changed`` leaves out: bookkeeping every write (or read) touches
BOOKKEEPING = frozenset({"updated_at", "last_accessed", "last_verified_at", "access_count"})


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """Naive datetimes are taken as UTC; aware ones are converted to UTC."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class MemoryRecord(BaseModel):
    """One memory. ``summary`` is what is embedded and shown; everything else is metadata."""

    model_config = ConfigDict(validate_assignment=True, use_enum_values=False)

    id: str
    user_id: str
    agent_id: str | None = None
    run_id: str | None = None
    actor_id: str | None = None
    thread_id: str | None = None
    chat_id: str | None = None

    type: MemoryType = MemoryType.SEMANTIC
    category: str = "Other"
    key: str | None = None
    summary: str
    tags: list[str] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)
    importance: int = Field(default=3, ge=1, le=5)
    pinned: bool = False
    source: Source = Source.CHAT
    source_ref: str | None = None  # where it came from: a message id, a LoCoMo dia_id, ...
    state: MemoryState = MemoryState.ACTIVE

    valid_from: datetime | None = None
    valid_to: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    last_accessed: datetime | None = None
    last_verified_at: datetime | None = None
    access_count: int = 0
    expires_at: datetime | None = None  # TTL
    purge_at: datetime | None = None  # set when soft-deleted by TTL

    superseded_by: str | None = None
    merged_from: list[str] = Field(default_factory=list)
    related: list[str] = Field(default_factory=list)

    date_iso: str | None = None
    week: int | None = None
    year: int | None = None

    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator(
        "valid_from",
        "valid_to",
        "created_at",
        "updated_at",
        "last_accessed",
        "last_verified_at",
        "expires_at",
        "purge_at",
    )
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        return None if value is None else as_utc(value)

    @property
    def is_active(self) -> bool:
        return self.state is MemoryState.ACTIVE

    def snapshot(self) -> dict[str, Any]:
        """JSON-ready dict, as stored in history rows and exports."""
        return self.model_dump(mode="json")

    def __repr_args__(self) -> list[tuple[str, Any]]:
        return brief(
            id=self.id,
            user_id=self.user_id,
            type=self.type,
            category=self.category,
            key=self.key,
            summary=cut(self.summary),
            state=self.state,
            pinned=self.pinned or None,
            date=self.date_iso,
            superseded_by=self.superseded_by,
        )


class HistoryEntry(BaseModel):
    """One audit row: what changed, from what to what, why and by whom."""

    id: str
    memory_id: str
    user_id: str
    event: HistoryEvent
    old_value: dict[str, Any] | None = None
    new_value: dict[str, Any] | None = None
    reason: str | None = None
    actor: str | None = None
    at: datetime = Field(default_factory=utcnow)

    @field_validator("at")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        return as_utc(value)

    def __repr_args__(self) -> list[tuple[str, Any]]:
        old, new = self.old_value or {}, self.new_value or {}
        summary, was = new.get("summary", old.get("summary")), old.get("summary")
        changed = sorted(
            k for k in old.keys() & new.keys() - BOOKKEEPING if k != "summary" and old[k] != new[k]
        )
        return brief(
            event=self.event,
            at=self.at,
            actor=self.actor,
            reason=cut(self.reason),
            summary=cut(summary),
            was=cut(was) if new and was != summary else None,
            changed=changed or None,
        )


class ScoreBreakdown(BaseModel):
    """Why a result ranked where it did. ``final`` is the score results are ordered by: with ``weights``,
    ``(Σ weights[s] × s + relations - brevity - subject - kind) × decay × type_weight`` over similarity, importance, recency and pinned
    (``similarity`` already includes ``keyword``); without (a dense- or keyword-only search), the raw score.
    ``pinned`` is 1 for a pinned memory whose ``similarity`` is within ``MEMORY_PIN_MARGIN`` of the best
    candidate's (a pin counts only where the memory answers the question), 0 otherwise."""

    similarity: float = 0.0
    keyword: float = 0.0
    importance: float = 0.0
    recency: float = 0.0
    pinned: float = 0.0  # 1: pinned and relevant (see above)
    relations: float = 0.0
    brevity: float = 0.0  # what a short message with a context lost (subtracted)
    subject: float = 0.0  # what a memory about someone the question does not ask about lost (subtracted)
    kind: float = 0.0  # what a memory holding no answer of the kind the question asks for lost (subtracted)
    decay: float = 1.0  # the age decay factor (1.0 when age decay is off, or the memory is pinned)
    type_weight: float = 1.0  # MEMORY_INSIGHT_WEIGHT for an inferred insight, else 1.0
    weights: dict[str, float] = Field(default_factory=dict, description="The weights final was computed with")
    final: float = 0.0

    def __repr_args__(self) -> list[tuple[str, Any]]:
        """``final`` and the signals that moved it (the weights are the configured ones)."""
        signals = self.model_dump(exclude={"weights", "final"})
        moved = {k: v for k, v in signals.items() if v != ScoreBreakdown.model_fields[k].default}
        return brief(final=self.final, **moved)


class SearchHit(BaseModel):
    memory: MemoryRecord
    score: float
    breakdown: ScoreBreakdown

    def __repr_args__(self) -> list[tuple[str, Any]]:
        return brief(score=self.score, memory=self.memory)


class Relation(BaseModel):
    from_id: str
    to_id: str
    user_id: str
    relation_type: str = "related_to"
    strength: float
    created_at: datetime = Field(default_factory=utcnow)
