"""An LLM outage heals itself (issue 30, item 4): every turn said while the model was down becomes a
memory once it answers again, with no manual step, and no request waits longer than its timeout.

Real parts: ``memlane serve`` in its own process over a SQLite file (its worker forms the memories),
the ``memlane jobs`` CLI as a process, the real OpenAI client of memlane; the chat proxy on loopback
in front of the scripted upstream (tests/scripted_upstream.py). The model is the scripted
OpenAI-compatible server on loopback (tests/scripted_chat_server.py), the provider boundary: it
answers HTTP 503, or hangs, or (recovered) the extraction the test declared for a turn. Retry and
backoff are configured in seconds here; the production defaults are hours
(docs/configuration.md, ``MEMLANE_JOB_RETRY_HOURS``).
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.chat_proxy_helpers import OWUI, serve, wait_jobs_done
from tests.formation_helpers import extraction_json, wait_until
from tests.scripted_chat_server import Reply, ScriptedChatServer
from tests.scripted_upstream import MODEL, ScriptedUpstream

START_TIMEOUT = 120.0  # seconds for the server process to listen (imports; far more on a busy machine)
LLM_TIMEOUT_S = (
    8.0  # memlane's timeout per LLM call: a request that waited for the hanging model takes longer
)
WAIT_TIMEOUT_S = 1.5  # MEMLANE_WAIT_TIMEOUT_S
# what the recovered model extracts from a turn that holds the key (words no prompt example uses)
FACTS = {
    "Zanzibar": "User lives in Zanzibar.",
    "theremin": "User plays the theremin.",
    "axolotl": "User keeps an axolotl named Gus.",
    "Ulaanbaatar": "User's sister works in Ulaanbaatar.",
}


def down(_: dict[str, Any]) -> Reply:
    return Reply(None, 503)


def hanging(_: dict[str, Any]) -> Reply:
    return Reply(None, 503, delay=60.0)  # memlane's client gives up first (the fixture ends the wait)


def recovered(request: dict[str, Any]) -> Reply:
    """The extraction declared for the turn in the prompt; a stored memory judged against a new one is
    another fact ("new": both hold). Anything else is a 500, which the test would see as a failure."""
    schema = request.get("response_format", {}).get("json_schema", {}).get("name")
    prompt = request["messages"][-1]["content"]
    if schema == "Judgements":
        stored = re.findall(r"^(\d+)\. ", prompt.split("Stored:", 1)[-1], flags=re.MULTILINE)
        return Reply(
            json.dumps(
                {
                    "judgements": [
                        {"index": int(n), "reasoning": "another fact", "relation": "new"} for n in stored
                    ]
                }
            )
        )
    found = [summary for key, summary in FACTS.items() if key in prompt.split("Conversation", 1)[-1]]
    if schema != "Extraction" or len(found) != 1:
        return Reply(None, 500)
    return Reply(extraction_json(found[0], category="Personal"))


@contextmanager
def memlane_serve(tmp_path: Path, llm_url: str, **env: str) -> Iterator[tuple[str, dict[str, str]]]:
    """``memlane serve`` on a free loopback port with the scripted model; yields its URL and environment."""
    full = {k: v for k, v in os.environ.items() if not k.startswith(("MEMLANE_", "MEMORY_"))}
    full.update(
        MEMLANE_EMBEDDER="hash",
        MEMLANE_CONFIG=str(tmp_path / "none.toml"),
        MEMLANE_DB=str(tmp_path / "m.db"),
        MEMLANE_LLM="openai",
        MEMLANE_OPENAI_BASE_URL=llm_url,
        MEMLANE_LLM_MODEL="test-model",
        MEMLANE_LLM_TIMEOUT_S=str(LLM_TIMEOUT_S),
        MEMLANE_WAIT_TIMEOUT_S=str(WAIT_TIMEOUT_S),
        MEMLANE_JOB_MAX_ATTEMPTS="2",
        MEMLANE_JOB_BACKOFF_MAX_S="0.5",
        **env,
    )
    with open(tmp_path / "server.log", "a") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "memlane.cli",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--log-level",
                "warning",
            ],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            env=full,
        )
    try:
        assert proc.stdout is not None
        deadline, line = time.monotonic() + START_TIMEOUT, ""
        while "listening on" not in line:
            ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if not ready or proc.poll() is not None:
                pytest.fail(f"memlane serve did not start: {(tmp_path / 'server.log').read_text()[-2000:]}")
            line = proc.stdout.readline()
        match = re.search(r"listening on (http://\S+)", line)
        assert match, line
        yield match.group(1), full
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def as_user(user: str) -> dict[str, str]:
    return {"X-Memlane-User": user}


def post_turn(url: str, user: str, text: str, *, wait: bool) -> tuple[httpx.Response, float]:
    """POST /turns; the answer and how long it took (seconds)."""
    started = time.monotonic()
    r = httpx.post(
        f"{url}/v1/memory/turns", headers=as_user(user), json={"messages": text, "wait": wait}, timeout=120
    )
    return r, time.monotonic() - started


def turn_jobs(url: str, user: str) -> dict[str, dict[str, Any]]:
    jobs = httpx.get(f"{url}/v1/memory/jobs", headers=as_user(user), params={"limit": 1000}).json()["jobs"]
    return {j["id"]: j for j in jobs if j["kind"] == "turn"}


def summaries(url: str, user: str) -> list[str]:
    r = httpx.get(f"{url}/v1/memory", headers=as_user(user), params={"limit": 100})
    return sorted(m["summary"] for m in r.json()["memories"])


def until(what: str, check: Callable[[], bool], timeout: float = 90.0) -> None:
    wait_until(check, timeout=timeout, interval=0.1, what=what)


def test_every_turn_said_during_an_outage_becomes_a_memory_and_no_request_outwaits_its_timeout(
    tmp_path: Path, server: ScriptedChatServer
) -> None:
    server.otherwise = down
    with memlane_serve(tmp_path, server.url, MEMLANE_JOB_RETRY_HOURS="1") as (url, _):
        # the model answers 503: the turn is kept; waiting says so instead of "nothing to remember"
        quiet, _ = post_turn(url, "maya", "I live in Zanzibar.", wait=False)
        assert quiet.status_code == 202 and quiet.json()["pending"] is True
        waited, _ = post_turn(url, "maya", "I play the theremin.", wait=True)
        body = waited.json()
        assert waited.status_code == 202 and body["waited"] is False and body["decisions"] == []
        assert body["pending"] is True and body["reason"]["code"] == "llm_unavailable"
        assert "HTTP 503" in body["reason"]["message"] and body["reason"]["job_id"] == body["turn_id"]
        first = quiet.json()["turn_id"]
        # retried with backoff past MEMLANE_JOB_MAX_ATTEMPTS (2): an outage does not park a turn
        until("the first turn's third attempt", lambda: turn_jobs(url, "maya")[first]["attempts"] > 2)
        assert turn_jobs(url, "maya")[first]["status"] in ("pending", "running")

        # the model hangs: neither request waits for it (each would take LLM_TIMEOUT_S if it did)
        server.otherwise = hanging
        hung, took = post_turn(url, "maya", "I keep an axolotl called Gus.", wait=True)
        assert hung.status_code == 202 and hung.json()["pending"] is True
        assert hung.json()["reason"]["code"] == "timeout" and took < LLM_TIMEOUT_S
        background, took = post_turn(url, "noor", "My sister works in Ulaanbaatar.", wait=False)
        assert (
            background.status_code == 202 and background.json()["candidates"] == [] and took < LLM_TIMEOUT_S
        )

        # the model is back: every turn becomes its memory, nobody retries anything
        server.otherwise = recovered
        until(
            "every turn's memory",
            lambda: (
                summaries(url, "maya") == sorted([FACTS["Zanzibar"], FACTS["theremin"], FACTS["axolotl"]])
                and summaries(url, "noor") == [FACTS["Ulaanbaatar"]]
            ),
        )
        jobs = [*turn_jobs(url, "maya").values(), *turn_jobs(url, "noor").values()]
        assert len(jobs) == 4 and {j["status"] for j in jobs} == {"done"}


def test_past_its_retry_window_a_turn_is_parked_until_a_person_retries_it(
    tmp_path: Path, server: ScriptedChatServer
) -> None:
    server.otherwise = down
    with memlane_serve(tmp_path, server.url, MEMLANE_JOB_RETRY_HOURS="0.0005") as (url, env):  # 1.8 s
        maya = post_turn(url, "maya", "I live in Zanzibar.", wait=False)[0].json()["turn_id"]
        noor = post_turn(url, "noor", "I play the theremin.", wait=False)[0].json()["turn_id"]
        until(
            "both turns parked",
            lambda: (
                turn_jobs(url, "maya")[maya]["status"] == "parked"
                and turn_jobs(url, "noor")[noor]["status"] == "parked"
            ),
        )
        server.otherwise = recovered
        waited = post_turn(url, "maya", "I keep an axolotl called Gus.", wait=True)[
            0
        ]  # the model works again
        assert waited.status_code == 200 and waited.json()["pending"] is False
        assert [d["summary"] for d in waited.json()["decisions"]] == [FACTS["axolotl"]]
        assert turn_jobs(url, "maya")[maya]["status"] == "parked"  # parked waits for a person

        retried = httpx.post(f"{url}/v1/memory/jobs/retry", headers=as_user("maya"))
        assert retried.status_code == 200 and retried.json() == {"retried": [maya]}  # maya's only
        until("maya's parked turn formed", lambda: FACTS["Zanzibar"] in summaries(url, "maya"))
        assert turn_jobs(url, "noor")[noor]["status"] == "parked"
        again = httpx.post(f"{url}/v1/memory/jobs/retry", headers=as_user("maya"), json={"job_ids": [noor]})
        assert again.json() == {"retried": []}  # another user's job: not maya's to retry

        cli = subprocess.run(
            [sys.executable, "-m", "memlane.cli", "jobs", "retry", "--all"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert cli.returncode == 0, cli.stderr
        assert cli.stdout.strip() == f"1 parked job(s) pending again: {noor}"
        until("noor's parked turn formed", lambda: summaries(url, "noor") == [FACTS["theremin"]])
        bad = subprocess.run(
            [sys.executable, "-m", "memlane.cli", "jobs", "retry"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert bad.returncode == 2 and bad.stderr.startswith("error:") and "--all" in bad.stderr


def test_the_chat_proxy_keeps_the_users_message_when_the_upstream_fails(
    tmp_path: Path, upstream: tuple[ScriptedUpstream, str]
) -> None:
    fake, up_url = upstream
    mem, running = serve(tmp_path, up_url)
    said = {"Zanzibar": "I live in Zanzibar.", "theremin": "I play the theremin."}
    with running as url:
        for (key, text), stream in zip(said.items(), (False, True), strict=True):
            fake.fail_next = (503, {"error": {"message": "overloaded"}})
            r = httpx.post(
                f"{url}/v1/chat/completions",
                headers=OWUI,
                timeout=60,
                json={"model": MODEL, "stream": stream, "messages": [{"role": "user", "content": text}]},
            )
            assert r.status_code == 502 and "overloaded" in r.json()["error"]["message"], key  # a bad gateway
        jobs = wait_jobs_done(url, "maya")  # a done job keeps no user text: the memories show what was formed
        assert [j["status"] for j in jobs if j["kind"] == "turn"] == ["done", "done"]
        assert sorted(r.summary for r in mem.list(user_id="maya")) == [
            "User lives in Zanzibar.",
            "User plays the theremin.",
        ]
    mem.close()


def test_memlane_add_says_the_turn_is_pending_while_the_llm_is_down(
    tmp_path: Path, server: ScriptedChatServer
) -> None:
    server.otherwise = down
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMLANE_", "MEMORY_"))}
    env.update(
        MEMLANE_EMBEDDER="hash",
        MEMLANE_CONFIG=str(tmp_path / "none.toml"),
        MEMLANE_DB=str(tmp_path / "m.db"),
        MEMLANE_LLM="openai",
        MEMLANE_OPENAI_BASE_URL=server.url,
        MEMLANE_LLM_MODEL="test-model",
    )
    add = [sys.executable, "-m", "memlane.cli", "add", "I live in Zanzibar.", "--user", "maya"]
    out = subprocess.run(add, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert (
        out.stdout.startswith("pending (llm_unavailable): the LLM is unavailable")
        and "HTTP 503" in out.stdout
    )
    assert "nothing to remember" not in out.stdout
    as_json = json.loads(
        subprocess.run([*add, "--json"], env=env, capture_output=True, text=True, timeout=120).stdout
    )
    assert as_json["decisions"] == [] and as_json["pending"]["code"] == "llm_unavailable"
