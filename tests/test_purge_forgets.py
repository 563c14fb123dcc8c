"""A purge forgets: no table, export or API response of either backend keeps the purged text."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest

from memlane import Memory
from memlane.model.enums import HistoryEvent, MemoryState
from memlane.model.errors import NotFoundError
from memlane.model.ids import new_id
from memlane.model.jobs import Job, JobStatus
from memlane.storage.base import WriteBatch
from tests.write_helpers import BACKENDS, engine, tables_holding

TOKEN = "Quixotl"  # a word no other memory holds
U = "ana"


@pytest.fixture(params=BACKENDS)
def mem(request: pytest.FixtureRequest, tmp_path: os.PathLike[str]) -> Iterator[Memory]:
    yield from engine(request, tmp_path)


def remember_the_token(mem: Memory) -> None:
    """The token in a keyed memory (updated), a formed one, a superseded keyed fact, and a parked job."""
    mem.put("User likes tea.", user_id=U, thread_id="t1")
    rec = mem.put(f"User's locker code is {TOKEN} 4417.", user_id=U, key="profile:locker:code", thread_id="t1",
                  tags=[TOKEN.lower()], entities=[TOKEN], metadata={"note": TOKEN})
    mem.update(rec.id, user_id=U, summary=f"User's locker code is {TOKEN} 4418.")
    mem.add(f"My dog is called {TOKEN}.", user_id=U, thread_id="t1", wait=True)
    for n in (1, 2):  # a keyed fact corrected: the old version moves to an archive id, superseded
        mem.add_facts([{"summary": f"User's bike lock code is {TOKEN}-{n}.", "key": "profile:bike:code",
                        "category": "Personal"}], user_id=U, thread_id="t1", wait=True)
    parked = Job(id=new_id(), user_id=U, kind="candidate", status=JobStatus.PARKED,
                 payload={"candidate": {"summary": f"User's locker code is {TOKEN} 4418."}})
    mem.backend.apply(WriteBatch(jobs=[parked]))


def purge_the_token(mem: Memory) -> list[str]:
    active = [r for r in mem.list(user_id=U) if TOKEN.lower() in r.summary.lower()]
    assert len(active) == 3  # locker, dog, bike (its old version is superseded, not active)
    for r in active:
        mem.purge(r.id, user_id=U, reason="user asked")
    return [r.id for r in active]


def test_purge_leaves_no_copy_of_the_text_in_any_table_or_api(mem: Memory) -> None:
    remember_the_token(mem)
    assert tables_holding(mem.backend, TOKEN)  # the probe finds it before
    ids = purge_the_token(mem)
    assert tables_holding(mem.backend, TOKEN) == []
    everything = mem.list(user_id=U, include_inactive=True)
    assert [r.summary for r in everything if TOKEN.lower() in r.model_dump_json().lower()] == []
    assert {r.state for r in everything if r.summary == "[purged]"} == {MemoryState.PURGED}
    assert len([r for r in everything if r.state is MemoryState.PURGED]) == 4  # with the bike's old version
    assert all(r.key is None and not r.tags and not r.metadata for r in everything if r.state is MemoryState.PURGED)
    assert mem.backend.vectors(U, [r.id for r in everything if r.state is MemoryState.PURGED]) == {}
    assert [h.memory.summary for h in mem.search(f"locker code {TOKEN}", user_id=U, include_inactive=True)
            if TOKEN.lower() in h.memory.summary.lower()] == []
    assert TOKEN.lower() not in json.dumps(list(mem.export_user(U)), default=str).lower()
    for mid in ids:
        hist = mem.history(mid, user_id=U)
        assert hist[-1].event is HistoryEvent.PURGE and hist[-1].actor == "api" and hist[-1].reason == "user asked"
        assert all(h.old_value is None and h.new_value is None for h in hist)
        assert TOKEN.lower() not in json.dumps([h.model_dump(mode="json") for h in hist]).lower()
    block = mem.context("locker code", user_id=U, thread_id="t1", since_rev=0)
    assert TOKEN.lower() not in block.text.lower() and "restored" not in block.text
    changes = mem.backend.changes_after(U, 0, limit=1000)
    assert TOKEN.lower() not in json.dumps([c.model_dump(mode="json") for c in changes]).lower()
    assert [c.event for c in changes].count("purged") == 4
    jobs = mem.jobs(user_id=U, limit=1000)
    assert TOKEN.lower() not in json.dumps([j.model_dump(mode="json") for j in jobs]).lower()


def test_purge_is_scoped_to_the_user(mem: Memory) -> None:
    mine = mem.put(f"User's code is {TOKEN}.", user_id=U)
    theirs = mem.put(f"User's code is {TOKEN}.", user_id="bo")
    with pytest.raises(NotFoundError):
        mem.purge(theirs.id, user_id=U)
    mem.purge(mine.id, user_id=U)
    assert mem.get(theirs.id, user_id="bo").summary == f"User's code is {TOKEN}."
    assert [h.event for h in mem.history(theirs.id, user_id="bo")] == [HistoryEvent.ADD]
    assert mem.history(theirs.id, user_id="bo")[0].new_value is not None


def test_delete_user_leaves_nothing_of_the_user(mem: Memory) -> None:
    remember_the_token(mem)
    mem.put("User's neighbour likes tea.", user_id="bo")
    assert mem.delete_user(U) > 0
    assert tables_holding(mem.backend, TOKEN) == []
    assert mem.list(user_id=U, include_inactive=True) == [] and mem.backend.changes_after(U, 0) == []
    assert mem.jobs(user_id=U) == [] and mem.list(user_id="bo")
