"""OpenAI-compatible ``POST /v1/chat/completions`` and ``GET /v1/models`` in front of an upstream LLM.

With a user (``X-OpenWebUI-User-Id`` or ``X-Memlane-User`` with an admin key, or a user-bound key) the
proxy builds the context block for the user's last message (thread and chat = ``X-OpenWebUI-Chat-Id``),
injects it into the system prompt, forwards everything else unchanged, relays the answer unchanged
(SSE chunks byte for byte when streaming). Once the upstream has answered, and before the first byte
of the answer goes out, the user's last message is committed as a turn job (``Memory.enqueue_turn``, a
local write): the background worker forms memories from it, also after a crash or restart. When the
upstream fails (a 5xx, a timeout, no connection), the message is committed all the same before the error
goes out (docs/outages.md). Once the answer is complete (the stream ended), the turn with the answer
goes to the episodic capture (``Memory.capture_turn``, also a committed job). With a chat id, the request's new user messages are
recorded in the chat's session before the upstream is called, and the answer once complete
(:mod:`memlane.server.chat_record`). Without a
user: anonymous mode, no memory read or written. Open WebUI's own task prompts (``### Task:``) are forwarded without memory.
A temporary chat of Open WebUI (a chat id starting ``temporary:``) reads the user's memories but forms none:
nothing it says is committed, captured or recorded.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable
from typing import Annotated, Any, TypeVar

import anyio
import httpx
from fastapi import APIRouter, Depends
from fastapi.responses import Response, StreamingResponse

from memlane.ledger.events import MemoryEvent
from memlane.model.errors import MemlaneError
from memlane.server.auth import Caller, ChatUser
from memlane.server.chat_capture import answer_text, streamed_text
from memlane.server.chat_header import ChatIdHeader
from memlane.server.chat_messages import ChatCompletionRequest, inject, is_task, last_user_text
from memlane.server.chat_record import record_answer, record_request
from memlane.server.errors import ApiError, error_responses
from memlane.server.state import ServerState, get_state
from memlane.server.upstream import Upstream

log = logging.getLogger("memlane.server.chat")
router = APIRouter(prefix="/v1", tags=["openai"])
State = Annotated[ServerState, Depends(get_state)]
T = TypeVar("T")
FREEFORM = {"type": "object", "additionalProperties": True}
SSE_EVENT = {
    "type": "object",
    "description": "One server-sent event (the upstream's chunk in data)",
    "properties": {
        "event": {"type": "string"},
        "data": {"type": "string"},
        "id": {"type": "string"},
        "retry": {"type": "integer", "minimum": 0},
    },
    "required": ["data"],
}
CHAT_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The upstream's answer, unchanged: a chat.completion object, or with stream=true "
        "its chat.completion.chunk events",
        "content": {"application/json": {"schema": FREEFORM}, "text/event-stream": {"schema": SSE_EVENT}},
        "headers": {
            "X-Memlane-Mode": {
                "required": True,
                "schema": {"enum": ["memory", "temporary", "anonymous", "task"]},
                "description": "memory: retrieved and formed; temporary: an Open WebUI temporary "
                "chat, retrieved but not formed; anonymous: no user; task: an "
                "Open WebUI task prompt, forwarded without memory",
            },
            "X-Memlane-Memories": {
                "schema": {"type": "integer", "minimum": 0},
                "description": "How many memories were injected (memory and temporary modes)",
            },
        },
    },
    **error_responses(400, 401, 403, 413, 422, 502, 503, 504),
    "4XX": {
        "description": "The upstream refused the request (its status; its body in error.details). An "
        "upstream 401 or 403 is a 502 upstream_auth_failed: memlane's upstream key was refused",
        "model": error_responses(400)[400]["model"],
    },
}


async def _memories(state: ServerState, user: str, thread: str | None, query: str) -> tuple[str, int]:
    since = state.last_rev(user, thread) if thread else None
    call = functools.partial(
        state.memory.context, query, user_id=user, thread_id=thread, chat_id=thread, since_rev=since
    )  # the chat's own earlier sessions and messages
    block = await anyio.to_thread.run_sync(call)
    if thread:
        state.saw_rev(user, thread, block.rev)
    hits = len(block.semantic) + len(block.episodic) + len(block.shared) + len(block.sessions)
    return block.text.strip(), hits + len(block.messages)


async def _record(
    state: ServerState, user: str, thread: str | None, call: functools.partial[Any], code: str
) -> None:
    """Run a local write of the turn. A failure does not withhold the upstream's answer: it is logged,
    counted and published as ``memory.error`` (``code``) on the user's event stream."""
    try:
        await anyio.to_thread.run_sync(call)
    except Exception as exc:  # noqa: BLE001 - reported below, never silently dropped
        log.error(
            "chat turn of user %s not recorded (%s): %s: %s",
            user,
            code,
            type(exc).__name__,
            exc,
            exc_info=not isinstance(exc, MemlaneError),
        )
        state.metrics.background_failures.inc()
        state.memory.events.publish(
            MemoryEvent(
                type="memory.error",
                user_id=user,
                thread_id=thread,
                data={"code": code, "message": f"{type(exc).__name__}: {exc}"},
            )
        )


async def _enqueue(state: ServerState, user: str, thread: str | None, text: str) -> None:
    """Commit the user's message as a turn job (the hot path)."""
    await _record(
        state,
        user,
        thread,
        functools.partial(
            state.memory.enqueue_turn, [{"role": "user", "content": text}], user_id=user, thread_id=thread
        ),
        "formation_failed",
    )


async def _capture(state: ServerState, user: str, thread: str | None, text: str, answer: str) -> None:
    """The finished turn, with the answer, to the episodic capture (a committed job)."""
    turn = [{"role": "user", "content": text}] + (
        [{"role": "assistant", "content": answer}] if answer.strip() else []
    )
    await _record(
        state,
        user,
        thread,
        functools.partial(state.memory.capture_turn, turn, user_id=user, thread_id=thread),
        "capture_failed",
    )


async def _or_enqueue(
    call: Awaitable[T], state: ServerState, user: str | None, thread: str | None, text: str
) -> T:
    """The upstream's answer; when the upstream fails (a 5xx, a timeout, no connection), the user's
    message is still committed as a turn (the user said it), then the failure goes to the client. A
    request the upstream refused as the client's mistake (a 4xx) is not: the client sends it again."""
    try:
        return await call
    except Exception as exc:
        if user is not None and text and not (isinstance(exc, ApiError) and exc.status < 500):
            await _enqueue(state, user, thread, text)
        raise


def _chat_to_record(state: ServerState, user: str | None, chat: str | None, mode: str) -> str | None:
    """The chat whose messages the proxy records (docs/sessions.md), or None: a memory-mode request that
    names a chat, with session memory and CONTEXT_SESSION_PROXY_RECORDING_ENABLED on."""
    on = (
        state.memory.settings.context_session_memory_enabled
        and state.settings.context_session_proxy_recording_enabled
    )
    return chat if on and user is not None and mode == "memory" else None


async def _after_answer(
    state: ServerState,
    user: str | None,
    thread: str | None,
    text: str,
    answer: str,
    recorded_chat: str | None,
) -> None:
    """The finished turn to the episodic capture, and the answer to the chat's session."""
    if user is not None and text:
        await _capture(state, user, thread, text, answer)
    if user is not None and recorded_chat is not None:
        await _record(
            state,
            user,
            thread,
            functools.partial(record_answer, state.memory, user, recorded_chat, answer),
            "session_record_failed",
        )


async def _relay_then_capture(
    state: ServerState,
    upstream: Upstream,
    reply: httpx.Response,
    started: float,
    user: str | None,
    thread: str | None,
    text: str,
    recorded_chat: str | None,
) -> AsyncIterator[bytes]:
    """The upstream's chunks unchanged; once the stream has ended, the turn goes to the capture."""
    chunks: list[bytes] = []
    async for chunk in upstream.relay(reply, started):
        chunks.append(chunk)
        yield chunk
    await _after_answer(state, user, thread, text, streamed_text(chunks), recorded_chat)


TEMPORARY_CHAT = "temporary:"  # Open WebUI's chat id prefix for a chat it does not keep


@router.post(
    "/chat/completions",
    response_model=None,
    responses=CHAT_RESPONSES,
    summary="OpenAI-compatible chat completion with memory",
)
async def chat_completions(
    body: ChatCompletionRequest, user: ChatUser, state: State, chat_id: ChatIdHeader = None
) -> Response:
    upstream = state.require_upstream()
    payload = body.model_dump(exclude_unset=True)
    if not payload.get("model") and upstream.model:
        payload["model"] = upstream.model
    messages: list[dict[str, Any]] = payload["messages"]
    mode = (
        "anonymous"
        if user is None
        else "task"
        if is_task(messages)
        else "temporary"
        if chat_id is not None and chat_id.startswith(TEMPORARY_CHAT)
        else "memory"
    )
    state.metrics.proxy.labels(mode).inc()
    headers = {"X-Memlane-Mode": mode}
    asked = last_user_text(messages).replace("\x00", "").strip() if mode in ("memory", "temporary") else ""
    if user is not None and asked:
        memories, count = await _memories(state, user, chat_id, asked)
        headers["X-Memlane-Memories"] = str(count)
        if memories:
            payload["messages"] = inject(messages, memories)
    text = (
        asked if mode == "memory" else ""
    )  # what is remembered (no NUL in a store); a temporary chat: nothing
    recorded_chat = _chat_to_record(state, user, chat_id, mode)
    if user is not None and recorded_chat is not None:  # before the upstream: the user said it either way
        await _record(
            state,
            user,
            chat_id,
            functools.partial(record_request, state.memory, user, recorded_chat, messages),
            "session_record_failed",
        )

    started = time.perf_counter()
    if payload.get("stream"):
        reply = await _or_enqueue(upstream.open_stream(payload), state, user, chat_id, text)
        if user is not None and text:
            try:
                await _enqueue(state, user, chat_id, text)
            except BaseException:  # cancelled while committing: no response will read the reply
                await reply.aclose()
                raise
        return StreamingResponse(
            _relay_then_capture(state, upstream, reply, started, user, chat_id, text, recorded_chat),
            media_type=reply.headers.get("content-type", "text/event-stream"),
            headers={**headers, "Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    answer = await _or_enqueue(upstream.complete(payload), state, user, chat_id, text)
    if user is not None and text:
        await _enqueue(state, user, chat_id, text)
    await _after_answer(state, user, chat_id, text, answer_text(answer), recorded_chat)
    return Response(answer, media_type="application/json", headers=headers)


@router.get(
    "/models",
    response_model=None,
    summary="The upstream's models (OpenAI-compatible)",
    responses={
        200: {
            "description": "The upstream's model list, unchanged",
            "content": {"application/json": {"schema": FREEFORM}},
        },
        **error_responses(401, 403, 502, 503, 504),
        "4XX": {
            "description": "The upstream refused the request (an upstream 401 or 403 is a 502)",
            "model": error_responses(400)[400]["model"],
        },
    },
)
async def models(_: Caller, state: State) -> Response:
    return Response(await state.require_upstream().models(), media_type="application/json")
