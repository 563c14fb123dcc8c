"""A proxied chat turn is committed before its answer goes out: ``kill -9`` of the server right after
each answer (streamed or not) loses none of them.

Real parts: ``memlane serve`` in its own process (uvicorn on loopback) over a SQLite file, with the hash
embedder; the upstream LLM is the scripted fake on loopback (tests/scripted_upstream.py).
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from memlane import Memory
from memlane.model.config import Settings
from memlane.model.jobs import JobStatus
from tests.scripted_upstream import DEFAULT_REPLY, MODEL, ScriptedUpstream

USER = {"X-OpenWebUI-User-Id": "maya", "X-OpenWebUI-Chat-Id": "chat-1"}
TURNS = [f"My colleague Person{n} lives in City{n}." for n in range(8)]
START_TIMEOUT = 120.0  # seconds for the server process to listen (imports; far more on a busy machine)


@contextmanager
def server_process(tmp_path: Path, db: str, upstream_url: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``memlane serve`` on a free loopback port; yields the process and its URL (killed on exit if alive)."""
    env = {
        **os.environ,
        "MEMLANE_EMBEDDER": "hash",
        "MEMLANE_CONFIG": str(tmp_path / "none.toml"),
        "MEMLANE_UPSTREAM_MODEL": MODEL,
    }
    env.pop("MEMLANE_API_KEYS", None)
    with open(tmp_path / "server.log", "a") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from memlane.cli.app import main; main()",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--db",
                db,
                "--upstream",
                upstream_url,
                "--log-level",
                "warning",
            ],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            env=env,
        )
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + START_TIMEOUT
        line = ""
        while "listening on" not in line:
            ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if not ready or proc.poll() is not None:
                pytest.fail(f"memlane serve did not start: {(tmp_path / 'server.log').read_text()[-2000:]}")
            line = proc.stdout.readline()
        match = re.search(r"listening on (http://\S+)", line)
        assert match, line
        yield proc, match.group(1)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(30)
        if proc.stdout is not None:
            proc.stdout.close()


def ask(url: str, text: str, *, stream: bool) -> str:
    """One proxied turn, read to its end, as a chat client does."""
    body = {"model": MODEL, "stream": stream, "messages": [{"role": "user", "content": text}]}
    if not stream:
        reply = httpx.post(f"{url}/v1/chat/completions", json=body, headers=USER, timeout=60)
        assert reply.status_code == 200, reply.text
        content: str = reply.json()["choices"][0]["message"]["content"]
        return content
    with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, headers=USER, timeout=60) as reply:
        assert reply.status_code == 200
        raw = reply.read().decode()
    assert raw.rstrip().endswith("data: [DONE]")
    return "".join(re.findall(r'"content": "([^"]*)"', raw))


def test_every_answered_turn_survives_kill_9_right_after_the_answer(
    tmp_path: Path, upstream: tuple[ScriptedUpstream, str]
) -> None:
    _, up_url = upstream
    db = str(tmp_path / "chat.db")
    for n, text in enumerate(TURNS):
        with server_process(tmp_path, db, up_url) as (proc, url):
            assert ask(url, text, stream=n % 2 == 1) == DEFAULT_REPLY
            os.kill(proc.pid, signal.SIGKILL)  # right after the answer: no shutdown, no background work
            assert proc.wait(30) == -signal.SIGKILL

    with Memory(db, settings=Settings(db=db, embedder="hash")) as mem:
        turns = [j for j in mem.jobs.list(user_id="maya", limit=1000) if j.kind == "turn"]
        # a turn still to do keeps the user's words; a done one has already become candidate jobs
        waiting = [j.payload["messages"][-1]["content"] for j in turns if j.status is not JobStatus.DONE]
        done = [j for j in turns if j.status is JobStatus.DONE]
        assert len(turns) == len(TURNS), f"{len(turns)} of {len(TURNS)} answered turns were recorded"
        assert sorted(waiting) == sorted(set(waiting)) and set(waiting) <= set(TURNS)
        assert all(j.payload["candidate_jobs"] for j in done)  # each said something worth remembering
