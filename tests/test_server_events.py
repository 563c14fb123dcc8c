"""GET /v1/memory/events: memory.* events over SSE, per user, as they happen (seed 000)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from memlane import Memory
from memlane.model.config import Settings
from memlane.providers.embed.hash import HashEmbedder
from tests.scripted_upstream import SseClient, running_memlane

EVENTS = "/v1/memory/events"


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    location = str(tmp_path / "e.db")
    mem = Memory(location, embedder=HashEmbedder(64), settings=Settings(db=location))
    with running_memlane(mem) as base:
        yield base
    mem.close()


def sse(url: str, user: str, query: str = "") -> SseClient:
    """A client whose reader wakes every half second (server heartbeat), so hanging up is quick."""
    sep = "&" if query else "?"
    return SseClient(f"{url}{EVENTS}{query}{sep}heartbeat=0.5", {"X-Memlane-User": user})


def test_candidate_within_300ms_then_decisions_for_that_user_only(url: str) -> None:
    with sse(url, "maya") as maya, sse(url, "lena") as lena, httpx.Client(base_url=url) as c:
        c.post("/v1/memory", json={"summary": "warm-up"}, headers={"X-Memlane-User": "zoe"})  # first request
        sent = time.monotonic()
        r = c.post(
            "/v1/memory/turns",
            json={"messages": "I live in Lisbon and my dog Luna is 3.", "thread_id": "chat-1"},
            headers={"X-Memlane-User": "maya"},
        )
        assert r.status_code == 202
        cand = maya.wait_for("memory.candidate")
        assert cand.received - sent < 0.3, f"candidate after {cand.received - sent:.3f}s"
        assert cand.data["user_id"] == "maya" and cand.data["thread_id"] == "chat-1"
        assert cand.data["data"]["summary"] and cand.id is not None
        created = maya.wait_for("memory.created")
        assert created.data["memory_id"] and created.data["data"]["summary"]
        c.post(
            "/v1/memory/turns",
            json={"messages": "Luna turned 4 last week!"},
            headers={"X-Memlane-User": "maya"},
        )
        changed = maya.wait_for("memory.changed_fact")
        assert "4" in changed.data["data"]["summary"] and changed.data["data"]["old_summary"]
        assert lena.drain(0.3) == []


def test_types_and_thread_filters(url: str) -> None:
    with sse(url, "maya", "?types=memory.created&thread_id=t2") as only, httpx.Client(base_url=url) as c:
        h = {"X-Memlane-User": "maya"}
        c.post(
            "/v1/memory/turns",
            json={"messages": "I live in Lisbon.", "thread_id": "t1", "wait": True},
            headers=h,
        )
        c.post(
            "/v1/memory/turns",
            json={"messages": "I work as a nurse.", "thread_id": "t2", "wait": True},
            headers=h,
        )
        got = only.wait_for("memory.created")
        assert got.data["thread_id"] == "t2"
        assert [e.event for e in only.drain(0.3)] == []


def test_deletes_and_restores_are_events_too(url: str) -> None:
    with sse(url, "maya") as maya, httpx.Client(base_url=url, headers={"X-Memlane-User": "maya"}) as c:
        mid = c.post("/v1/memory", json={"summary": "User likes tea."}).json()["id"]
        c.delete(f"/v1/memory/{mid}")
        assert maya.wait_for("memory.deleted").data["memory_id"] == mid


def test_events_need_a_user_and_valid_filters(url: str) -> None:
    assert httpx.get(f"{url}{EVENTS}").status_code == 400
    bad = httpx.get(f"{url}{EVENTS}?types=memory.bogus", headers={"X-Memlane-User": "maya"})
    assert bad.status_code == 422 and bad.json()["error"]["type"] == "invalid_request"


def test_heartbeat_keeps_the_stream_alive(url: str) -> None:
    with (
        httpx.Client(timeout=10) as c,
        c.stream("GET", f"{url}{EVENTS}?heartbeat=0.5", headers={"X-Memlane-User": "maya"}) as resp,
    ):
        assert resp.headers["content-type"].startswith("text/event-stream")
        lines = []
        for line in resp.iter_lines():
            lines.append(line)
            if line == ": ping":
                break
        assert "event: ready" in lines


async def test_a_slow_client_gets_an_overflow_error_not_unbounded_memory() -> None:
    import asyncio

    from memlane.ledger.events import MemoryEvent
    from memlane.server.routes_events import QUEUE_MAX, Subscription

    sub = Subscription(asyncio.get_running_loop(), {"memory.created"}, None)
    for n in range(QUEUE_MAX + 5):
        sub.deliver(MemoryEvent(type="memory.created", user_id="maya", memory_id=str(n)))
    sub.deliver(MemoryEvent(type="memory.updated", user_id="maya"))  # not asked for: never queued
    await asyncio.sleep(0.05)
    assert sub.overflowed and sub.queue.qsize() == QUEUE_MAX
