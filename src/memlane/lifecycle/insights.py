"""Theory-of-mind insights: a background task, never the hot path.

* Skipped when the user got an insight in the last 24 h, or when nothing new happened (no semantic
  memory since the last insight, or in the last 7 days for a first one): no model call then.
* Input: the latest activity (up to 5 episodic memories), the newest semantic memories since the last
  insight (up to 3) and a conversation snippet (at most 1,000 characters; the scheduled task has none,
  since done turns keep no text: :meth:`Memory.run_insights` takes one).
* Output: 1-3 insights, validated (third person, no first or second person, at most 280 characters;
  others are dropped and counted), none that repeats a live insight (similarity in the embedder's merge
  band), stored as type ``insight``, category ``Relationship_Dynamic``, importance 2 unless the model
  says otherwise, through the one write path. Retrieval weights them by ``MEMORY_INSIGHT_WEIGHT``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from memlane.ledger.mutations import Mutation
from memlane.model.candidate import InsightProposal
from memlane.model.enums import MemoryType, Source
from memlane.model.filters import Condition, live
from memlane.model.ids import new_id
from memlane.model.record import MemoryRecord
from memlane.providers.llm.base import MemoryLLM
from memlane.storage.base import Backend

CATEGORY = "Relationship_Dynamic"
COOLDOWN = timedelta(hours=24)
FIRST_WINDOW = timedelta(days=7)
ACTIVITY_N, FACTS_K, SNIPPET_CHARS, MAX_CHARS = 5, 3, 1000, 280
_NOT_THIRD_PERSON = re.compile(
    r"\b(?:i|me|my|mine|we|us|our|you|your|yours)\b|\b(?:assistant|ai|chatbot)\b", re.IGNORECASE
)


@dataclass
class Inputs:
    activity: list[MemoryRecord] = field(default_factory=list)
    facts: list[MemoryRecord] = field(default_factory=list)
    skip: str | None = None  # why no model is asked


def gather(backend: Backend, user_id: str, now: datetime) -> Inputs:
    """What the model is shown, or why it is not asked."""

    def newest(mtype: MemoryType, limit: int, *extra: Condition) -> list[MemoryRecord]:
        conds = [*live(), Condition("type", "$eq", mtype.value), Condition("created_at", "$lte", now), *extra]
        rows = backend.memories.list(user_id, conds, limit=max(limit, 50))
        return sorted(rows, key=lambda r: (r.created_at, r.id), reverse=True)[:limit]

    last = newest(MemoryType.INSIGHT, 1)
    if last and now - last[0].created_at < COOLDOWN:
        return Inputs(skip="an insight was made in the last 24 h")
    since = last[0].created_at if last else now - FIRST_WINDOW
    facts = newest(MemoryType.SEMANTIC, FACTS_K, Condition("created_at", "$gt", since))
    if not facts:
        return Inputs(skip="no new semantic memories")
    return Inputs(activity=newest(MemoryType.EPISODIC, ACTIVITY_N), facts=facts)


def ask(llm: MemoryLLM, inputs: Inputs, snippet: str = "") -> list[InsightProposal]:
    reply = llm.insights(
        [r.summary for r in inputs.activity],
        [r.summary for r in inputs.facts],
        snippet.strip()[-SNIPPET_CHARS:],
    )
    return reply.insights


def valid(proposals: Sequence[InsightProposal]) -> tuple[list[InsightProposal], int]:
    """The proposals that keep the writing constraints (normalised), and how many were dropped."""
    kept: dict[str, InsightProposal] = {}
    for p in proposals[:3]:
        text = " ".join(p.summary.split())
        if not text or len(text) > MAX_CHARS or _NOT_THIRD_PERSON.search(text):
            continue
        tags = list(dict.fromkeys(t.strip().lower() for t in p.tags if t.strip()))[:3]
        kept.setdefault(text.lower(), p.model_copy(update={"summary": text, "tags": tags}))
    return list(kept.values()), len(proposals) - len(kept)


def record(user_id: str, proposal: InsightProposal, inputs: Inputs, now: datetime) -> MemoryRecord:
    return MemoryRecord(
        id=new_id(),
        user_id=user_id,
        type=MemoryType.INSIGHT,
        category=CATEGORY,
        summary=proposal.summary,
        tags=proposal.tags,
        importance=proposal.importance,
        source=Source.SYSTEM,
        valid_from=now,
        created_at=now,
        updated_at=now,
        metadata={"inferred_from": [r.id for r in [*inputs.facts, *inputs.activity]]},
    )


def store(m: Mutation, records: Sequence[tuple[MemoryRecord, Sequence[float]]]) -> None:
    for rec, vector in records:
        m.create(rec, vector, "theory-of-mind insight from recent activity and new facts")
