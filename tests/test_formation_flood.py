"""A user who floods the chat over ``MEMORY_WRITE_RATE_LIMIT_PER_HOUR``: every statement is stored, those
over the cap at importance 1 with the reason in their history, and what was said before still ranks
first where it answers the question.

Real parts: SQLite file, the bundled all-MiniLM-L6-v2 embedder, the rules LLM.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memlane import Memory
from memlane.formation.hotpath import RATE_LIMITED_IMPORTANCE
from memlane.model.config import Settings
from memlane.providers.embed import get_embedder

U = "maya"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
CAP = 3
ALLERGY = "I'm allergic to peanuts."
FLOOD = [
    "I play the violin.",
    "I live in Lisbon.",
    "I work as a nurse.",
    "My favourite colour is blue.",
    "I have a cat named Miso.",
    "I drink green tea every morning.",
    "My sister is called Ana.",
    "I eat peanut butter toast for breakfast.",
]


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    location = str(tmp_path / "m.db")
    settings = Settings(db=location, memory_write_rate_limit_per_hour=CAP)
    with Memory(location, embedder=get_embedder("local"), llm="rules", settings=settings) as m:
        yield m


def test_a_flood_over_the_hourly_cap_is_stored_at_the_lowest_importance_with_its_reason(mem: Memory) -> None:
    said = [ALLERGY, *FLOOD]
    for i, text in enumerate(said):
        assert mem.add(text, user_id=U, at=T0 + timedelta(minutes=i), wait=True), text  # nothing dropped

    stored = mem.list(user_id=U)
    assert len(stored) == len(said)  # every statement is a memory of its own
    allergy = next(r for r in stored if "peanuts" in r.summary and "allergic" in r.summary)
    assert allergy.importance > RATE_LIMITED_IMPORTANCE
    by_time = sorted(stored, key=lambda r: r.created_at)
    over = by_time[CAP:]
    assert len(over) == len(said) - CAP
    for rec in over:
        assert rec.importance == RATE_LIMITED_IMPORTANCE, rec.summary
        [add] = mem.history(rec.id, user_id=U)
        assert add.reason and "MEMORY_WRITE_RATE_LIMIT_PER_HOUR (3)" in add.reason, add.reason
        assert f"-> {RATE_LIMITED_IMPORTANCE}" in add.reason
    for rec in by_time[:CAP]:
        [add] = mem.history(rec.id, user_id=U)
        assert add.reason and "rate limited" not in add.reason
    limited = [e for e in mem.backend.changes.op_events(U) if e.op == "rate_limit"]
    assert len(limited) == len(over)

    # the flood cannot outrank the earlier, more important memory on a question both touch
    hits = mem.search("what about peanuts should I know for the user's food?", user_id=U, limit=3)
    assert hits[0].memory.id == allergy.id, [h.memory.summary for h in hits]
    flooded = [h for h in hits if h.memory.id in {r.id for r in over}]
    assert flooded and all(h.breakdown.importance == 0 for h in flooded)
