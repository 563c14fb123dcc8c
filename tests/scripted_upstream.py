"""A scripted OpenAI-compatible upstream LLM on loopback, and a helper to run ASGI apps there.

This is a fake at the provider boundary, and says so: it does not generate anything. It answers
``POST /v1/chat/completions`` (plain JSON, or ``text/event-stream`` chunks with ``stream: true``) with
the replies a test queued (``script``), or with ``DEFAULT_REPLY``, and ``GET /v1/models`` with one
model. It records every request it received (``requests``) so a test can check what the memlane
proxy forwarded: the injected system prompt, the fields passed through unchanged. ``fail_next``
makes the next completion answer with an error status. It is a real HTTP server (uvicorn on
127.0.0.1), so the proxy's httpx client, streaming and connection handling are exercised for real.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

DEFAULT_REPLY = "Scripted answer."
MODEL = "scripted-model"


class LoopbackServer:
    """uvicorn serving ``app`` on 127.0.0.1 and a free port, in a background thread."""

    def __init__(self, app: Any, *, log_level: str = "warning") -> None:
        # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say so (else 40 ms ACK delays)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.sock = sock
        self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            app, log_level=log_level, lifespan="on", timeout_graceful_shutdown=2, timeout_keep_alive=30
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)

    def __enter__(self) -> LoopbackServer:
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the loopback server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(15)
        self.sock.close()


@dataclass
class ScriptedUpstream:
    script: deque[str] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    fail_next: tuple[int, dict[str, Any]] | None = None
    chunk_delay: float = 0.0

    def reply(self) -> str:
        return self.script.popleft() if self.script else DEFAULT_REPLY

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/chat/completions", self.chat, methods=["POST"]),
                Route("/v1/models", self.models, methods=["GET"]),
            ]
        )

    async def models(self, request: Request) -> Response:
        return JSONResponse(
            {
                "object": "list",
                "data": [{"id": MODEL, "object": "model", "created": 0, "owned_by": "scripted"}],
            }
        )

    async def chat(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        if self.fail_next is not None:
            (status, payload), self.fail_next = self.fail_next, None
            return JSONResponse(payload, status_code=status)
        text, model = self.reply(), body.get("model") or MODEL
        if body.get("stream"):
            return StreamingResponse(self._chunks(text, model), media_type="text/event-stream")
        return JSONResponse(
            {
                "id": "chatcmpl-scripted",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        )

    async def _chunks(self, text: str, model: str) -> AsyncIterator[bytes]:
        words = text.split(" ")
        for n, word in enumerate(words):
            delta: dict[str, Any] = {"content": word if n == 0 else " " + word}
            if n == 0:
                delta["role"] = "assistant"
            yield _sse(
                {
                    "id": "chatcmpl-scripted",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
                }
            )
            if self.chunk_delay:
                await asyncio.sleep(self.chunk_delay)
        yield _sse(
            {
                "id": "chatcmpl-scripted",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": model,
                "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            }
        )
        yield b"data: [DONE]\n\n"


def _sse(obj: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(obj)}\n\n".encode()


@contextmanager
def scripted_upstream() -> Iterator[tuple[ScriptedUpstream, str]]:
    """A running scripted upstream and its OpenAI base URL (``.../v1``)."""
    fake = ScriptedUpstream()
    with LoopbackServer(fake.app()) as server:
        yield fake, f"{server.url}/v1"


@pytest.fixture
def upstream() -> Iterator[tuple[ScriptedUpstream, str]]:
    """The scripted upstream of a test (conftest registers this fixture)."""
    with scripted_upstream() as up:
        yield up


# --- the memlane service under test, on loopback --------------------------------------------------
@contextmanager
def running_memlane(memory: Any, **settings: Any) -> Iterator[str]:
    """``memlane.server.create_app(memory, settings)`` served on loopback; yields its base URL."""
    from memlane.server import create_app

    app = create_app(memory, settings=memory.settings.model_copy(update=settings))
    with LoopbackServer(app) as server:
        yield server.url


@dataclass
class SseEvent:
    event: str
    data: Any
    id: str | None
    received: float  # time.monotonic() when the client read it


class SseClient:
    """Reads ``text/event-stream`` in a background thread into a queue (what a browser's EventSource does)."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        import queue

        import httpx

        self.events: queue.Queue[SseEvent] = queue.Queue()
        self.status: int | None = None
        self._client = httpx.Client(timeout=httpx.Timeout(30, read=None))
        self._url, self._headers = url, headers
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._stop = threading.Event()

    def _run(self) -> None:
        try:
            self._read()
        except Exception:
            if not self._stop.is_set():  # closing the client mid-read is how a test hangs up
                raise

    def _read(self) -> None:
        with self._client.stream("GET", self._url, headers=self._headers) as resp:
            self.status = resp.status_code
            event, ident = "message", None
            data: list[str] = []
            for line in resp.iter_lines():
                if self._stop.is_set():
                    return
                if line == "":
                    if data:
                        raw = "\n".join(data)
                        try:
                            parsed: Any = json.loads(raw)
                        except ValueError:
                            parsed = raw
                        self.events.put(SseEvent(event, parsed, ident, time.monotonic()))
                    event, ident = "message", None
                    data = []
                elif line.startswith(":"):
                    continue
                else:
                    name, _, value = line.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    if name == "event":
                        event = value
                    elif name == "data":
                        data.append(value)
                    elif name == "id":
                        ident = value

    def __enter__(self) -> SseClient:
        self._thread.start()
        ready = self.next(10)
        assert ready.event == "ready", ready
        return self

    def next(self, timeout: float = 10) -> SseEvent:
        return self.events.get(timeout=timeout)

    def wait_for(self, event: str, timeout: float = 10) -> SseEvent:
        deadline = time.monotonic() + timeout
        while True:
            got = self.next(max(0.01, deadline - time.monotonic()))
            if got.event == event:
                return got

    def drain(self, quiet: float = 0.3) -> list[SseEvent]:
        import queue

        out = []
        while True:
            try:
                out.append(self.events.get(timeout=quiet))
            except queue.Empty:
                return out

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._client.close()
        self._thread.join(5)
