"""Seed 000's composite rerank: similarity, importance, recency, pinning, plus a small relation boost."""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime

from memlane.model.record import MemoryRecord, ScoreBreakdown


def recency_decay(record: MemoryRecord, now: datetime, half_life_days: float) -> float:
    """1.0 for a memory touched now, 0.5 after one half-life (last verified, else last updated)."""
    touched = record.last_verified_at or record.updated_at
    if record.valid_from and record.type.value in ("episodic", "session"):
        touched = record.valid_from  # an event is as recent as when it happened
    age_days = max(0.0, (now - touched).total_seconds() / 86400.0)
    return math.pow(0.5, age_days / max(half_life_days, 1e-6))


def composite(
    record: MemoryRecord,
    similarity: float,
    now: datetime,
    weights: Mapping[str, float],
    *,
    half_life_days: float = 30.0,
    relation_strength: float = 0.0,
    relation_weight: float = 0.0,
    keyword: float = 0.0,
    decay_half_life_days: float | None = None,
) -> ScoreBreakdown:
    """Score one candidate; ``final`` orders results. Optional age decay multiplies (seed 003 §5)."""
    importance = (record.importance - 1) / 4.0
    recency = recency_decay(record, now, half_life_days)
    pinned = 1.0 if record.pinned else 0.0
    final = (
        weights.get("similarity", 0.55) * similarity
        + weights.get("importance", 0.20) * importance
        + weights.get("recency", 0.15) * recency
        + weights.get("pinned", 0.10) * pinned
        + relation_weight * relation_strength
    )
    if decay_half_life_days:
        age_days = max(0.0, (now - record.created_at).total_seconds() / 86400.0)
        final *= math.pow(0.5, age_days / decay_half_life_days) if not record.pinned else 1.0
    return ScoreBreakdown(
        similarity=similarity, keyword=keyword, importance=importance, recency=recency,
        pinned=pinned, relations=relation_strength, final=final,
    )
