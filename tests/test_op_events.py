"""Operational tracking (seed 001 §14): op events from the hot path, formation decisions, the context
node and the periodic tasks, counted per day, node, op and status; on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from typer.testing import CliRunner

from memlane import Memory
from memlane.model.errors import ValidationError
from tests.formation_helpers import ScriptedLLM, open_memory

U, OTHER = "maya", "lena"
T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def mem(location: str) -> Iterator[Memory]:
    m = open_memory(location, ScriptedLLM(), worker=False, memlane_schedule={"ttl": 24})
    yield m
    m.close()


def counts(mem: Memory, **kw: object) -> dict[tuple[str, str, str], int]:
    out: dict[tuple[str, str, str], int] = {}
    for row in mem.op_counts(**kw):  # type: ignore[arg-type]
        out[(row.node, row.op, row.status)] = out.get((row.node, row.op, row.status), 0) + row.count
    return out


def test_the_context_node_records_its_search_with_the_best_similarity(mem: Memory) -> None:
    mem.context("what do I like?", user_id=U, at=T0)  # nothing stored yet
    mem.put("User likes green tea.", user_id=U, at=T0)
    mem.context("what tea does maya like?", user_id=U, thread_id="t1", at=T0 + timedelta(minutes=1))
    ops = [e for e in mem.backend.changes.op_events(U) if e.node == "context"]
    assert [(e.op, e.status, e.thread_id) for e in ops] == [
        ("search", "ok", "t1"),
        ("search", "skipped", None),
    ]
    assert ops[0].sim is not None and ops[0].sim > 0.3 and ops[1].sim is None
    assert counts(mem, since=T0, until=T0 + timedelta(hours=1))[("context", "search", "ok")] == 1


def test_formation_and_task_runs_are_counted_per_node_and_day(mem: Memory) -> None:
    llm = mem.formation.llm
    assert isinstance(llm, ScriptedLLM)
    llm.will_extract({"summary": "User is learning Portuguese.", "importance": 1})
    mem.add("I'm learning Portuguese", user_id=U, at=T0, wait=True)
    mem.add("hello there", user_id=OTHER, at=T0, wait=True)  # nothing to remember
    mem.run_tasks(at=T0 + timedelta(days=61))  # schedules the first TTL runs
    mem.run_tasks(at=T0 + timedelta(days=62))  # unread for 60 days and unimportant: soft deleted
    day1 = counts(mem, since=T0, until=T0 + timedelta(days=1), user_id=U)
    assert day1 == {
        ("hotpath", "classify", "ok"): 1,
        ("worker", "search", "ok"): 1,
        ("worker", "create", "ok"): 1,
    }
    assert (
        counts(mem, since=T0, until=T0 + timedelta(days=1))[("hotpath", "classify", "skipped")] == 1
    )  # lena's
    later = counts(mem, since=T0 + timedelta(days=2), until=T0 + timedelta(days=63))
    assert later == {("worker", "ttl", "ok"): 2}  # the run and its change (lena has no memories: no run)
    days = {r.day for r in mem.op_counts(since=T0, until=T0 + timedelta(days=63))}
    assert days == {"2026-06-01", "2026-08-02"}


def test_bad_windows_and_users_are_refused(mem: Memory) -> None:
    with pytest.raises(ValidationError, match="since"):
        mem.op_counts(since=T0, until=T0 - timedelta(days=1))
    with pytest.raises(ValidationError, match="user_id"):
        mem.op_counts(user_id="")
    with pytest.raises(ValidationError, match="until"):
        mem.op_counts(until="soon")


def test_cli_ops_prints_counts(location: str) -> None:
    from memlane.cli.app import app

    with open_memory(location, ScriptedLLM(), worker=False) as m:
        m.put("User likes green tea.", user_id=U, at=T0)
        m.context("tea?", user_id=U, at=T0)
    args = ["ops", "--db", location, "--embedder", "local", "--since", "2026-06-01", "--until", "2026-06-02"]
    out = CliRunner().invoke(app, [*args, "--json"], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout) == [
        {"day": "2026-06-01", "node": "context", "op": "search", "status": "ok", "count": 1}
    ]
    table = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert table.exit_code == 0 and "1 op event(s)" in table.stdout and "context" in table.stdout
    bad = CliRunner().invoke(app, ["ops", "--db", location, "--embedder", "local", "--since", "tomorrow"])
    assert bad.exit_code != 0 and "since" in bad.output
