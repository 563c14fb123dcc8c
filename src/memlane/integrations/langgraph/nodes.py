"""Ready graph nodes, formation before the agent and the context block for it:

- ``memory_hotpath(memory)`` runs formation (``Memory.add``) on the state's last user message and streams
  memlane's ``memory.*`` events for that user (``memory.candidate`` at once; ``memory.created`` /
  ``updated`` / ``merged`` too when decisions run in the node, ``wait=True``) to
  ``graph.stream(..., stream_mode="custom")``, as SSE-ready dicts.
- ``memory_context(memory)`` puts the turn's context block (``Memory.context``) into ``messages`` as one
  system message (replacing the previous turn's) and keeps the thread's memory revision in
  ``memory_rev``, so the next block carries the delta header of what changed since.
- ``episodic_capture(memory)`` runs after the agent: the finished turn (the last user message, the
  answer, tool calls and results) goes to ``Memory.capture_turn``, which keeps it as an episode when it
  had an outcome. The user's time zone is ``config["configurable"]["time_zone"]`` or
  ``["user_context"]["locale_info"]["time_zone"]`` (default ``MEMLANE_TIMEZONE``).

Each node takes a Memory, or uses the one behind the graph's ``MemlaneStore``. On any other ``BaseStore``
(``S3VectorsStore``, LangGraph's ``InMemoryStore``, ...) they take the plain path of ``plain.py``, with
less: ``memory_hotpath`` forms nothing (no extraction, no dedup: memories come from the put tools),
``memory_context`` lists the store's best matching items (no delta header), ``episodic_capture`` keeps
every answered turn as an episodic item (no outcome filter, no merging); no ``memory.*`` events.

The user and thread are ``config["configurable"]["user_id"]`` and ``["thread_id"]``. The state needs
LangGraph's ``add_messages`` reducer (``MessagesState``); :class:`MemoryState` adds ``memory_rev``.
"""

from __future__ import annotations

import queue
import uuid
from collections.abc import Callable
from typing import Any, Protocol

from langchain_core.messages import BaseMessage, RemoveMessage, SystemMessage, convert_to_messages
from langchain_core.runnables import RunnableConfig
from langgraph.graph import MessagesState

from memlane.engine.memory import Memory
from memlane.integrations.langgraph import plain
from memlane.integrations.langgraph.tools import configured, last_user_text, target_of
from memlane.ledger.events import MemoryEvent

CONTEXT_ID = "memlane-context-"  # id prefix of the context system message


class MemoryState(MessagesState, total=False):
    memory_rev: int  # the thread's memory revision the last context block carried


class Node(Protocol):
    """A graph node: ``(state, config) -> state update``."""

    def __call__(self, state: MemoryState, config: RunnableConfig) -> dict[str, Any]: ...


def _writer() -> Callable[[Any], None]:
    from langgraph.config import get_stream_writer

    try:
        return get_stream_writer()
    except RuntimeError:  # called outside a graph run: nothing to stream to
        return lambda _chunk: None


def event_payload(event: MemoryEvent) -> dict[str, Any]:
    """``{"type": "memory.candidate", "user_id", "thread_id", "memory_id", "data", "at"}``."""
    return event.model_dump(mode="json")


def _streaming(mem: Memory, user: str, run: Callable[[], object]) -> None:
    """``run()``, streaming the user's ``memory.*`` events it (and the worker meanwhile) publishes."""
    write = _writer()
    events: queue.SimpleQueue[MemoryEvent] = queue.SimpleQueue()
    unsubscribe = mem.events.subscribe(events.put, user_id=user)
    try:
        run()
    finally:
        unsubscribe()
        while not events.empty():  # written from the node's own thread, in publication order
            write(event_payload(events.get()))


def memory_hotpath(memory: Memory | None = None, *, wait: bool = False) -> Node:
    """A node that forms memories from the last user message (non-blocking unless ``wait``); on a plain
    store it does nothing (formation needs memlane's Memory)."""

    def memory_hotpath(state: MemoryState, config: RunnableConfig) -> dict[str, Any]:
        text = last_user_text(state.get("messages", []))
        if not text:
            return {}
        mem, user = target_of(memory, "memory_hotpath"), configured(config, "user_id")
        if not isinstance(mem, Memory):
            return {}
        thread = configured(config, "thread_id", required=False)
        _streaming(
            mem,
            user,
            lambda: mem.add([{"role": "user", "content": text}], user_id=user, thread_id=thread, wait=wait),
        )
        return {}

    return memory_hotpath


ROLES = {"human": "user", "ai": "assistant", "tool": "tool"}


def last_turn(messages: list[Any]) -> list[dict[str, str]]:
    """The finished turn: from the last user message to the end, system messages left out."""
    found = convert_to_messages(list(messages or []))
    start = max((i for i, m in enumerate(found) if m.type == "human"), default=None)
    if start is None:
        return []
    return [
        {"role": ROLES[m.type], "content": m.text}
        for m in found[start:]
        if m.type in ROLES and m.text.strip()
    ]


def episodic_capture(memory: Memory | None = None, *, wait: bool = False) -> Node:
    """A node after the agent: the finished turn through the episodic capture (non-blocking unless ``wait``)."""

    def episodic_capture(state: MemoryState, config: RunnableConfig) -> dict[str, Any]:
        turn = last_turn(state.get("messages", []))
        if not turn:
            return {}
        mem, user = target_of(memory, "episodic_capture"), configured(config, "user_id")
        if not isinstance(mem, Memory):
            plain.capture_turn(mem, user, turn, thread_id=configured(config, "thread_id", required=False))
            return {}
        conf = (config or {}).get("configurable") or {}
        tz = conf.get("time_zone") or ((conf.get("user_context") or {}).get("locale_info") or {}).get(
            "time_zone"
        )
        _streaming(
            mem,
            user,
            lambda: mem.capture_turn(
                turn,
                user_id=user,
                time_zone=tz,
                wait=wait,
                thread_id=configured(config, "thread_id", required=False),
            ),
        )
        return {}

    return episodic_capture


def memory_context(
    memory: Memory | None = None, *, budget_tokens: int | None = None, agent: str | None = None
) -> Node:
    """A node that adds the context block for the last user message as a system message."""

    def memory_context(state: MemoryState, config: RunnableConfig) -> dict[str, Any]:
        messages = state.get("messages", [])
        text = last_user_text(messages)
        if not text:
            return {}
        mem, user = target_of(memory, "memory_context"), configured(config, "user_id")
        rev: int | None
        if isinstance(mem, Memory):
            block = mem.context(
                text,
                user_id=user,
                thread_id=configured(config, "thread_id", required=False),
                since_rev=state.get("memory_rev"),
                budget_tokens=budget_tokens,
                agent=agent,
            )
            body, rev = block.text, block.rev
        else:
            body, rev = plain.context_text(mem, user, text), state.get("memory_rev")
        update: list[BaseMessage] = [
            RemoveMessage(id=m.id)
            for m in messages
            if isinstance(m, BaseMessage) and m.id and m.id.startswith(CONTEXT_ID)
        ]
        if body.strip():
            update.append(SystemMessage(content=body, id=f"{CONTEXT_ID}{uuid.uuid4().hex[:12]}"))
        return {"messages": update} if rev is None else {"messages": update, "memory_rev": rev}

    return memory_context
