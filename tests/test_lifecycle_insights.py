"""Theory-of-mind insights (seed 001 §3): a background task with a controllable clock, on SQLite and
PostgreSQL with the bundled embedder. The model is a ScriptedLLM at the provider boundary (what a real
model would infer is not tested); the openai client's request is checked against a scripted server."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memlane import Memory
from memlane.model.config import Settings
from memlane.model.enums import HistoryEvent, MemoryType, Source
from memlane.model.errors import ValidationError
from tests.formation_helpers import ScriptedLLM, local_embedder, open_memory
from tests.scripted_chat_server import ScriptedChatServer, openai_llm

U = "maya"
T0 = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
TRUST = "User shows more trust in suggestions after seeing them explained step by step."


@pytest.fixture
def llm() -> ScriptedLLM:
    return ScriptedLLM()


@pytest.fixture
def mem(location: str, llm: ScriptedLLM) -> Iterator[Memory]:
    m = open_memory(location, llm, worker=False, memlane_schedule={"insights": 24})
    yield m
    m.close()


def facts(mem: Memory, *summaries: str, at: datetime = T0, type: str = "semantic") -> None:
    for n, s in enumerate(summaries):
        mem.put(s, user_id=U, type=type, at=at + timedelta(minutes=n))


def insights_of(mem: Memory) -> list[str]:
    return [r.summary for r in mem.list(user_id=U, filters={"type": "insight"})]


def test_an_insight_is_stored_from_recent_events_and_new_facts(mem: Memory, llm: ScriptedLLM) -> None:
    facts(
        mem,
        "User asked for the reasoning behind each budget suggestion.",
        "User is a nurse.",
        "User lives in Porto.",
        "User started a savings plan.",
        at=T0,
    )
    facts(
        mem, *(f"User reviewed budget item {n} with the assistant." for n in range(6)), at=T0, type="episodic"
    )
    llm.will_infer({"summary": TRUST, "tags": ["Trust", "style"]})
    report = mem.run_insights(
        user_id=U, snippet="...and that explanation helped, thanks!", at=T0 + timedelta(hours=1)
    )
    [(activity, new_facts, snippet)] = llm.asked("insights")
    assert len(activity) == 5 and "budget item 5" in activity[0]  # the newest five events
    assert new_facts == (
        "User started a savings plan.",
        "User lives in Porto.",
        "User is a nurse.",
    )  # newest three
    assert snippet == "...and that explanation helped, thanks!"
    [rec] = mem.list(user_id=U, filters={"type": "insight"})
    assert report["created"] == [rec.id] and report["dropped"] == 0
    assert (rec.type, rec.category, rec.importance, rec.pinned, rec.source) == (
        MemoryType.INSIGHT,
        "Relationship_Dynamic",
        2,
        False,
        Source.SYSTEM,
    )
    assert rec.summary == TRUST and rec.tags == ["trust", "style"]
    [added] = mem.history(rec.id, user_id=U)
    assert added.event is HistoryEvent.ADD and added.actor == "system:insights"


def test_nothing_new_or_an_insight_in_the_last_24_hours_means_no_model_call(
    mem: Memory, llm: ScriptedLLM
) -> None:
    assert mem.run_insights(user_id=U, at=T0)["skipped"] == "no new semantic memories"
    facts(mem, "User prefers short answers.", at=T0)
    llm.will_infer(TRUST).will_infer("User grows more confident about money decisions over time.")
    assert mem.run_insights(user_id=U, at=T0 + timedelta(hours=1))["created"]
    facts(mem, "User opened a second savings account.", at=T0 + timedelta(hours=2))
    assert (
        mem.run_insights(user_id=U, at=T0 + timedelta(hours=20))["skipped"]
        == "an insight was made in the last 24 h"
    )
    assert len(llm.asked("insights")) == 1
    later = mem.run_insights(user_id=U, at=T0 + timedelta(hours=26))
    assert len(later["created"]) == 1 and len(llm.asked("insights")) == 2
    assert llm.asked("insights")[1][1] == ("User opened a second savings account.",)  # only what is new since
    assert mem.run_insights(user_id=U, at=T0 + timedelta(hours=60))["skipped"] == "no new semantic memories"


def test_insights_that_break_the_writing_rules_or_repeat_one_are_not_stored(
    mem: Memory, llm: ScriptedLLM
) -> None:
    facts(mem, "User prefers short answers.", at=T0)
    llm.will_infer(TRUST)
    mem.run_insights(user_id=U, at=T0)
    facts(mem, "User asked for sources twice.", at=T0 + timedelta(days=2))
    llm.will_infer(
        "I think the user trusts me more now.",
        "You should explain more.",
        "User " + "really " * 60 + "likes detail.",
    )
    assert mem.run_insights(user_id=U, at=T0 + timedelta(days=2, hours=1))["dropped"] == 3
    facts(mem, "User asked for sources again.", at=T0 + timedelta(days=4))
    llm.will_infer("User shows more trust in suggestions once they are explained step by step.")
    report = mem.run_insights(user_id=U, at=T0 + timedelta(days=4, hours=1))
    assert report["repeats"] == 1 and report["created"] == []
    assert insights_of(mem) == [TRUST]


def test_the_daily_task_runs_insights_per_user_and_the_offline_rules_infer_none(tmp_path: Path) -> None:
    location = str(tmp_path / "r.db")
    with Memory(
        location,
        embedder=local_embedder(),
        llm="rules",
        settings=Settings(db=location, worker=False, memlane_schedule={"insights": 24}),
    ) as mem:
        facts(mem, "User prefers short answers.", at=T0)
        assert mem.run_tasks(at=T0 + timedelta(hours=1)) == 0  # schedules the user's first run within a day
        assert mem.run_tasks(at=T0 + timedelta(days=1, hours=1)) == 1
        [job] = [
            j for j in mem.jobs.list(user_id=U) if j.kind == "task.insights" and j.status.value == "done"
        ]
        assert job.payload["created"] == [] and job.payload["proposed"] == 0
        assert insights_of(mem) == []


def test_insights_rank_below_a_fact_that_matches_as_well(mem: Memory) -> None:
    fact = mem.put(TRUST, user_id=U, at=T0)
    insight = mem.put(TRUST, user_id=U, type="insight", category="relationship_dynamic", at=T0)
    hits = {h.memory.id: h for h in mem.search("does maya trust explained suggestions?", user_id=U, at=T0)}
    assert hits[fact.id].breakdown.type_weight == 1.0 and hits[insight.id].breakdown.type_weight == 0.5
    assert hits[insight.id].score == pytest.approx(hits[fact.id].score * 0.5, rel=1e-6)


def test_the_hot_path_never_infers(mem: Memory, llm: ScriptedLLM) -> None:
    llm.will_extract("User prefers short answers.")
    mem.add("I prefer short answers", user_id=U, at=T0, wait=True)
    assert llm.asked("insights") == [] and insights_of(mem) == []


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"user_id": ""}, "user_id"),
        ({"user_id": U, "snippet": 3}, "snippet"),
        ({"user_id": U, "at": "yesterday"}, "at"),
    ],
)
def test_bad_input_is_refused(mem: Memory, kwargs: dict[str, object], fragment: str) -> None:
    with pytest.raises(ValidationError, match=fragment):
        mem.run_insights(**kwargs)  # type: ignore[arg-type]


def test_openai_insights_request_and_reply(server: ScriptedChatServer) -> None:
    server.reply({"insights": [{"summary": TRUST, "tags": ["trust"], "importance": 2}]})
    reply = openai_llm(server).insights(["User reviewed the budget."], ["User is a nurse."], "x" * 1500)
    assert [i.summary for i in reply.insights] == [TRUST]
    [request] = server.requests
    assert request["json"]["response_format"]["json_schema"]["name"] == "Insights"
    assert request["json"]["temperature"] == 0
    user = request["json"]["messages"][1]["content"]
    assert "- User reviewed the budget." in user and "- User is a nurse." in user and "x" * 1001 not in user
