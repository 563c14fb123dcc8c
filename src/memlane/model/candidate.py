"""Structured outputs of extraction and decisions: what every LLM client (and the rules) returns."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from memlane.model.brief import brief, cut
from memlane.model.enums import MemoryType

MAX_CANDIDATES = 5  # what one extraction may propose (1-5 candidate facts)


class ChatMessage(BaseModel):
    role: Literal["user", "assistant", "system", "tool"] = "user"
    content: str
    at: datetime | None = None
    name: str | None = None  # speaker name in group chats
    ref: str | None = None  # the client's own id of the message (recorded with group-chat messages)


class Candidate(BaseModel):
    """A proposed memory, before the dedup / merge / supersede decision."""

    model_config = ConfigDict(extra="forbid")

    summary: str = Field(description="Third person, 1-2 sentences, at most 280 characters.")
    type: MemoryType = MemoryType.SEMANTIC
    category: str = "Other"
    importance: int = Field(3, ge=1, le=5)
    key: str | None = Field(None, description="Deterministic slot key such as profile:residence:city")
    tags: list[str] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)
    pinned: bool = False

    def __repr_args__(self) -> list[tuple[str, Any]]:
        return brief(
            summary=cut(self.summary),
            type=self.type,
            category=self.category,
            key=self.key,
            pinned=self.pinned or None,
        )


class Proposed(Candidate):
    """A candidate as the hot path hands it back: with the id of the memory it proposes. Until it is
    decided, ``Memory.get`` reads that id as a provisional memory; then as the memory it became (its own
    id when created) or the one it merged into or corroborated."""

    memory_id: str


class Extraction(BaseModel):
    model_config = ConfigDict(extra="forbid")

    should_create: bool
    candidates: list[Candidate] = Field(default_factory=list, max_length=MAX_CANDIDATES)
    reason: str | None = None


class SameFact(BaseModel):
    model_config = ConfigDict(extra="forbid")

    same_fact: bool
    reason: str | None = None


Relation = Literal["contradiction", "refinement", "redundancy", "new", "unsure"]


class ConflictVerdict(BaseModel):
    """How a new fact relates to a stored one: contradiction, refinement, redundancy, new or unsure."""

    model_config = ConfigDict(extra="forbid")

    relation: Relation
    reason: str | None = None


class Judgement(BaseModel):
    """One stored memory judged against the candidate by a model: the reasoning comes before the verdict."""

    model_config = ConfigDict(extra="forbid")

    index: int
    reasoning: str
    relation: Literal["contradiction", "refinement", "redundancy", "new"]


class Judgements(BaseModel):
    model_config = ConfigDict(extra="forbid")

    judgements: list[Judgement]


class InsightProposal(BaseModel):
    """One theory-of-mind insight a model inferred: third person, at most 280 characters."""

    model_config = ConfigDict(extra="forbid")

    summary: str
    tags: list[str] = Field(default_factory=list, max_length=5)
    importance: int = Field(2, ge=1, le=5)


class Insights(BaseModel):
    model_config = ConfigDict(extra="forbid")

    insights: list[InsightProposal] = Field(default_factory=list, max_length=3)


Outcome = Literal["decision", "tool_result", "next_step", "milestone", "recap", "none"]


class Episode(BaseModel):
    """What a finished turn amounts to as an episode: the topic discussed and the approach
    taken (decided, done, or next), or ``should_create`` false for a routine turn."""

    model_config = ConfigDict(extra="forbid")

    should_create: bool
    topic: str = Field("", description="What was discussed, as a short noun phrase (at most 80 characters).")
    approach: str = Field(
        "", description="Past tense, 1-2 sentences: what was decided, done or set as next step."
    )
    outcome: Outcome = "none"
    category: str = "Other"
    importance: int = Field(2, ge=1, le=5)
    tags: list[str] = Field(default_factory=list, max_length=5)
    reason: str | None = None
