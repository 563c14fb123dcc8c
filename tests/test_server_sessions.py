"""Group-chat sessions over REST (/v1/memory/sessions) on a real server on loopback, SQLite and PostgreSQL:
recording splits at the gap, listing is the user's own, bad input is a 400/422 that records nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from memlane import Memory
from memlane.model.config import Settings
from memlane.providers.embed.hash import HashEmbedder
from tests.scripted_upstream import running_memlane

CHAT = "trip-planning"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    location = (
        str(tmp_path / "s.db") if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    )
    with (
        Memory(location, embedder=HashEmbedder(64), settings=Settings(db=location)) as mem,
        running_memlane(mem) as base,
    ):
        yield base


def client(url: str, user: str) -> httpx.Client:
    return httpx.Client(base_url=url, headers={"X-Memlane-User": user}, timeout=30)


def test_record_list_and_read_a_chats_sessions(url: str) -> None:
    with client(url, "maya") as maya, client(url, "lena") as lena:
        r = maya.post(
            "/v1/memory/sessions/messages",
            json={
                "chat_id": CHAT,
                "messages": [
                    {"name": "ana", "content": "Shall we book the cabin?", "at": "2026-03-02T18:00:00Z"},
                    {"name": "ben", "content": "Yes, near the lake.", "at": "2026-03-02T18:30:00Z"},
                    {"role": "assistant", "content": "It is free in June.", "at": "2026-03-02T19:00:01Z"},
                ],
            },
        )
        assert r.status_code == 201, r.text
        stored = r.json()["messages"]
        assert [m["sender"] for m in stored] == ["ana", "ben", None]
        sessions = maya.get("/v1/memory/sessions", params={"chat_id": CHAT}).json()["sessions"]
        assert [(s["message_count"], s["participants"], s["status"]) for s in sessions] == [
            (2, ["ana", "ben"], "closed"),
            (1, ["assistant"], "open"),
        ]
        assert [m["session_id"] for m in stored] == [sessions[0]["id"]] * 2 + [sessions[1]["id"]]
        assert [
            s["id"] for s in maya.get("/v1/memory/sessions", params={"status": "open"}).json()["sessions"]
        ] == [sessions[1]["id"]]
        texts = maya.get(f"/v1/memory/sessions/{sessions[0]['id']}/messages").json()["messages"]
        assert [m["text"] for m in texts] == ["Shall we book the cabin?", "Yes, near the lake."]
        assert lena.get("/v1/memory/sessions").json()["sessions"] == []
        assert lena.get(f"/v1/memory/sessions/{sessions[0]['id']}/messages").json()["messages"] == []


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"chat_id": CHAT, "messages": []}, 422),
        (
            {"messages": [{"content": "hi"}]},
            400,
        ),  # no chat: neither chat_id nor the X-OpenWebUI-Chat-Id header
        ({"chat_id": CHAT, "messages": [{"content": "hi", "role": "robot"}]}, 422),
        (
            {"chat_id": CHAT, "messages": [{"content": "hi", "at": "2026-03-02T17:00:00Z"}]},
            400,
        ),  # older than the session
    ],
)
def test_bad_input_records_nothing(url: str, body: dict[str, object], status: int) -> None:
    with client(url, "maya") as maya:
        ok = maya.post(
            "/v1/memory/sessions/messages",
            json={"chat_id": CHAT, "messages": [{"content": "kept", "at": "2026-03-02T18:00:00Z"}]},
        )
        assert ok.status_code == 201, ok.text
        before = maya.get("/v1/memory/sessions").json()
        r = maya.post("/v1/memory/sessions/messages", json=body)
        assert r.status_code == status, r.text
        assert maya.get("/v1/memory/sessions").json() == before
        assert maya.get("/v1/memory/sessions", params={"status": "archived"}).status_code == 422


def test_a_repeated_post_with_an_idempotency_key_returns_the_first_rows(url: str) -> None:
    body = {
        "chat_id": CHAT,
        "messages": [
            {"name": "ana", "content": "Shall we book the cabin?"},
            {"name": "ben", "content": "Yes, near the lake."},
        ],
    }
    key = {"Idempotency-Key": "send-42"}
    with client(url, "maya") as maya:
        first = maya.post("/v1/memory/sessions/messages", json=body, headers=key)
        again = maya.post(
            "/v1/memory/sessions/messages", json=body, headers=key
        )  # a retry, no `at`: a later now
        assert first.status_code == again.status_code == 201, again.text
        assert again.json()["messages"] == first.json()["messages"]
        sessions = maya.get("/v1/memory/sessions").json()["sessions"]
        assert [s["message_count"] for s in sessions] == [2]
        texts = maya.get(f"/v1/memory/sessions/{sessions[0]['id']}/messages").json()["messages"]
        assert [m["text"] for m in texts] == ["Shall we book the cabin?", "Yes, near the lake."]
        other = maya.post(
            "/v1/memory/sessions/messages",
            json={**body, "messages": body["messages"][:1]},
            headers={"Idempotency-Key": "send-43"},
        )  # another key is another call
        assert other.status_code == 201
        changed = {**body, "messages": [{"name": "ana", "content": "Shall we book the hotel?"}]}
        conflict = maya.post("/v1/memory/sessions/messages", json=changed, headers=key)
        assert conflict.status_code == 409 and "other content" in conflict.json()["error"]["message"], (
            conflict.text
        )
        assert [s["message_count"] for s in maya.get("/v1/memory/sessions").json()["sessions"]] == [3]
        bad = maya.post("/v1/memory/sessions/messages", json=body, headers={"Idempotency-Key": "a\tb"})
        assert bad.status_code in (400, 422)
