"""``GET /v1/memory/events``: the user's ``memory.*`` events as Server-Sent Events, as they happen.

The event bus calls listeners synchronously on the thread that published (a request thread for
``memory.candidate``, the formation worker for decisions); each connection bridges them into its own
asyncio queue with ``loop.call_soon_threadsafe``. The first event, ``ready``, says the subscription is
live. A ``: ping`` comment keeps idle connections open.

Every write's event carries the user's change sequence as its SSE ``id``; candidates and errors,
which change nothing, carry the sequence of the last write sent before them. A client that reconnects with ``Last-Event-ID`` (browsers send it
by themselves) first gets the writes it missed, replayed from the change log, then the live stream.
A client too slow to keep up (over ``QUEUE_MAX`` undelivered events) gets a ``memory.error`` with
code ``overflow`` and the stream ends: reconnecting with ``Last-Event-ID`` replays what it missed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Depends, Header, Query
from fastapi.responses import StreamingResponse

from memlane.ledger.change_events import event_from_change
from memlane.ledger.events import EVENT_TYPES, MemoryEvent
from memlane.server.auth import User
from memlane.server.errors import ApiError, error_responses
from memlane.server.state import ServerState, get_state

router = APIRouter(prefix="/v1/memory", tags=["events"])
QUEUE_MAX = 1000
REPLAY_PAGE = 200
TYPES_PATTERN = (
    r"^("
    + "|".join(t.replace(".", r"\.") for t in EVENT_TYPES)
    + r")(,("
    + "|".join(t.replace(".", r"\.") for t in EVENT_TYPES)
    + r"))*$"
)


EVENT_SCHEMA = {
    "type": "object",
    "description": "One event: `ready` first, then memory.* events; data is JSON (a MemoryEvent)",
    "properties": {
        "event": {"enum": ["ready", *EVENT_TYPES]},
        "id": {"type": "string"},
        "data": {"type": "string", "contentMediaType": "application/json"},
        "retry": {"type": "integer", "minimum": 0},
    },
    "required": ["event", "data"],
}


def frame(event: str, data: str, event_id: int | None = None) -> bytes:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {data}\n\n".encode()


class Subscription:
    """One connection's queue, fed from any thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop, types: set[str], thread_id: str | None) -> None:
        self.loop, self.types, self.thread_id = loop, types, thread_id
        self.queue: asyncio.Queue[MemoryEvent] = asyncio.Queue()
        self.overflowed = False

    def wants(self, event: MemoryEvent) -> bool:
        return event.type in self.types and (self.thread_id is None or event.thread_id == self.thread_id)

    def deliver(self, event: MemoryEvent) -> None:  # called on the publishing thread
        if not self.wants(event):
            return
        with contextlib.suppress(RuntimeError):  # the loop is closed: this connection is gone
            self.loop.call_soon_threadsafe(self._put, event)

    def _put(self, event: MemoryEvent) -> None:
        if self.queue.qsize() >= QUEUE_MAX:
            self.overflowed = True
        else:
            self.queue.put_nowait(event)


@router.get(
    "/events",
    response_class=StreamingResponse,
    responses={
        **error_responses(400, 401, 403, 422),
        200: {
            "description": "text/event-stream of memory.* events (id, event, data = the event as JSON)",
            "content": {"text/event-stream": {"schema": EVENT_SCHEMA}},
        },
    },
    summary="Stream the user's memory events (SSE)",
)
async def events(
    user: User,
    state: Annotated[ServerState, Depends(get_state)],
    types: Annotated[
        str | None, Query(pattern=TYPES_PATTERN, description="Comma-separated event types (default: all).")
    ] = None,
    thread_id: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=256,
            pattern=r"^[^\x00-\x1f\x7f]+$",
            description="Only events of this thread.",
        ),
    ] = None,
    heartbeat: Annotated[
        float, Query(ge=0.5, le=300, description="Seconds between keep-alive comments.")
    ] = 15.0,
    last_event_id: Annotated[
        str | None,
        Header(
            description=(
                "The id of the last event received: the writes after it are replayed from the change log first"
            )
        ),
    ] = None,
) -> StreamingResponse:
    wanted = set(types.split(",")) if types else set(EVENT_TYPES)
    after = _event_id(last_event_id)
    backend = state.memory.backend

    async def stream() -> AsyncIterator[bytes]:
        sub = Subscription(asyncio.get_running_loop(), wanted, thread_id)
        unsubscribe = state.memory.events.subscribe(sub.deliver, user_id=user)  # before the replay: no gap
        seen = after or 0
        try:
            yield b"retry: 3000\n\n" + frame("ready", json.dumps({"user_id": user, "types": sorted(wanted)}))
            while after is not None:
                page = await asyncio.to_thread(backend.changes.changes_after, user, seen, limit=REPLAY_PAGE)
                for change in page:
                    seen = change.seq
                    event = event_from_change(change)
                    if sub.wants(event):
                        yield frame(event.type, event.model_dump_json(), event.seq)
                if len(page) < REPLAY_PAGE:
                    break
            while True:
                if sub.overflowed and sub.queue.empty():
                    yield frame(
                        "memory.error",
                        json.dumps(
                            {
                                "type": "memory.error",
                                "user_id": user,
                                "data": {
                                    "code": "overflow",
                                    "message": f"over {QUEUE_MAX} undelivered events; reconnect with "
                                    "Last-Event-ID to replay the writes missed",
                                },
                            }
                        ),
                    )
                    return
                try:
                    event = await asyncio.wait_for(sub.queue.get(), timeout=heartbeat)
                except TimeoutError:
                    yield b": ping\n\n"
                    continue
                if event.seq is not None:
                    if event.seq <= seen:  # already replayed
                        continue
                    seen = event.seq
                yield frame(event.type, event.model_dump_json(), seen)
        finally:
            unsubscribe()

    return StreamingResponse(
        stream(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


MAX_EVENT_ID = 2**63 - 1  # change-log sequences are 64-bit integers in both databases


def _event_id(value: str | None) -> int | None:
    """The Last-Event-ID as a sequence: ASCII digits up to the largest 64-bit one, else a 400 (a larger
    number would abort the stream in the database driver)."""
    if value is None or not value.strip():
        return None
    digits = value.strip()
    if not (digits.isascii() and digits.isdigit() and len(digits) <= 19 and int(digits) <= MAX_EVENT_ID):
        raise ApiError(
            400,
            "invalid_request",
            f"Last-Event-ID must be the id of an event of this stream "
            f"(a whole number from 0 to {MAX_EVENT_ID}), got {value[:40]!r}",
        )
    return int(digits)
