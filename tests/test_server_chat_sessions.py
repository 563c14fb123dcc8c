"""The chat proxy records a named chat (``X-OpenWebUI-Chat-Id``) as group-chat sessions (issue 12): the
request's new user messages before the upstream call, the answer once complete, nothing twice when a
client resends the conversation or regenerates an answer; a recording failure never fails the chat and
is published. REST routes take the chat from the same header; DELETE /v1/memory/sessions/{id} forgets
a session; the Prometheus counters count sessions. Real server on loopback, scripted upstream."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from memlane import Memory
from memlane.model.session import SessionMessage
from memlane.server.chat_record import Said, trailing_turn, unrecorded
from tests.chat_proxy_helpers import OWUI, serve
from tests.scripted_upstream import DEFAULT_REPLY, MODEL, ScriptedUpstream, SseClient

SYSTEM = {"role": "system", "content": "You help a group plan trips."}


def chat(
    url: str, messages: list[dict[str, Any]], *, stream: bool = False, headers: dict[str, str] = OWUI
) -> str:
    body = {"model": MODEL, "stream": stream, "messages": messages}
    with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, headers=headers, timeout=30) as resp:
        assert resp.status_code == 200, resp.read()
        return resp.read().decode()


def transcript(
    mem: Memory, count: int, chat_id: str = "chat-1", timeout: float = 10
) -> list[tuple[str, Any, str]]:
    """The chat's recorded (role, sender, text), once it holds ``count`` messages (the answer is recorded
    after the response ends)."""
    deadline = time.monotonic() + timeout
    while True:
        rows = [
            (m.role, m.sender, m.text)
            for s in mem.sessions.list(user_id="maya", chat_id=chat_id)
            for m in mem.sessions.messages(s.id, user_id="maya")
        ]
        if len(rows) >= count or time.monotonic() > deadline:
            return rows
        time.sleep(0.05)


def test_a_chat_is_recorded_once_as_the_client_resends_it(
    tmp_path: Path, upstream: tuple[ScriptedUpstream, str]
) -> None:
    fake, up_url = upstream
    fake.script.extend(["The lake cabin is free from June 6.", "Booked for June 6 to 13."])
    mem, running = serve(tmp_path, up_url)
    ask = {"role": "user", "name": "ana", "content": "Shall we book the lake cabin for June?"}
    with running as url:
        chat(url, [SYSTEM, ask], stream=True)
        first = [("user", "ana", ask["content"]), ("assistant", None, "The lake cabin is free from June 6.")]
        assert transcript(mem, 2) == first
        history = [SYSTEM, ask, {"role": "assistant", "content": "The lake cabin is free from June 6."}]
        chat(
            url,
            [
                *history,
                {"role": "user", "name": "ben", "content": "Yes, book it."},
                {"role": "user", "name": "cy", "content": [{"type": "text", "text": "And a kayak!"}]},
            ],
        )
        second = [
            *first,
            ("user", "ben", "Yes, book it."),
            ("user", "cy", "And a kayak!"),
            ("assistant", None, "Booked for June 6 to 13."),
        ]
        assert transcript(mem, 5) == second
        chat(
            url,
            [
                *history,
                {"role": "user", "name": "ben", "content": "Yes, book it."},  # regenerate the answer
                {"role": "user", "name": "cy", "content": "And a kayak!"},
            ],
            stream=True,
        )
        assert transcript(mem, 6) == [*second, ("assistant", None, DEFAULT_REPLY)]
        chat(url, [SYSTEM, ask])  # the first turn regenerated
        assert transcript(mem, 7) == [*second, *[("assistant", None, DEFAULT_REPLY)] * 2]  # ana's not twice
        (session,) = mem.sessions.list(user_id="maya", chat_id="chat-1")
        assert session.participants == ["ana", "assistant", "ben", "cy"] and session.message_count == 7
        assert [s.chat_id for s in mem.sessions.list(user_id="maya")] == ["chat-1"]
    mem.close()


def test_what_is_not_recorded(tmp_path: Path, upstream: tuple[ScriptedUpstream, str]) -> None:
    _, up_url = upstream
    say = [{"role": "user", "content": "We land in Lisbon on Friday."}]
    mem, running = serve(tmp_path / "a", up_url, context_session_proxy_recording_enabled=False)
    with running as url:
        chat(url, say)  # the flag is off
        chat(url, say, headers={"X-OpenWebUI-User-Id": "maya"})  # no chat named
    assert mem.sessions.list(user_id="maya") == []
    mem.close()
    mem, running = serve(tmp_path / "b", up_url)
    with running as url:
        chat(url, say, headers={"X-OpenWebUI-User-Id": "maya"})
        chat(url, [{"role": "user", "content": "### Task:\nGenerate a title."}])  # an Open WebUI task prompt
        chat(url, say, headers={"X-OpenWebUI-Chat-Id": "chat-1"})  # anonymous
        time.sleep(0.3)
    assert mem.sessions.list(user_id="maya") == [] and mem.users() == ["maya"]
    mem.close()


def test_a_recording_failure_does_not_fail_the_chat_and_is_published(
    tmp_path: Path, upstream: tuple[ScriptedUpstream, str]
) -> None:
    fake, up_url = upstream
    mem, running = serve(tmp_path, up_url)
    with (
        running as url,
        SseClient(
            f"{url}/v1/memory/events?heartbeat=0.5&types=memory.error", {"X-Memlane-User": "maya"}
        ) as events,
    ):
        text = chat(url, [{"role": "user", "name": "n" * 300, "content": "Hello from a long name."}])
        assert DEFAULT_REPLY in text and fake.requests[-1]["messages"][-1]["name"] == "n" * 300
        error = events.wait_for("memory.error")
        assert (
            error.data["data"]["code"] == "session_record_failed" and "name" in error.data["data"]["message"]
        )
        assert error.data["thread_id"] == "chat-1"
        assert transcript(mem, 1) == [
            ("assistant", None, DEFAULT_REPLY)
        ]  # the message refused, the answer kept
    mem.close()


def test_rest_routes_take_the_chat_from_the_open_webui_header(tmp_path: Path) -> None:
    mem, running = serve(tmp_path, None)
    maya = {"X-Memlane-User": "maya", "X-OpenWebUI-Chat-Id": "chat-9"}
    with running as url, httpx.Client(base_url=url, headers=maya, timeout=30) as http:
        r = http.post(
            "/v1/memory/sessions/messages", json={"messages": [{"name": "ana", "content": "Hi all"}]}
        )
        assert r.status_code == 201 and r.json()["messages"][0]["chat_id"] == "chat-9"
        listed = http.get("/v1/memory/sessions", headers={"X-OpenWebUI-Chat-Id": "chat-0"}).json()["sessions"]
        assert [s["chat_id"] for s in listed] == ["chat-9"]  # a listing does not read the header
        clash = http.post(
            "/v1/memory/sessions/messages", json={"chat_id": "chat-8", "messages": [{"content": "x"}]}
        )
        assert clash.status_code == 400 and "X-OpenWebUI-Chat-Id" in clash.json()["error"]["message"]
        none = httpx.post(
            f"{url}/v1/memory/sessions/messages",
            headers={"X-Memlane-User": "maya"},
            json={"messages": [{"content": "x"}]},
        )
        assert none.status_code == 400 and "chat_id is required" in none.json()["error"]["message"]
        turn = http.post("/v1/memory/turns", json={"messages": "I moved to Porto.", "wait": True})
        assert turn.status_code == 200
        assert [m["thread_id"] for m in http.get("/v1/memory").json()["memories"]] == ["chat-9"]
        block = http.post("/v1/memory/context", json={"query": "where do I live?"}).json()
        assert "Porto" in block["text"]
        assert http.post("/v1/memory/context", json={"query": "x", "thread_id": "t"}).status_code == 400
    assert [
        m.text for s in mem.sessions.list(user_id="maya") for m in mem.sessions.messages(s.id, user_id="maya")
    ] == ["Hi all"]
    mem.close()


def test_delete_a_session_over_rest_and_the_counters(tmp_path: Path) -> None:
    mem, running = serve(tmp_path, None)
    with running as url, httpx.Client(base_url=url, headers={"X-Memlane-User": "maya"}, timeout=30) as http:
        http.post(
            "/v1/memory/sessions/messages",
            json={
                "chat_id": "c",
                "messages": [
                    {"content": "one", "at": "2026-03-02T18:00:00Z"},
                    {"content": "two", "at": "2026-03-02T20:00:00Z"},
                ],
            },
        )
        first, second = http.get("/v1/memory/sessions").json()["sessions"]
        lena = http.delete(f"/v1/memory/sessions/{first['id']}", headers={"X-Memlane-User": "lena"})
        assert lena.status_code == 404
        gone = http.delete(f"/v1/memory/sessions/{first['id']}", params={"reason": "user asked"})
        assert gone.status_code == 200 and gone.json()["id"] == first["id"]
        assert [s["id"] for s in http.get("/v1/memory/sessions").json()["sessions"]] == [second["id"]]
        assert http.get(f"/v1/memory/sessions/{first['id']}/messages").json()["messages"] == []
        assert http.delete(f"/v1/memory/sessions/{first['id']}").status_code == 404
        metrics = http.get("/metrics").text
        assert "memlane_sessions_opened_total 2.0" in metrics
        assert "memlane_sessions_closed_total 1.0" in metrics  # the message two hours later closed the first
        assert (
            "memlane_sessions_summarized_total 0.0" in metrics
            and "memlane_sessions_failed_total 0.0" in metrics
        )
    mem.close()


def stored(*rows: tuple[str, str]) -> list[SessionMessage]:
    from memlane.model.record import utcnow

    return [
        SessionMessage(
            id=str(n),
            user_id="u",
            chat_id="c",
            session_id="s",
            role=role,
            text=text,  # type: ignore[arg-type]
            at=utcnow(),
        )
        for n, (role, text) in enumerate(rows)
    ]


@pytest.mark.parametrize(
    ("stored_rows", "anchor", "said", "new"),
    [
        ([], None, ["hi"], ["hi"]),  # a new chat
        ([("user", "hi"), ("assistant", "hello")], None, ["hi"], []),  # the first turn regenerated
        ([("user", "hi"), ("assistant", "hello")], "hello", ["how are you?"], ["how are you?"]),
        (
            [("user", "hi"), ("assistant", "hello"), ("user", "a"), ("user", "b")],
            "hello",
            ["a", "b", "c"],
            ["c"],
        ),
        (
            [("user", "hi"), ("assistant", "hello"), ("user", "a"), ("assistant", "x")],
            "hello",
            ["a"],
            [],
        ),  # regenerated
        (
            [("user", "hi"), ("assistant", "hello"), ("user", "a")],
            "hello",
            ["a2"],
            ["a2"],
        ),  # edited and resent
        ([("user", "a")], "an answer recorded before the session", ["a"], []),  # anchor in an older session
    ],
)
def test_which_trailing_messages_are_new(
    stored_rows: list[tuple[str, str]], anchor: str | None, said: list[str], new: list[str]
) -> None:
    assert [s.text for s in unrecorded(anchor, [Said(t) for t in said], stored(*stored_rows))] == new


def test_the_trailing_turn_of_a_request() -> None:
    messages = [
        SYSTEM,
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "tool_calls": []},
        {"role": "tool", "content": "sunny"},
    ]
    assert trailing_turn(messages) == ("hello", [])  # answering a tool result: no new user message
    assert trailing_turn(messages[:4]) == ("hello", [Said("weather?")])
    assert trailing_turn([{"role": "user", "name": " ana ", "content": "\x00hi "}]) == (
        None,
        [Said("hi", "ana")],
    )
