"""A candidate is readable at once (seed 000): the hot path hands back the id of the memory it proposes,
``memory.candidate`` carries it, and ``get`` reads it as a provisional memory until the worker decides,
then as the memory it became: the same id when created or when it supersedes, the stored memory when it
merges into one or repeats it. Over HTTP too, on a real server.

Real parts: SQLite files, the bundled local embedder, uvicorn on loopback. The LLM is a
:class:`ScriptedLLM` at the provider boundary; no background worker runs, so the test decides when the
decisions happen (``process_jobs``)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from memlane import Memory
from memlane.model.enums import MemoryState
from memlane.model.errors import NotFoundError
from tests.formation_helpers import EventLog, ScriptedLLM, open_memory
from tests.scripted_upstream import running_memlane

U = "ines"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
LISBON = "User lives in Lisbon."


@pytest.fixture
def llm() -> ScriptedLLM:
    return ScriptedLLM()


@pytest.fixture
def mem(tmp_path: Path, llm: ScriptedLLM) -> Iterator[Memory]:
    with open_memory(str(tmp_path / "m.db"), llm, worker=False) as m:
        yield m


def test_a_candidate_reads_at_once_as_provisional_and_keeps_its_id_when_created(
    mem: Memory, llm: ScriptedLLM
) -> None:
    log = EventLog(mem)
    llm.will_extract({"summary": LISBON, "category": "Personal", "importance": 4})
    (cand,) = mem.add("I live in Lisbon", user_id=U, at=T0)
    (event,) = log.of("memory.candidate")
    assert event.memory_id == cand.memory_id == event.data["id"]

    early = mem.get(cand.memory_id, user_id=U)
    assert (early.id, early.state, early.summary) == (cand.memory_id, MemoryState.PROVISIONAL, LISBON)
    assert early.importance == 4 and early.created_at == T0
    assert mem.list(user_id=U) == []  # nothing provisional is stored or listed
    with pytest.raises(NotFoundError):
        mem.get(cand.memory_id, user_id="someone-else")

    mem.process_jobs()
    (stored,) = mem.list(user_id=U)
    assert stored.id == cand.memory_id
    assert mem.get(cand.memory_id, user_id=U).state is MemoryState.ACTIVE


def test_a_repeated_or_merged_candidate_reads_as_the_memory_it_joined(mem: Memory, llm: ScriptedLLM) -> None:
    (first,) = mem.add_facts([{"summary": LISBON, "category": "Personal"}], user_id=U, at=T0, wait=True)
    again = "User lives in Lisbon, Portugal."
    llm.same_fact_answer(LISBON, again, True)
    (repeat, paraphrase) = mem.add_facts(
        [{"summary": LISBON, "category": "Personal"}, {"summary": again, "category": "Personal"}],
        user_id=U,
        at=T0,
    )
    mem.process_jobs()
    outcomes = {
        o.job_id: o.action for o in mem.jobs.outcomes([repeat.memory_id, paraphrase.memory_id], user_id=U)
    }
    assert outcomes[repeat.memory_id] in {"ignore", "merge"} and outcomes[paraphrase.memory_id] == "merge"
    assert [m.id for m in mem.list(user_id=U)] == [first.memory_id]
    for proposed in (repeat, paraphrase):
        assert mem.get(proposed.memory_id, user_id=U).id == first.memory_id
    assert paraphrase.memory_id in mem.get(first.memory_id, user_id=U).merged_from


def test_a_correction_keeps_its_id_and_the_old_fact_points_to_it(mem: Memory, llm: ScriptedLLM) -> None:
    (old,) = mem.add_facts([{"summary": LISBON, "category": "Personal"}], user_id=U, at=T0, wait=True)
    madrid = "User lives in Madrid now."
    llm.relation(LISBON, madrid, "contradiction")
    (new,) = mem.add_facts(
        [{"summary": madrid, "category": "Personal"}], user_id=U, at=T0 + timedelta(days=30)
    )
    assert mem.get(new.memory_id, user_id=U).state is MemoryState.PROVISIONAL
    assert mem.get(old.memory_id, user_id=U).state is MemoryState.ACTIVE  # not decided yet
    mem.process_jobs()
    assert mem.get(new.memory_id, user_id=U).summary == madrid
    closed = mem.get(old.memory_id, user_id=U)
    assert (closed.state, closed.superseded_by) == (MemoryState.SUPERSEDED, new.memory_id)


def test_a_purged_memory_or_a_deleted_user_does_not_come_back_through_a_candidate(mem: Memory) -> None:
    (fact,) = mem.add_facts([{"summary": LISBON, "category": "Personal"}], user_id=U, at=T0, wait=True)
    mem.purge(fact.memory_id, user_id=U)
    assert LISBON not in mem.get(fact.memory_id, user_id=U).summary
    (pending,) = mem.add_facts([{"summary": "User plays the cello.", "category": "Hobbies"}], user_id=U)
    assert mem.get(pending.memory_id, user_id=U).state is MemoryState.PROVISIONAL
    mem.delete_user(U)
    for gone in (fact, pending):
        with pytest.raises(NotFoundError):
            mem.get(gone.memory_id, user_id=U)


def test_over_http_the_turn_hands_back_ids_that_read_at_once(mem: Memory, llm: ScriptedLLM) -> None:
    llm.will_extract({"summary": LISBON, "category": "Personal"})
    headers = {"X-Memlane-User": U}
    with running_memlane(mem, worker=False) as url, httpx.Client(base_url=url, timeout=60) as http:
        r = http.post("/v1/memory/turns", headers=headers, json={"messages": "I live in Lisbon"})
        assert r.status_code == 202, r.text
        (cand,) = r.json()["candidates"]
        early = http.get(f"/v1/memory/{cand['memory_id']}", headers=headers)
        assert early.status_code == 200, early.text
        assert (early.json()["state"], early.json()["summary"]) == ("provisional", LISBON)
        mem.process_jobs()
        late = http.get(f"/v1/memory/{cand['memory_id']}", headers=headers).json()
        assert (late["id"], late["state"]) == (cand["memory_id"], "active")
        other = http.get(f"/v1/memory/{cand['memory_id']}", headers={"X-Memlane-User": "someone-else"})
        assert other.status_code == 404
