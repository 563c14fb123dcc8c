"""Turns decided out of order (issue 30, item 6f), SQLite and PostgreSQL, with the offline rules: a turn
observed before the current memory but decided after it (a queue under concurrency, a late import) is
kept as that memory's earlier version, superseded from when the current one was observed, instead of
being dropped by the flip-flop rule; the current fact stays current."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from memlane import Memory
from memlane.model.config import Settings
from memlane.model.enums import HistoryEvent, MemoryState
from tests.formation_helpers import local_embedder

U = "maya"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
LATER = T0 + timedelta(days=30)


@pytest.fixture
def mem(location: str) -> Iterator[Memory]:
    # a change of city waits for the user's consent by default (docs/consent.md); here it applies at once
    settings = Settings(db=location, worker=False, memory_consent_fields=[], memory_consent_benign_fields=[])
    with Memory(location, embedder=local_embedder(), llm="rules", settings=settings) as m:
        yield m


def test_an_earlier_turn_decided_late_becomes_history_not_a_loss(mem: Memory) -> None:
    mem.add("I live in Porto now.", user_id=U, at=LATER, wait=True)
    mem.add("I live in Lisbon.", user_id=U, at=T0, wait=True)  # said a month before, decided after

    [current] = mem.list(user_id=U)
    assert (current.summary, current.valid_from, current.valid_to) == ("User lives in Porto.", LATER, None)
    assert [h.event for h in mem.history(current.id, user_id=U)] == [HistoryEvent.ADD]
    [earlier] = [r for r in mem.list(user_id=U, include_inactive=True) if r.id != current.id]
    assert (earlier.summary, earlier.state, earlier.superseded_by) == (
        "User lives in Lisbon.",
        MemoryState.SUPERSEDED,
        current.id,
    )
    assert (earlier.valid_from, earlier.valid_to) == (T0, LATER)
    found = mem.search("where does the user live?", user_id=U)
    assert [h.memory.summary for h in found] == ["User lives in Porto."]  # history is not retrieved


def test_in_order_the_same_turns_supersede_as_before(mem: Memory) -> None:
    mem.add("I live in Lisbon.", user_id=U, at=T0, wait=True)
    mem.add("I live in Porto now.", user_id=U, at=LATER, wait=True)
    everything = {r.summary: r for r in mem.list(user_id=U, include_inactive=True)}
    assert everything["User lives in Porto."].state is MemoryState.ACTIVE
    old = everything["User lives in Lisbon."]
    assert (old.state, old.superseded_by, old.valid_to) == (
        MemoryState.SUPERSEDED,
        everything["User lives in Porto."].id,
        LATER,
    )
