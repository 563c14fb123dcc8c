"""The upstream OpenAI-compatible LLM behind the chat proxy (httpx, one pooled async client).

Upstream failures become the service's error shape: a 4xx keeps its status (the client's request was
refused upstream; the upstream body is in ``details``), except a 401 or 403, which is a 502: the
upstream refused memlane's own key, not the client's. A 5xx or a broken connection is a 502, a
timeout a 504. Nothing is retried here: a chat completion is not idempotent.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx

from memlane.server.errors import ApiError
from memlane.server.metrics import ServerMetrics


class Upstream:
    def __init__(
        self, base_url: str, api_key: str | None, model: str | None, timeout_s: float, metrics: ServerMetrics
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.metrics = metrics
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.client = httpx.AsyncClient(
            base_url=self.base_url,
            headers=headers,
            timeout=httpx.Timeout(timeout_s, connect=min(10.0, timeout_s)),
            limits=httpx.Limits(max_connections=200, max_keepalive_connections=50),
        )

    async def aclose(self) -> None:
        await self.client.aclose()

    async def models(self) -> bytes:
        return await self._json(await self._send("GET", "/models", None, stream=False))

    async def complete(self, body: dict[str, Any]) -> bytes:
        """A non-streaming chat completion: the upstream's JSON bytes, unchanged."""
        return await self._json(await self._send("POST", "/chat/completions", body, stream=False))

    async def open_stream(self, body: dict[str, Any]) -> httpx.Response:
        """A streaming completion whose status is 2xx; read it with :meth:`relay`."""
        return await self._send("POST", "/chat/completions", body, stream=True)

    async def relay(self, reply: httpx.Response, started: float) -> AsyncIterator[bytes]:
        """The upstream's bytes as they come (SSE chunks unchanged)."""
        try:
            async for chunk in reply.aiter_bytes():
                yield chunk
        finally:
            await reply.aclose()
            self.metrics.upstream.labels("total").observe(time.perf_counter() - started)

    async def _send(
        self, method: str, path: str, body: dict[str, Any] | None, *, stream: bool
    ) -> httpx.Response:
        started = time.perf_counter()
        request = self.client.build_request(method, path, json=body)
        try:
            reply = await self.client.send(request, stream=True)
        except httpx.TimeoutException as exc:
            raise ApiError(
                504, "upstream_timeout", f"the upstream LLM at {self.base_url} timed out: {exc}"
            ) from None
        except httpx.HTTPError as exc:
            raise ApiError(
                502,
                "upstream_unreachable",
                f"cannot reach the upstream LLM at {self.base_url}: {type(exc).__name__}: {exc}",
            ) from None
        self.metrics.upstream.labels("first_byte").observe(time.perf_counter() - started)
        if reply.status_code >= 300:
            await self._raise(reply)
        if not stream:
            try:
                await reply.aread()
            except httpx.HTTPError as exc:
                await reply.aclose()
                raise ApiError(
                    502, "upstream_error", f"the upstream LLM broke off its answer: {exc}"
                ) from None
            self.metrics.upstream.labels("total").observe(time.perf_counter() - started)
        return reply

    async def _raise(self, reply: httpx.Response) -> None:
        try:
            raw = await reply.aread()
        except httpx.HTTPError:
            raw = b""
        finally:
            await reply.aclose()
        try:
            details: Any = json.loads(raw)
        except ValueError:
            details = raw.decode("utf-8", "replace")[:2000]
        message = _message(details) or f"HTTP {reply.status_code}"
        if reply.status_code in (401, 403):
            raise ApiError(
                502,
                "upstream_auth_failed",
                f"the upstream LLM at {self.base_url} refused memlane's credentials "
                f"({reply.status_code}: {message}); check MEMLANE_UPSTREAM_API_KEY",
                details,
            )
        status = reply.status_code if 400 <= reply.status_code < 500 else 502
        raise ApiError(
            status, "upstream_error", f"the upstream LLM answered {reply.status_code}: {message}", details
        )

    @staticmethod
    async def _json(reply: httpx.Response) -> bytes:
        await reply.aclose()
        try:
            json.loads(reply.content)
        except ValueError:
            raise ApiError(
                502,
                "upstream_error",
                "the upstream LLM answered with something that is not JSON",
                reply.text[:2000],
            ) from None
        return reply.content


def _message(details: Any) -> str | None:
    if isinstance(details, dict):
        err = details.get("error")
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            return str(err["message"])
        if isinstance(err, str):
            return err
        if isinstance(details.get("message"), str):
            return str(details["message"])
    return details[:300] if isinstance(details, str) and details else None
