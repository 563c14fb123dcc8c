"""A cap on request bodies (``MEMLANE_MAX_BODY_BYTES``): a larger body is a 413 with the usual JSON
error, refused from its ``Content-Length`` before anything is read, or, for a chunked body, as soon
as what arrived passes the cap (nothing is parsed or stored)."""

from __future__ import annotations

from typing import Any

from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memlane.server.errors import error_response


def _message(limit: int) -> str:
    return f"request body is over the limit of {limit} bytes (MEMLANE_MAX_BODY_BYTES); send less"


class BodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await error_response(413, "payload_too_large", _message(self.max_bytes))(scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message: dict[str, Any] = dict(await receive())
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:  # the route's body read fails; the error handler answers
                    raise HTTPException(413, _message(self.max_bytes))
            return message

        await self.app(scope, counted, send)
