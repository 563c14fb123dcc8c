"""The first hour of the REST and Python API, as a new user tries it: ready facts with ``wait`` say what
was decided (a real server on loopback, over SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest

from memlane import AsyncMemory, Memory
from memlane.model.config import Settings
from memlane.model.errors import NotFoundError
from memlane.providers.embed.hash import HashEmbedder
from tests.scripted_chat_server import Reply, ScriptedChatServer, openai_llm
from tests.scripted_upstream import running_memlane


@pytest.fixture
def mem(location: str) -> Iterator[Memory]:
    m = Memory(location, embedder=HashEmbedder(64), settings=Settings(db=location))
    yield m
    m.close()


@pytest.fixture
def maya(mem: Memory) -> Iterator[httpx.Client]:
    with (
        running_memlane(mem) as base,
        httpx.Client(base_url=base, headers={"X-Memlane-User": "maya"}, timeout=30) as c,
    ):
        yield c


def stored_ids(client: httpx.Client) -> dict[str, str]:
    return {m["summary"]: m["id"] for m in client.get("/v1/memory").json()["memories"]}


def test_facts_with_wait_answer_the_decisions_taken(maya: httpx.Client) -> None:
    first = maya.post(
        "/v1/memory/facts",
        json={
            "wait": True,
            "facts": [
                {"summary": "User prefers aisle seats."},
                {"summary": "User is vegetarian.", "category": "Health"},
            ],
        },
    )
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["waited"] is True and body["pending"] is False
    ids = stored_ids(maya)
    assert [(d["action"], d["summary"], d["memory_id"]) for d in body["decisions"]] == [
        ("create", "User prefers aisle seats.", ids["User prefers aisle seats."]),
        ("create", "User is vegetarian.", ids["User is vegetarian."]),
    ]
    again = maya.post(
        "/v1/memory/facts", json={"facts": [{"summary": "User prefers aisle seats."}], "wait": True}
    )
    assert again.status_code == 200, again.text
    assert [(d["action"], d["memory_id"]) for d in again.json()["decisions"]] == [
        ("merge", ids["User prefers aisle seats."])
    ]
    assert stored_ids(maya) == ids


def test_facts_without_wait_promise_no_decisions(maya: httpx.Client) -> None:
    r = maya.post("/v1/memory/facts", json={"facts": [{"summary": "User plays the cello."}]})
    assert r.status_code == 202, r.text
    assert r.json()["waited"] is False and r.json()["decisions"] == []


def test_python_outcomes_of_facts(mem: Memory) -> None:
    jobs, cands = mem.add_fact_jobs(
        [{"summary": "User prefers aisle seats."}, {"summary": "User runs marathons."}],
        user_id="maya",
        wait=True,
    )
    assert [c.summary for c in cands] == ["User prefers aisle seats.", "User runs marathons."]
    ids = {r.summary: r.id for r in mem.list(user_id="maya")}
    outcomes = mem.jobs.outcomes(jobs, user_id="maya")
    assert [(o.action, o.memory_id) for o in outcomes] == [
        ("create", ids["User prefers aisle seats."]),
        ("create", ids["User runs marathons."]),
    ]
    assert mem.jobs.outcomes(jobs[1], user_id="maya") == outcomes[1:]
    with pytest.raises(NotFoundError, match="no turn or fact job"):
        mem.jobs.outcomes(jobs, user_id="lena")  # another user's jobs are not found, never shown
    turn_id, _ = mem.add_turn("I live in Lisbon.", user_id="maya", wait=True)
    assert [o.action for o in mem.jobs.outcomes(turn_id, user_id="maya")] == ["create"]


def test_async_outcomes_of_facts(mem: Memory) -> None:
    amem = AsyncMemory(memory=mem)

    async def facts() -> list[str]:
        jobs, _ = await amem.add_fact_jobs([{"summary": "User keeps bees."}], user_id="maya", wait=True)
        return [o.action for o in await amem.jobs.outcomes(jobs, user_id="maya")]

    assert asyncio.run(facts()) == ["create"]


def test_facts_waited_for_while_the_llm_is_down_say_pending(
    location: str, server: ScriptedChatServer
) -> None:
    """The decision needs the model (a stored neighbour to judge against) and the model answers 503: the
    answer is 202 pending, each fact's decision its job's status, and nothing is written until it recovers."""
    server.otherwise = lambda _: Reply(None, 503)
    settings = Settings(db=location, worker=False, wait_timeout_s=5)
    with Memory(location, embedder=HashEmbedder(64), llm=openai_llm(server), settings=settings) as m:
        kept = m.put("User plays the cello in an orchestra.", user_id="maya")
        with running_memlane(m) as base:
            r = httpx.post(
                f"{base}/v1/memory/facts",
                headers={"X-Memlane-User": "maya"},
                timeout=30,
                json={"facts": [{"summary": "User plays the cello in a string quartet."}], "wait": True},
            )
        assert r.status_code == 202, r.text
        body = r.json()
        assert body["pending"] is True and body["reason"]["code"] == "llm_unavailable", body
        assert [(d["action"], d["memory_id"]) for d in body["decisions"]] == [("pending", None)]
        assert server.requests, "the decision asked the model"
        assert [rec.id for rec in m.list(user_id="maya")] == [kept.id]
