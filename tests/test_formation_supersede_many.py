"""A correction closes every stored memory it retires, not just the nearest one; a nearby fact it does not
retire stays, even when the judge calls it contradicted."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlane import Memory, MemoryState
from memlane.model.enums import HistoryEvent
from memlane.providers.embed import get_embedder


def test_a_negation_supersedes_each_contradicted_memory(tmp_path: Path) -> None:
    mem = Memory(str(tmp_path / "m.db"), embedder=get_embedder("local"), llm="rules")
    mem.add("I love steak.", user_id="ines", at="2026-01-10T19:00:00Z", wait=True)
    mem.add("I eat meat pretty much every day.", user_id="ines", at="2026-01-10T19:01:00Z", wait=True)
    mem.add("I live in Porto.", user_id="ines", at="2026-01-10T19:02:00Z", wait=True)
    mem.add("I don't eat meat anymore.", user_id="ines", at="2026-04-01T12:00:00Z", wait=True)
    active = [r.summary for r in mem.list(user_id="ines")]
    assert any("not eat meat" in s for s in active)
    assert not any("steak" in s or "every day" in s for s in active)
    assert any("Porto" in s for s in active)  # unrelated facts stay
    closed = [r for r in mem.list(user_id="ines", include_inactive=True) if r.state is MemoryState.SUPERSEDED]
    assert len(closed) == 2
    current = next(r for r in mem.list(user_id="ines") if "not eat meat" in r.summary)
    for rec in closed:
        assert rec.superseded_by == current.id and rec.valid_to is not None
        assert any(
            h.event is HistoryEvent.SUPERSEDE and h.reason for h in mem.history(rec.id, user_id="ines")
        )
    mem.close()


@pytest.mark.parametrize("llm", ["rules", "learned"])
def test_a_change_to_one_attribute_leaves_the_nearby_facts(tmp_path: Path, llm: str) -> None:
    """The learned judge calls "arranges the flowers at St Bride's" contradicted by "stepped down as church
    warden" (0.97): the candidate's words retire nothing of it, so only the warden memory is replaced."""
    mem = Memory(str(tmp_path / "m.db"), embedder=get_embedder("local"), llm=llm)
    facts = [
        ("User is church warden at St Bride's.", "2026-01-10T10:00:00Z"),
        ("User arranges the flowers at St Bride's every Saturday.", "2026-01-10T10:01:00Z"),
        ("User stepped down as church warden and is now treasurer at St Bride's.", "2026-03-01T10:00:00Z"),
    ]
    for text, at in facts:
        mem.add_facts([{"summary": text}], user_id="agnes", at=at, wait=True)
    active = sorted(r.summary for r in mem.list(user_id="agnes"))
    assert active == sorted(t for t, _ in facts[1:])
    mem.close()
