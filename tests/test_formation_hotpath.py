"""Formation's hot path (seed 000/002): the turn is a committed job before anything else, candidates come
back at once as events before any decision, the per-turn cap keeps the most important facts and
reports the rest, the hourly cap keeps the rest at the lowest importance, and bad input is refused without leaving a job.

Real parts: the bundled all-MiniLM-L6-v2 embedder, SQLite files. The LLM is a :class:`ScriptedLLM` at
the provider boundary.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memlane import Memory
from memlane.model.config import Settings
from memlane.model.errors import ValidationError
from memlane.model.jobs import JobStatus
from memlane.model.record import MemoryRecord
from tests.formation_helpers import EventLog, ScriptedLLM, open_memory, wait_until

U = "maya"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def llm() -> ScriptedLLM:
    return ScriptedLLM()


@pytest.fixture
def mem(tmp_path: Path, llm: ScriptedLLM) -> Iterator[Memory]:
    with open_memory(str(tmp_path / "m.db"), llm) as m:
        yield m


def all_jobs_done(mem: Memory) -> bool:
    return all(j.status is JobStatus.DONE for j in mem.jobs.list(user_id=U))


def active(mem: Memory) -> list[MemoryRecord]:
    return mem.list(user_id=U)


def test_add_commits_the_turn_first_and_publishes_candidates_before_any_decision(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    llm = ScriptedLLM().will_extract(
        {"summary": "User lives in Lisbon.", "category": "Personal"},
        {"summary": "User plays the violin.", "category": "Hobbies"},
    )
    mem = open_memory(path, llm)
    other = open_memory(path, ScriptedLLM())  # another reader of the same file, as another process would be
    at_extract: list[Any] = []
    at_candidate: list[Any] = []
    llm.on_extract = lambda _msgs: at_extract.append(other.jobs.list(user_id=U))
    log = EventLog(mem)
    mem.events.subscribe(
        lambda e: (
            at_candidate.append((other.jobs.list(user_id=U), other.list(user_id=U)))
            if e.type == "memory.candidate"
            else None
        )
    )
    try:
        cands = mem.add("I live in Lisbon and I play the violin.", user_id=U, thread_id="t1", at=T0)
        assert [c.summary for c in cands] == ["User lives in Lisbon.", "User plays the violin."]

        # the turn was a committed job before extraction began
        [jobs] = at_extract
        assert [(j.kind, j.status) for j in jobs] == [("turn", JobStatus.RUNNING)]
        assert jobs[0].payload["messages"][0]["content"] == "I live in Lisbon and I play the violin."
        # memory.candidate: candidate jobs committed, turn closed, no decision has run yet
        assert len(at_candidate) == 2
        jobs, memories = at_candidate[0]
        assert sorted((j.kind, j.status) for j in jobs) == [
            ("candidate", JobStatus.PENDING),
            ("candidate", JobStatus.PENDING),
            ("turn", JobStatus.DONE),
        ]
        assert memories == []
        assert [e.data["summary"] for e in log.of("memory.candidate")] == [c.summary for c in cands]

        # the background worker forms them
        wait_until(
            lambda: all_jobs_done(other) and len(other.list(user_id=U)) == 2, timeout=30.0, what="the worker"
        )
        kinds = log.kinds()
        assert kinds.count("memory.created") == 2
        assert max(i for i, k in enumerate(kinds) if k == "memory.candidate") < kinds.index("memory.created")
    finally:
        mem.close()
        other.close()


FIVE_FACTS = [
    ("User plays the violin.", 1),
    ("User is allergic to peanuts.", 5),
    ("User lives in Lisbon.", 2),
    ("User's favourite colour is blue.", 4),
    ("User works as a nurse.", 3),
]


def test_every_fact_of_a_turn_is_kept_by_default(mem: Memory, llm: ScriptedLLM) -> None:
    llm.will_extract(*({"summary": s, "importance": i} for s, i in FIVE_FACTS))
    log = EventLog(mem)
    assert Settings().memory_max_writes_per_turn == 5  # as many as an extractor proposes
    cands = mem.add("a long introduction with many facts", user_id=U, at=T0, wait=True)
    assert [c.summary for c in cands] == [s for s, _ in FIVE_FACTS]
    assert sorted(r.summary for r in active(mem)) == sorted(s for s, _ in FIVE_FACTS)
    assert log.of("memory.error") == []


def test_a_hot_path_slower_than_its_lease_leaves_the_turn_to_the_worker_that_took_it_over(
    tmp_path: Path,
) -> None:
    llm = ScriptedLLM().will_extract("User lives in Lisbon.").will_extract("User lives in Lisbon.")
    mem = open_memory(str(tmp_path / "m.db"), llm, worker=False)
    mem.formation.lease_seconds = 0.0  # the hot path's lease has run out by the time it commits
    took_over: list[int] = []

    def worker_takes_over(_msgs: object) -> None:
        llm.on_extract = None
        took_over.append(mem.process_jobs(1))  # claims the turn, extracts and commits its candidate

    llm.on_extract = worker_takes_over
    log = EventLog(mem)
    try:
        assert mem.add("I live in Lisbon", user_id=U, at=T0) == []  # the hot path's own commit is refused
        assert took_over == [1]
        mem.process_jobs()
        candidates = [j for j in mem.jobs.list(user_id=U) if j.kind == "candidate"]
        assert len(candidates) == 1 and all_jobs_done(mem)  # one candidate job, not one per extractor
        assert [r.summary for r in active(mem)] == ["User lives in Lisbon."]
        assert len(log.of("memory.candidate")) == 1 and log.of("memory.error") == []
    finally:
        mem.close()


def test_a_lower_turn_cap_keeps_the_most_important_and_reports_the_rest(tmp_path: Path) -> None:
    llm = ScriptedLLM().will_extract(*({"summary": s, "importance": i} for s, i in FIVE_FACTS))
    with open_memory(str(tmp_path / "m.db"), llm, memory_max_writes_per_turn=3) as mem:
        log = EventLog(mem)
        cands = mem.add("a long message with many facts", user_id=U, at=T0, wait=True)
        kept = ["User is allergic to peanuts.", "User's favourite colour is blue.", "User works as a nurse."]
        assert [c.summary for c in cands] == kept
        assert [e.data["summary"] for e in log.of("memory.candidate")] == kept
        assert sorted(r.summary for r in active(mem)) == sorted(kept)
        [error] = log.of("memory.error")  # not silently lost
        assert error.data["code"] == "turn_cap" and "2 candidate(s)" in error.data["message"]


def test_the_hourly_cap_keeps_extra_candidates_at_the_lowest_importance_with_an_op_event(
    tmp_path: Path,
) -> None:
    llm = ScriptedLLM()
    mem = open_memory(str(tmp_path / "m.db"), llm, memory_write_rate_limit_per_hour=2)
    log = EventLog(mem)
    try:
        llm.will_extract("User plays the violin.", "User lives in Lisbon.", "User works as a nurse.")
        first = mem.add("three facts", user_id=U, at=T0, wait=True)
        assert [c.importance for c in first] == [3, 3, 1]
        llm.will_extract("User's favourite colour is blue.")
        [late] = mem.add("one more fact", user_id=U, at=T0, wait=True)
        assert late.importance == 1

        stored = {r.summary: r.importance for r in mem.list(user_id=U)}
        assert stored == {
            "User plays the violin.": 3,
            "User lives in Lisbon.": 3,
            "User works as a nurse.": 1,
            "User's favourite colour is blue.": 1,
        }
        assert log.of("memory.error") == []  # nothing dropped, so nothing to report as lost
        notes = [e.data.get("note") for e in log.of("memory.candidate")]
        assert notes[:2] == [None, None] and all("MEMORY_WRITE_RATE_LIMIT_PER_HOUR" in n for n in notes[2:])
        limited = [e for e in mem.backend.changes.op_events(U) if e.op == "rate_limit"]
        assert len(limited) == 2 and {e.status for e in limited} == {"ok"}
        assert all_jobs_done(mem)
    finally:
        mem.close()


def test_the_hourly_cap_lowers_the_least_important_candidates(tmp_path: Path) -> None:
    """The most important candidates fill the hourly cap at their own importance; the rest are kept,
    lowered, rather than the first ones in extraction order keeping theirs."""
    llm = ScriptedLLM().will_extract(
        {"summary": "User plays the violin.", "importance": 2},
        {"summary": "User is allergic to peanuts.", "importance": 5},
        {"summary": "User works as a nurse.", "importance": 4},
    )
    mem = open_memory(str(tmp_path / "m.db"), llm, memory_write_rate_limit_per_hour=2)
    try:
        kept = mem.add("three facts", user_id=U, at=T0, wait=True)
        assert [c.importance for c in kept] == [1, 5, 4]
    finally:
        mem.close()


BAD_TURNS: list[tuple[Any, dict[str, Any]]] = [
    ("", {}),
    ("   ", {}),
    ([], {}),
    ([{"role": "user", "content": ""}], {}),
    ([{"role": "user"}], {}),
    ([{"role": "wizard", "content": "hi"}], {}),
    (42, {}),
    ({"role": "user", "content": "I live in Lisbon."}, {}),
    ("I live in Lisbon.", {"user_id": ""}),
    ("I live in Lisbon.", {"user_id": "maya lopez"}),
    ("I live in Lisbon.", {"user_id": None}),
    ("I live in Lisbon.", {"at": "yesterday"}),
    ("I live in Lisbon.", {"at": "2026-13-45"}),
    ("I live in Lisbon.", {"thread_id": ""}),
]


@pytest.mark.parametrize(("messages", "kwargs"), BAD_TURNS)
def test_bad_input_to_add_is_refused_and_leaves_no_job(
    mem: Memory, llm: ScriptedLLM, messages: Any, kwargs: dict[str, Any]
) -> None:
    llm.will_extract("User lives in Lisbon.")
    with pytest.raises(ValidationError):
        mem.add(messages, **{"user_id": U, **kwargs})
    assert mem.jobs.list() == []
    assert llm.calls == []
    assert mem.users() == []
