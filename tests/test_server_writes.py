"""REST and SSE over the one write path, against a real server on loopback: Last-Event-ID replays
missed writes, POST /turns with wait returns what was decided, Idempotency-Key on puts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from memlane import Memory
from memlane.model.config import Settings
from memlane.providers.embed.hash import HashEmbedder
from tests.scripted_upstream import SseClient, running_memlane

H = {"X-Memlane-User": "maya"}


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    location = str(tmp_path / "w.db")
    mem = Memory(location, embedder=HashEmbedder(64), settings=Settings(db=location))
    with running_memlane(mem) as base:
        yield base
    mem.close()


def sse(url: str, headers: dict[str, str]) -> SseClient:
    return SseClient(f"{url}/v1/memory/events?heartbeat=0.5", headers)


def test_last_event_id_replays_the_writes_missed_then_goes_live(url: str) -> None:
    with httpx.Client(base_url=url) as c:
        with sse(url, H) as first:
            a = c.post("/v1/memory", json={"summary": "User likes tea."}, headers=H).json()
            seen = first.wait_for("memory.created")
            assert seen.id is not None and seen.data["memory_id"] == a["id"]
        # disconnected: three writes happen meanwhile (another user's too)
        c.patch(f"/v1/memory/{a['id']}", json={"importance": 5}, headers=H)
        c.post("/v1/memory", json={"summary": "User likes chess."}, headers={"X-Memlane-User": "lena"})
        c.delete(f"/v1/memory/{a['id']}", headers=H)
        b = c.post("/v1/memory", json={"summary": "User swims."}, headers=H).json()
        with sse(url, {**H, "Last-Event-ID": seen.id}) as again:
            replayed = [again.next() for _ in range(3)]
            assert [e.event for e in replayed] == ["memory.updated", "memory.deleted", "memory.created"]
            assert [int(e.id or 0) for e in replayed] == [int(seen.id) + n for n in (1, 2, 3)]
            assert (
                replayed[2].data["memory_id"] == b["id"]
                and replayed[2].data["data"]["summary"] == "User swims."
            )
            c.post(f"/v1/memory/{a['id']}/restore", headers=H)
            live = again.wait_for("memory.restored")
            assert int(live.id or 0) == int(seen.id) + 4
            assert again.drain(0.3) == []  # nothing twice
        with sse(url, {**H, "Last-Event-ID": str(int(seen.id) + 4)}) as current:
            assert current.drain(0.3) == []
        r = c.get("/v1/memory/events", headers={**H, "Last-Event-ID": "abc"})
        assert r.status_code == 400 and "Last-Event-ID" in r.json()["error"]["message"]


def test_turns_with_wait_return_the_decisions_and_resulting_ids(url: str) -> None:
    with httpx.Client(base_url=url) as c:
        r = c.post(
            "/v1/memory/turns",
            json={"messages": "I live in Lisbon and my dog Luna is 3.", "wait": True},
            headers=H,
        )
        assert r.status_code == 200
        body = r.json()
        assert body["turn_id"] and len(body["decisions"]) == len(body["candidates"]) >= 2
        assert {d["action"] for d in body["decisions"]} == {"create"}
        for d in body["decisions"]:
            assert c.get(f"/v1/memory/{d['memory_id']}", headers=H).json()["summary"] == d["summary"]
        again = c.post(
            "/v1/memory/turns", json={"messages": "Luna turned 4 last week!", "wait": True}, headers=H
        ).json()
        assert [d["action"] for d in again["decisions"]] == ["supersede"]
        assert "4" in c.get(f"/v1/memory/{again['decisions'][0]['memory_id']}", headers=H).json()["summary"]
        later = c.post("/v1/memory/turns", json={"messages": "I live in Lisbon."}, headers=H)
        assert later.status_code == 202 and later.json()["decisions"] == []


def test_idempotency_key_header_returns_the_first_put(url: str) -> None:
    with httpx.Client(base_url=url) as c:
        key = {**H, "Idempotency-Key": "9b1c-retry"}
        first = c.post("/v1/memory", json={"summary": "User booked flights to Oslo."}, headers=key)
        retry = c.post("/v1/memory", json={"summary": "User booked flights to Oslo."}, headers=key)
        assert first.status_code == retry.status_code == 200 and first.json()["id"] == retry.json()["id"]
        assert len(c.get("/v1/memory", headers=H).json()["memories"]) == 1
        clash = c.post("/v1/memory", json={"summary": "User booked flights to Bergen."}, headers=key)
        assert clash.status_code == 409 and "idempotency key" in clash.json()["error"]["message"]
        assert len(c.get("/v1/memory", headers=H).json()["memories"]) == 1


@pytest.mark.parametrize("bad", ["1" + "0" * 26, str(2**63), "\u00b2", "12 3", "-1"])
def test_a_bad_or_huge_last_event_id_is_a_400_before_the_stream(url: str, bad: str) -> None:
    with httpx.Client(base_url=url, timeout=10) as c:
        r = c.get("/v1/memory/events", headers={**H, "Last-Event-ID": bad.encode("latin-1")})
        assert r.status_code == 400 and "Last-Event-ID" in r.json()["error"]["message"], r.text
        assert (
            c.post("/v1/memory", json={"summary": "User swims."}, headers=H).status_code == 200
        )  # still serving
