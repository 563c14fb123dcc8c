"""The ready nodes and the example graph (seed 002's layout): memory events in the ``custom`` stream,
the context block as one system message with the revision kept for the delta header, and the
PostgreSQL checkpointer when the database is PostgreSQL. The chat model is a fake that echoes what
memlane told it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import langgraph.graph  # noqa: F401 - in the test extra: a broken install fails, not skips
import pytest
from langchain_core.language_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatResult  # noqa: E402

from memlane import Memory  # noqa: E402
from memlane.integrations.langgraph.example import build_graph, checkpointer_for, example_graph  # noqa: E402
from memlane.integrations.langgraph.nodes import CONTEXT_ID, memory_hotpath  # noqa: E402

CONFIG = {"configurable": {"user_id": "maya", "thread_id": "t1"}}


class FakeEchoChatModel(BaseChatModel):
    """A fake chat model (no provider): it answers with the system messages it was given."""

    @property
    def _llm_type(self) -> str:
        return "fake-echo"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        seen = "\n".join(str(m.content) for m in messages if isinstance(m, SystemMessage))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=f"context: {seen}"))])


@pytest.fixture
def memory(tmp_path: object) -> Iterator[Memory]:
    mem = Memory(f"{tmp_path}/m.db", embedder="hash", llm="rules")
    yield mem
    mem.close()


def _turn(graph: Any, text: str, config: dict[str, Any] = CONFIG) -> list[dict[str, Any]]:
    return list(graph.stream({"messages": [("user", text)]}, config, stream_mode="custom"))


def test_memory_events_reach_the_custom_stream(memory: Memory) -> None:
    graph = build_graph(memory, FakeEchoChatModel(), wait=True)
    events = _turn(graph, "My dog Rex is 3 years old.")
    kinds = [e["type"] for e in events]
    assert kinds[0] == "memory.candidate" and "memory.created" in kinds
    assert all(e["user_id"] == "maya" and e["thread_id"] == "t1" for e in events)
    assert events[0]["data"]["summary"] == "User's dog Rex is 3 years old."


def test_the_graph_captures_the_finished_turn_as_an_episode_after_the_agent(memory: Memory) -> None:
    graph = build_graph(memory, FakeEchoChatModel(), wait=True)
    assert list(graph.get_graph().nodes) == [
        "__start__",
        "memory_hotpath",
        "memory_context",
        "agent",
        "episodic_capture",
        "__end__",
    ]
    config = {
        "configurable": {
            **CONFIG["configurable"],
            "user_context": {"locale_info": {"time_zone": "Asia/Tokyo"}},
        }
    }
    kinds = [e["type"] for e in _turn(graph, "I've decided to sell my motorbike.", config)]
    assert kinds.count("memory.created") == 1  # the episode, made after the agent answered
    [episode] = memory.list(user_id="maya", filters={"type": "episodic"})
    assert "Approach: User decided to sell their motorbike." in episode.summary
    [capture] = [j for j in memory.jobs.list(user_id="maya") if j.kind == "capture"]
    assert capture.thread_id == "t1"
    _turn(graph, "Thanks!")  # a routine turn: no episode
    assert len(memory.list(user_id="maya", filters={"type": "episodic"})) == 1


def test_hotpath_does_not_block_by_default(memory: Memory) -> None:
    graph = build_graph(memory, FakeEchoChatModel())
    assert [e["type"] for e in _turn(graph, "I live in Lisbon.")][:1] == ["memory.candidate"]
    memory.process_jobs()  # the background decision (also run by the worker thread)
    memory.stop_worker()
    assert [r.summary for r in memory.list(user_id="maya")] == ["User lives in Lisbon."]


def test_context_message_is_replaced_and_rev_kept(memory: Memory) -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    graph = build_graph(memory, FakeEchoChatModel(), checkpointer=InMemorySaver(), wait=True)
    _turn(graph, "I live in Lisbon.")
    first = graph.get_state(CONFIG).values
    assert "User lives in Lisbon." in first["messages"][-1].content  # the agent saw the memory
    _turn(graph, "I work as a nurse.")  # a new fact (a move would wait for consent: no delta bullet)
    state = graph.get_state(CONFIG).values
    contexts = [m for m in state["messages"] if (m.id or "").startswith(CONTEXT_ID)]
    assert len(contexts) == 1 and state["messages"][-2] is contexts[0]  # right before the reply
    assert contexts[0].content.startswith("Memory updates since rev")  # the delta header
    assert state["memory_rev"] > first["memory_rev"]


def test_nodes_need_the_user(memory: Memory) -> None:
    node = memory_hotpath(memory)
    with pytest.raises(ValueError, match="user_id"):
        node({"messages": [("user", "hi")]}, {"configurable": {}})  # type: ignore[typeddict-item]


def test_in_memory_checkpointer_without_postgres(tmp_path: object) -> None:
    with checkpointer_for(f"{tmp_path}/m.db") as saver:
        assert type(saver).__name__ == "InMemorySaver"


@pytest.mark.postgres
def test_example_checkpoints_to_postgres(postgres_url: str) -> None:
    import langgraph.checkpoint.postgres  # noqa: F401 - in the test extra: a broken install fails, not skips

    memory = Memory(postgres_url, embedder="hash", llm="rules")
    try:
        with example_graph(FakeEchoChatModel(), db=postgres_url, memory=memory, wait=True) as graph:
            assert type(graph.checkpointer).__name__ == "PostgresSaver"
            _turn(graph, "My sister Ana lives in Madrid.")
        with example_graph(FakeEchoChatModel(), db=postgres_url, memory=memory, wait=True) as graph:
            _turn(graph, "Where does my sister live?")  # a new graph: the thread comes back from PostgreSQL
            messages = graph.get_state(CONFIG).values["messages"]
            assert messages[0].content == "My sister Ana lives in Madrid."
            assert "Ana lives in Madrid" in messages[-1].content
    finally:
        memory.close()
