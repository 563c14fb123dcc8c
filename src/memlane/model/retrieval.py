"""Results of retrieval beyond plain search: the context block and ``memory.query``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from memlane.model.jobs import Change
from memlane.model.record import SearchHit


class ContextBlock(BaseModel):
    """What the assistant is told at a turn: ``text`` is the rendered message."""

    text: str
    semantic: list[SearchHit] = Field(default_factory=list)
    episodic: list[SearchHit] = Field(default_factory=list)
    sessions: list[SearchHit] = Field(default_factory=list)
    delta: list[Change] = Field(default_factory=list)
    rev: int = 0  # the thread's current revision: pass it back as ``since_rev`` next turn
    tokens: int = 0


class QueryResult(BaseModel):
    """``memory.query`` response: bullets (``{id, category, text}``) or full items."""

    agent: str
    items: list[dict[str, Any]] = Field(default_factory=list)
    tokens: int = 0
