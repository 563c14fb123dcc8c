"""Results of retrieval beyond plain search: the context block and ``memory.query``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from memlane.model.brief import brief, cut
from memlane.model.jobs import Change
from memlane.model.record import MemoryRecord, SearchHit
from memlane.model.session import SessionMessage


class RelatedMemory(BaseModel):
    """A memory shown as a ``related:`` bullet under the block's memory ``to`` (an edge between them)."""

    memory: MemoryRecord
    to: str = Field(description="The id of the memory in the block it is shown under.")
    relation_type: str
    strength: float


class ContextBlock(BaseModel):
    """What the assistant is told at a turn: ``text`` is the rendered message. The hit lists hold
    exactly what ``text`` shows; ``dropped`` counts retrieved items left out to stay within budget."""

    text: str
    semantic: list[SearchHit] = Field(default_factory=list)
    episodic: list[SearchHit] = Field(default_factory=list)
    # memories other users (or the operator) shared with the user: shown apart, each naming its owner
    shared: list[SearchHit] = Field(default_factory=list)
    sessions: list[SearchHit] = Field(default_factory=list)
    messages: list[SessionMessage] = Field(default_factory=list)  # earlier group-chat messages
    # memories linked to a shown one, each an indented bullet under it (retrieval/related.py)
    related: list[RelatedMemory] = Field(default_factory=list)
    delta: list[Change] = Field(default_factory=list)  # the changes shown in the header, newest first
    since_rev: int | None = None
    rev: int = 0  # the thread's current revision: pass it back as ``since_rev`` next turn
    tokens: int = 0  # estimated (memlane.retrieval.tokens), never above the budget
    budget_tokens: int = 0
    dropped: int = 0

    def __repr_args__(self) -> list[tuple[str, Any]]:
        return brief(
            text=cut(self.text),
            tokens=self.tokens,
            budget_tokens=self.budget_tokens,
            rev=self.rev,
            dropped=self.dropped or None,
        )


class QueryResult(BaseModel):
    """``memory.query`` response: bullets (``{id, category, text}``) or full items (summary, metadata,
    score breakdown). ``categories`` are the ones searched (lower case, as in the allowlist YAML)."""

    agent: str
    mode: str = "bullets"
    categories: list[str] = Field(default_factory=list)
    items: list[dict[str, Any]] = Field(default_factory=list)
    tokens: int = 0
    dropped: int = 0  # hits left out to stay within ``budget_tokens``
