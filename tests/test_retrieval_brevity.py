"""Brevity: a short message read with its context loses part of its score; other memories do not."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from memlane.model.config import Settings
from memlane.model.record import MemoryRecord
from memlane.retrieval.brevity import brevity_penalty, own_words
from memlane.retrieval.rerank import composite

NOW = datetime(2024, 1, 1, tzinfo=UTC)


def rec(summary: str, **extra: Any) -> MemoryRecord:
    return MemoryRecord(id="m", user_id="u", summary=summary, updated_at=NOW, **extra)


def test_own_words_leave_out_the_speaker_prefix() -> None:
    assert own_words(rec("Ann: Wow, that is great!", actor_id="Ann")) == 4
    assert own_words(rec("Ann: Wow", actor_id="Bob")) == 2


def test_short_message_with_context_loses_up_to_the_weight() -> None:
    settings = Settings(memory_brevity_weight=0.2, memory_brevity_words=10)
    short = rec("Bob: Wow!", actor_id="Bob", metadata={"context": "Ann: I sold my first vase."})
    assert brevity_penalty(short, settings) == pytest.approx(0.2 * 0.9)
    long = rec(" ".join(["word"] * 12), metadata={"context": "Ann: hi"})
    assert brevity_penalty(long, settings) == 0.0


def test_memories_without_context_keep_their_score() -> None:
    settings = Settings(memory_brevity_weight=0.2, memory_brevity_words=10)
    assert brevity_penalty(rec("Lives in Paris"), settings) == 0.0
    assert brevity_penalty(rec("Ok", metadata={"context": "  "}), settings) == 0.0
    off = Settings(memory_brevity_weight=0.0)
    assert brevity_penalty(rec("Ok", metadata={"context": "Ann: hi"}), off) == 0.0


def test_composite_subtracts_brevity() -> None:
    plain = composite(rec("x"), 0.5, NOW, {})
    short = composite(rec("x"), 0.5, NOW, {}, brevity=0.1)
    assert short.final == pytest.approx(plain.final - 0.1) and short.brevity == 0.1
