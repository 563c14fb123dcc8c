"""The OpenAI-compatible chat proxy end to end: the official ``openai`` SDK as the client (with Open
WebUI's headers), memlane on loopback, and a scripted upstream at the provider boundary."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from tests.chat_proxy_helpers import OWUI, sdk, serve, wait_jobs_done
from tests.scripted_upstream import (
    DEFAULT_REPLY,
    MODEL,
    ScriptedUpstream,
    SseClient,
)


def test_memory_formed_in_one_turn_is_injected_in_the_next(
    tmp_path: Path, upstream: tuple[ScriptedUpstream, str]
) -> None:
    fake, up_url = upstream
    mem, running = serve(tmp_path, up_url, local=True)
    with (
        running as url,
        SseClient(f"{url}/v1/memory/events?heartbeat=0.5", {"X-Memlane-User": "maya"}) as events,
    ):
        client = sdk(url, **OWUI)
        sent = time.monotonic()
        stream = client.chat.completions.create(
            model=MODEL,
            stream=True,
            messages=[{"role": "user", "content": "I live in Lisbon and my dog Luna is 3 years old."}],
        )
        text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
        assert text == DEFAULT_REPLY
        cand = events.wait_for("memory.candidate")
        assert cand.data["thread_id"] == "chat-1" and cand.received - sent < 2.0
        events.wait_for("memory.created")
        assert {j["status"] for j in wait_jobs_done(url, "maya")} == {"done"}  # every candidate decided
        assert fake.headers[0]["authorization"] == "Bearer upstream-secret"
        fake.script.append("Try the Monsanto park trails with Luna.")
        raw = client.chat.completions.with_raw_response.create(
            model=MODEL,
            temperature=0.3,
            messages=[
                {"role": "system", "content": "You are a helpful assistant."},
                {"role": "user", "content": "Any ideas for a walk with my dog this weekend?"},
            ],
        )
        answer = raw.parse()
        assert answer.choices[0].message.content == "Try the Monsanto park trails with Luna."
        assert raw.headers["x-memlane-mode"] == "memory" and int(raw.headers["x-memlane-memories"]) >= 1
        sent_up = fake.requests[-1]
        system = sent_up["messages"][0]
        assert system["role"] == "system" and system["content"].startswith("You are a helpful assistant.")
        assert "Luna" in system["content"] and "Lisbon" in system["content"]
        assert sent_up["messages"][1:] == [
            {"role": "user", "content": "Any ideas for a walk with my dog this weekend?"}
        ]
        assert sent_up["temperature"] == 0.3 and sent_up["model"] == MODEL
    mem.close()


def test_stream_is_relayed_byte_for_byte_and_fields_pass_through(
    tmp_path: Path, upstream: tuple[ScriptedUpstream, str]
) -> None:
    fake, up_url = upstream
    mem, running = serve(tmp_path, up_url)
    body = {
        "model": MODEL,
        "stream": True,
        "messages": [{"role": "user", "content": "hello there"}],
        "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
        "user": "owui",
        "stream_options": {"include_usage": True},
        "x_vendor": [1, 2.5, None],
    }
    direct = httpx.post(f"{up_url}/chat/completions", json=body).content
    with running as url:
        with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, headers=OWUI) as resp:
            assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/event-stream")
            relayed = resp.read()
        assert relayed == direct
        forwarded = fake.requests[-1]
        assert {k: v for k, v in forwarded.items() if k != "messages"} == {
            k: v for k, v in body.items() if k != "messages"
        }
        no_model = httpx.post(
            f"{url}/v1/chat/completions", json={"messages": [{"role": "user", "content": "hi"}]}
        )
        assert no_model.status_code == 200 and fake.requests[-1]["model"] == MODEL
        jobs = wait_jobs_done(url, "maya")  # formation and the episodic capture ran, durably jobs
        assert sorted((j["kind"], j["status"]) for j in jobs) == [("capture", "done"), ("turn", "done")]
    mem.close()


@pytest.mark.parametrize("stream", [True, False])
def test_a_finished_turn_goes_to_the_episodic_capture_with_the_answer(
    tmp_path: Path, upstream: tuple[ScriptedUpstream, str], stream: bool
) -> None:
    fake, up_url = upstream
    fake.script.append("Good call: selling the motorbike frees up the garage.")
    mem, running = serve(tmp_path, up_url)
    with running as url:
        body = {
            "model": MODEL,
            "stream": stream,
            "messages": [{"role": "user", "content": "I've decided to sell my motorbike."}],
        }
        with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, headers=OWUI) as resp:
            assert resp.status_code == 200
            resp.read()
        wait_jobs_done(url, "maya")
        [episode] = mem.list(user_id="maya", filters={"type": "episodic"})
        assert episode.summary.endswith("Approach: User decided to sell their motorbike.")
        assert episode.thread_id == "chat-1"
    mem.close()


def test_anonymous_and_task_requests_touch_no_memory(
    tmp_path: Path, upstream: tuple[ScriptedUpstream, str]
) -> None:
    fake, up_url = upstream
    mem, running = serve(tmp_path, up_url)
    mem.put("User lives in Lisbon.", user_id="maya")
    with running as url:
        anon = sdk(url).chat.completions.with_raw_response.create(
            model=MODEL, messages=[{"role": "user", "content": "I live in Porto now."}]
        )
        assert anon.headers["x-memlane-mode"] == "anonymous"
        assert fake.requests[-1]["messages"] == [{"role": "user", "content": "I live in Porto now."}]
        task = (
            "### Task:\nGenerate a concise title for the chat.\n<chat_history>I live in Porto</chat_history>"
        )
        titled = sdk(url, **OWUI).chat.completions.with_raw_response.create(
            model=MODEL, messages=[{"role": "user", "content": task}]
        )
        assert titled.headers["x-memlane-mode"] == "task"
        assert fake.requests[-1]["messages"] == [{"role": "user", "content": task}]
        time.sleep(0.3)
    formation = [
        j for j in mem.jobs.list(user_id="maya") if not j.kind.startswith("task.")
    ]  # tasks are the schedule's
    assert formation == [] and mem.users() == ["maya"]
    assert [r.summary for r in mem.list(user_id="maya")] == ["User lives in Lisbon."]
    mem.close()


def test_upstream_errors_are_clear(tmp_path: Path, upstream: tuple[ScriptedUpstream, str]) -> None:
    fake, up_url = upstream
    mem, running = serve(tmp_path, up_url)
    with running as url:
        client = sdk(url, **OWUI)
        assert [m.id for m in client.models.list()] == [MODEL]
        fake.fail_next = (
            400,
            {"error": {"message": "model 'nope' does not exist", "type": "invalid_request_error"}},
        )
        with pytest.raises(openai.BadRequestError, match="does not exist"):
            client.chat.completions.create(model="nope", messages=[{"role": "user", "content": "hi"}])
        for refused in (401, 403):  # memlane's upstream key refused: a bad gateway, not the client's auth
            fake.fail_next = (refused, {"error": {"message": "Incorrect API key provided: sk-wr***ng"}})
            r = httpx.post(
                f"{url}/v1/chat/completions",
                headers=OWUI,
                json={"model": MODEL, "messages": [{"role": "user", "content": "hi"}]},
            )
            assert r.status_code == 502 and r.json()["error"]["type"] == "upstream_auth_failed"
            assert "Incorrect API key provided" in r.json()["error"]["message"]
            assert "MEMLANE_UPSTREAM_API_KEY" in r.json()["error"]["message"]
        fake.fail_next = (500, {"error": {"message": "boom"}})
        with pytest.raises(openai.APIStatusError) as err:
            client.chat.completions.create(
                model=MODEL, stream=True, messages=[{"role": "user", "content": "hi"}]
            )
        assert err.value.status_code == 502
        # a failed upstream (a 502 here) still keeps the user's message for formation; a refused request (400) not
        # (committed before the error went out; "hi" forms no memory)
        assert [j.kind for j in mem.jobs.list(user_id="maya") if not j.kind.startswith("task.")] == [
            "turn"
        ] * 3
    mem.close()
    mem2, none_configured = serve(tmp_path / "n", None)
    with none_configured as url:
        with pytest.raises(openai.APIStatusError) as err:
            sdk(url, **OWUI).chat.completions.create(
                model=MODEL, messages=[{"role": "user", "content": "hi"}]
            )
        assert err.value.status_code == 503 and "MEMLANE_UPSTREAM_BASE_URL" in str(err.value)
    mem2.close()
    mem3, unreachable = serve(tmp_path / "u", "http://127.0.0.1:9/v1")
    with unreachable as url:
        r = httpx.post(f"{url}/v1/chat/completions", json={"messages": [{"role": "user", "content": "hi"}]})
        assert r.status_code == 502 and r.json()["error"]["type"] == "upstream_unreachable"
    mem3.close()


def test_keys_decide_the_user_of_a_chat(tmp_path: Path, upstream: tuple[ScriptedUpstream, str]) -> None:
    fake, up_url = upstream
    mem, running = serve(tmp_path, up_url, api_keys=["owui-gateway", "lena-key:lena"])
    mem.put("User's favourite colour is green.", user_id="lena")
    mem.put("User's favourite colour is blue.", user_id="maya")
    ask: Any = [{"role": "user", "content": "What is my favourite colour?"}]
    with running as url:
        with pytest.raises(openai.AuthenticationError):
            sdk(url, **OWUI).chat.completions.create(model=MODEL, messages=ask)
        lena = openai.OpenAI(base_url=f"{url}/v1", api_key="lena-key", max_retries=0)
        lena.chat.completions.create(model=MODEL, messages=ask)
        assert "green" in fake.requests[-1]["messages"][0]["content"]
        assert "blue" not in fake.requests[-1]["messages"][0]["content"]
        with pytest.raises(openai.PermissionDeniedError):
            openai.OpenAI(
                base_url=f"{url}/v1", api_key="lena-key", default_headers=OWUI, max_retries=0
            ).chat.completions.create(model=MODEL, messages=ask)
        gateway = openai.OpenAI(
            base_url=f"{url}/v1", api_key="owui-gateway", default_headers=OWUI, max_retries=0
        )
        gateway.chat.completions.create(model=MODEL, messages=ask)
        assert "blue" in fake.requests[-1]["messages"][0]["content"]
        assert "green" not in fake.requests[-1]["messages"][0]["content"]
    mem.close()


def test_the_answer_text_is_read_from_a_completion_or_its_stream() -> None:
    from memlane.server.chat_capture import answer_text, streamed_text

    body = b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "Sold!"}}]}'
    assert (
        answer_text(body) == "Sold!"
        and answer_text(b"not json") == ""
        and answer_text(b'{"choices": []}') == ""
    )
    chunks = [
        b'data: {"choices": [{"index": 0, "delta": {"role": "assistant"}}]}\n\n',
        b'data: {"choices": [{"index": 0, "delta": {"content": "Go"}}]}\n\ndata: {"choices": [{"index": 0, ',
        b'"delta": {"content": "od call"}}, {"index": 1, "delta": {"content": "other"}}]}\n\ndata: [DONE]\n\n',
    ]
    assert streamed_text(chunks) == "Good call"


def test_a_temporary_chat_reads_memories_but_forms_none(
    tmp_path: Path, upstream: tuple[ScriptedUpstream, str]
) -> None:
    fake, up_url = upstream
    mem, running = serve(tmp_path, up_url, local=True)
    mem.put("User lives in Lisbon.", user_id="maya")
    temporary = {**OWUI, "X-OpenWebUI-Chat-Id": "temporary:3f2a"}
    said = "I play the cello every weekend and my dog Luna is 3. Any tips for Lisbon?"
    with running as url:
        for stream in (False, True):
            reply = httpx.post(
                f"{url}/v1/chat/completions",
                headers=temporary,
                timeout=20,
                json={"model": MODEL, "stream": stream, "messages": [{"role": "user", "content": said}]},
            )
            assert reply.status_code == 200 and reply.text
            assert (
                reply.headers["x-memlane-mode"] == "temporary"
                and int(reply.headers["x-memlane-memories"]) >= 1
            )
            assert "Lisbon" in fake.requests[-1]["messages"][0]["content"]  # the memories were read
        time.sleep(0.5)
        assert [j for j in mem.jobs.list(user_id="maya") if not j.kind.startswith("task.")] == []
        assert [r.summary for r in mem.list(user_id="maya")] == ["User lives in Lisbon."]
        assert mem.sessions.list(user_id="maya", chat_id="temporary:3f2a") == []
        # the same message in a kept chat is remembered
        sdk(url, **OWUI).chat.completions.create(model=MODEL, messages=[{"role": "user", "content": said}])
        assert {j["status"] for j in wait_jobs_done(url, "maya")} == {"done"}
        assert any("cello" in r.summary for r in mem.list(user_id="maya"))
    mem.close()
