"""An example graph: ``START → memory_hotpath → memory_context → agent → episodic_capture → END``.

    from langchain_openai import ChatOpenAI   # any LangChain chat model
    with example_graph(ChatOpenAI(model="gpt-4o-mini")) as graph:
        config = {"configurable": {"user_id": "maya", "thread_id": "t1"}}
        for event in graph.stream({"messages": [("user", "I moved to Lisbon.")]}, config, stream_mode="custom"):
            print(event)                      # memlane's memory.* events, as SSE-ready dicts

Memories live where ``MEMLANE_DB`` (or ``db``) says. When that is a PostgreSQL URL, the graph's
checkpoints go to the same database through ``langgraph-checkpoint-postgres``, so a
thread survives restarts; otherwise they are kept in memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from memlane.engine.memory import Memory
from memlane.integrations.langgraph.nodes import MemoryState, episodic_capture, memory_context, memory_hotpath
from memlane.integrations.langgraph.store import MemlaneStore
from memlane.model.config import Settings

POSTGRES_SCHEMES = ("postgresql://", "postgres://", "postgresql+psycopg://")


def is_postgres(db: str) -> bool:
    return db.startswith(POSTGRES_SCHEMES)


@contextmanager
def checkpointer_for(db: str) -> Iterator[BaseCheckpointSaver[Any]]:
    """``PostgresSaver`` (tables created if missing) for a PostgreSQL URL, else an in-memory saver."""
    if not is_postgres(db):
        yield InMemorySaver()
        return
    try:
        from langgraph.checkpoint.postgres import PostgresSaver
    except ImportError as exc:
        raise ImportError(
            "a PostgreSQL checkpointer needs langgraph-checkpoint-postgres: pip install 'memlane[langgraph]'"
        ) from exc
    with PostgresSaver.from_conn_string(db.replace("postgresql+psycopg://", "postgresql://", 1)) as saver:
        saver.setup()
        yield saver


def build_graph(
    memory: Memory,
    model: BaseChatModel,
    *,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    wait: bool = False,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The graph over ``memory``; ``model`` answers with the context block in front of the messages."""

    def agent(state: MemoryState, config: RunnableConfig) -> dict[str, Any]:
        messages = state["messages"]
        system = [m for m in messages if isinstance(m, SystemMessage)]  # chat APIs want these first
        reply = model.invoke([*system, *(m for m in messages if not isinstance(m, SystemMessage))], config)
        return {"messages": [reply]}

    graph = StateGraph(MemoryState)
    graph.add_node("memory_hotpath", memory_hotpath(memory, wait=wait))
    graph.add_node("memory_context", memory_context(memory))
    graph.add_node("agent", agent)
    graph.add_node("episodic_capture", episodic_capture(memory, wait=wait))
    graph.add_edge(START, "memory_hotpath")
    graph.add_edge("memory_hotpath", "memory_context")
    graph.add_edge("memory_context", "agent")
    graph.add_edge("agent", "episodic_capture")
    graph.add_edge("episodic_capture", END)
    return graph.compile(checkpointer=checkpointer, store=MemlaneStore(memory))


@contextmanager
def example_graph(
    model: BaseChatModel, *, db: str | None = None, memory: Memory | None = None, wait: bool = False
) -> Iterator[CompiledStateGraph[Any, Any, Any, Any]]:
    """The compiled example graph with its checkpointer open (memories on ``db``, else ``MEMLANE_DB``)."""
    location = db or (memory.settings.db if memory is not None else Settings().db)
    mem = memory or Memory(location)
    try:
        with checkpointer_for(location) as saver:
            yield build_graph(mem, model, checkpointer=saver, wait=wait)
    finally:
        if memory is None:
            mem.close()
