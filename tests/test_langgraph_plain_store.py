"""memlane's memory tools and nodes in a real LangGraph graph whose store is a plain ``BaseStore``, not
memlane's: LangGraph's ``InMemoryStore`` (with an index config), and ``S3VectorsStore`` on moto's S3
Vectors with the query emulation and a scripted Titan (fakes at the AWS boundary: not integration
tests). The tools and nodes go through the ``BaseStore`` API on ``(user_id, type)`` namespaces."""

from __future__ import annotations

import json
from typing import Any

import langgraph.prebuilt  # noqa: F401 - in the test extra: a broken install fails, not skips
import pytest
from langchain_core.messages import AIMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from memlane.integrations.langgraph.nodes import (
    CONTEXT_ID,
    MemoryState,
    episodic_capture,
    memory_context,
    memory_hotpath,
)
from memlane.integrations.langgraph.plain import CONTEXT_HEADER
from memlane.integrations.langgraph.tools import memory_tools
from memlane.model.errors import NotFoundError, ValidationError
from memlane.providers.embed.hash import HashEmbedder
from tests.bedrock_fake import FakeTitan
from tests.test_langgraph_graph import FakeEchoChatModel

DIMS = 256
MAYA = {"configurable": {"user_id": "maya", "thread_id": "t1"}}
OMAR = {"configurable": {"user_id": "omar", "thread_id": "t9"}}


def in_memory_store() -> InMemoryStore:
    embedder = HashEmbedder(DIMS)
    return InMemoryStore(index={"dims": DIMS, "embed": embedder.embed, "fields": ["summary"]})


@pytest.fixture(params=["in-memory", "s3vectors"])
def store(request: pytest.FixtureRequest) -> BaseStore:
    if request.param == "in-memory":
        return in_memory_store()
    from memlane.integrations.langgraph.s3v_store import S3VectorsStore

    emu = request.getfixturevalue("emu")  # moto's S3 Vectors with QueryVectors emulated
    s3v_store = S3VectorsStore(
        emu.client, FakeTitan(), "memlane-test", "memory-search", dims=DIMS, validate_index=False
    )
    s3v_store.setup()
    return s3v_store


def tool_graph(store: BaseStore) -> Any:
    node = ToolNode(memory_tools(), handle_tool_errors=True)  # no Memory given: the graph's store
    return StateGraph(MessagesState).add_node("tools", node).add_edge(START, "tools").compile(store=store)


def call(app: Any, name: str, args: dict[str, Any], config: dict[str, Any] = MAYA) -> Any:
    ask = AIMessage("", tool_calls=[{"name": name, "args": args, "id": "c1"}])
    reply = app.invoke({"messages": [("user", "hi"), ask]}, config)["messages"][-1]
    assert isinstance(reply, ToolMessage)
    if reply.status != "success" or not isinstance(reply.content, str):
        return reply.content  # an error's text, or an empty result ([])
    return json.loads(reply.content)


def test_the_tools_put_search_update_and_fetch_over_a_plain_store(store: BaseStore) -> None:
    app = tool_graph(store)
    put = call(
        app,
        "semantic_memory_put",
        {"summary": "Maya's cat Luna is 3 years old.", "category": "personal", "key": "profile:pet:luna:age"},
    )
    assert put["key"] == put["id"] == "profile:pet:luna:age" and put["category"] == "Personal"
    call(app, "semantic_memory_put", {"summary": "Maya works as a nurse in Lisbon.", "category": "Work"})
    item = store.get(("maya", "semantic"), "profile:pet:luna:age")  # the integration's namespace
    assert item is not None and item.value["summary"] == "Maya's cat Luna is 3 years old."
    assert item.value["thread_id"] == "t1"

    found = call(app, "semantic_memory_search", {"query": "how old is the cat Luna", "topic": "Personal"})
    assert [f["key"] for f in found] == ["profile:pet:luna:age"] and "score" in found[0]
    assert call(app, "semantic_memory_search", {"query": ""}) == []
    assert call(app, "semantic_memory_search", {"query": "cat Luna"}, OMAR) == []  # per user

    updated = call(app, "semantic_memory_update", {"key": "profile:pet:luna:age", "summary": "Luna is 4."})
    assert updated["summary"] == "Luna is 4." and updated["category"] == "Personal"
    assert store.get(("maya", "semantic"), "profile:pet:luna:age").value["summary"] == "Luna is 4."  # type: ignore[union-attr]
    missing = call(app, "episodic_memory_update", {"key": "profile:pet:luna:age", "summary": "x"})
    assert "no episodic memory with key" in missing

    call(app, "episodic_memory_put", {"summary": "Maya planned a hiking trip to the Alps."})
    ask = AIMessage("", tool_calls=[{"name": "episodic_memory_fetch", "args": {}, "id": "c2"}])
    out = app.invoke({"messages": [("user", "remember my hiking trip?"), ask]}, MAYA)["messages"][-1]
    fetched = json.loads(out.content)
    assert (
        fetched[0]["summary"] == "Maya planned a hiking trip to the Alps."
        and fetched[0]["type"] == "episodic"
    )


def test_the_tools_that_need_memlane_say_so_on_a_plain_store(store: BaseStore) -> None:
    app = tool_graph(store)
    out = call(app, "memory_query", {"query": "savings goal"})
    assert "memory_query needs memlane's Memory" in out and type(store).__name__ in out
    assert "procedure_save needs memlane's Memory" in call(
        app, "procedure_save", {"name": "deploy", "steps": ["Run the tests."]}
    )
    assert "needs a summary" in call(app, "semantic_memory_put", {"summary": "  "})


def test_outside_a_graph_without_a_memory_the_tools_say_what_to_pass() -> None:
    put = {t.name: t for t in memory_tools()}["semantic_memory_put"]
    with pytest.raises(ValidationError, match="pass memory_tools"):
        put.invoke({"summary": "x"}, MAYA)


def node_graph(store: BaseStore) -> Any:
    model = FakeEchoChatModel()

    def agent(state: MemoryState, config: RunnableConfig) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"], config)]}

    graph = StateGraph(MemoryState)
    graph.add_node("memory_hotpath", memory_hotpath(wait=True))
    graph.add_node("memory_context", memory_context())
    graph.add_node("agent", agent)
    graph.add_node("episodic_capture", episodic_capture(wait=True))
    graph.add_edge(START, "memory_hotpath")
    graph.add_edge("memory_hotpath", "memory_context")
    graph.add_edge("memory_context", "agent")
    graph.add_edge("agent", "episodic_capture")
    graph.add_edge("episodic_capture", END)
    from langgraph.checkpoint.memory import InMemorySaver

    return graph.compile(store=store, checkpointer=InMemorySaver())


def test_the_nodes_run_over_a_plain_store(store: BaseStore) -> None:
    tool_app = tool_graph(store)
    call(
        tool_app,
        "semantic_memory_put",
        {"summary": "Maya's sister Ana lives in Madrid.", "category": "Relationships"},
    )
    app = node_graph(store)
    events = list(
        app.stream({"messages": [("user", "Where does my sister Ana live?")]}, MAYA, stream_mode="custom")
    )
    assert events == []  # no formation, so no memory.* events
    state = app.get_state(MAYA).values
    [context] = [m for m in state["messages"] if (m.id or "").startswith(CONTEXT_ID)]
    assert isinstance(context, SystemMessage) and context.content.startswith(CONTEXT_HEADER)
    assert "- [relationships] Maya's sister Ana lives in Madrid." in context.content
    assert "Ana lives in Madrid" in state["messages"][-1].content  # the agent saw it
    assert "memory_rev" not in state
    # the hot path formed nothing: the only semantic item is the one the tool put
    assert [i.key for i in store.search(("maya", "semantic"), query="sister Ana", limit=10)] == [
        call(tool_app, "semantic_memory_search", {"query": "sister Ana"})[0]["key"]
    ]
    # the finished turn was kept as one episodic item, and the next turn's context shows it
    [episode] = store.search(("maya", "episodic"), query="sister Ana live", limit=10)
    assert episode.value["summary"].startswith(
        "User said: Where does my sister Ana live?\nAssistant answered: "
    )
    assert episode.value["category"] == "Conversation_Summary" and episode.value["thread_id"] == "t1"
    app.invoke({"messages": [("user", "And my sister Ana's job?")]}, MAYA)
    state = app.get_state(MAYA).values
    contexts = [m for m in state["messages"] if (m.id or "").startswith(CONTEXT_ID)]
    assert len(contexts) == 1 and "User said: Where does my sister Ana live?" in contexts[0].content
    assert store.search(("omar", "episodic"), query="sister Ana", limit=10) == []


def test_nodes_outside_a_graph_without_a_memory_are_refused() -> None:
    with pytest.raises(ValidationError, match="memory_context have no memory"):
        memory_context()({"messages": [("user", "hi")]}, MAYA)  # type: ignore[arg-type, typeddict-item]


def test_plain_update_of_a_missing_key(store: BaseStore) -> None:
    from memlane.integrations.langgraph import plain
    from memlane.model.enums import MemoryType

    with pytest.raises(NotFoundError):
        plain.update(store, "maya", MemoryType.SEMANTIC, "nope", summary="x")
