"""A scripted OpenAI-compatible ``/v1/chat/completions`` server on 127.0.0.1 (the provider boundary of
the openai client tests): replies are queued per test, requests are recorded. When none is queued,
``otherwise`` (a function of the request's JSON, if set) answers, else HTTP 500: a test scripts an
outage and the recovery after it that way."""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from memlane.providers.llm.openai import OpenAILLM


@dataclass
class Reply:
    content: str | None = None
    status: int = 200
    delay: float = 0.0


class ScriptedChatServer:
    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.otherwise: Callable[[dict[str, Any]], Reply] | None = None
        self.stopping = threading.Event()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def reply(self, content: str | dict[str, Any] | None, *, status: int = 200, delay: float = 0.0) -> None:
        text = json.dumps(content) if isinstance(content, dict) else content
        self.replies.append(Reply(text, status, delay))

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                request = json.loads(body)
                server.requests.append({"path": self.path, "json": request})
                answer = server.otherwise
                reply = (
                    server.replies.popleft()
                    if server.replies
                    else answer(request)
                    if answer
                    else Reply(None, 500)
                )
                if reply.delay:
                    server.stopping.wait(reply.delay)
                if reply.status == 200:
                    payload: dict[str, Any] = {
                        "id": "chatcmpl-test",
                        "object": "chat.completion",
                        "created": 0,
                        "model": "test-model",
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": reply.content},
                                "finish_reason": "stop",
                            }
                        ],
                    }
                else:
                    payload = {"error": {"message": "scripted error", "type": "invalid_request_error"}}
                data = json.dumps(payload).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


@pytest.fixture
def server() -> Iterator[ScriptedChatServer]:
    s = ScriptedChatServer()
    s.thread.start()
    try:
        yield s
    finally:
        s.stopping.set()
        s.httpd.shutdown()
        s.httpd.server_close()


def openai_llm(server: ScriptedChatServer, **options: Any) -> OpenAILLM:
    return OpenAILLM(model="test-model", base_url=server.url, api_key="test-key", timeout=5.0, **options)
