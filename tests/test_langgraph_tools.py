"""Seed 000's memory tools and ``memory_query`` as LangChain tools: user from the run config, keys that
round-trip, history with the tool actor, and the graph's MemlaneStore as the default memory."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import langgraph.prebuilt  # noqa: F401 - in the test extra: a broken install fails, not skips
import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage  # noqa: E402
from langgraph.graph import START, MessagesState, StateGraph  # noqa: E402
from langgraph.prebuilt import ToolNode  # noqa: E402

from memlane import Memory  # noqa: E402
from memlane.integrations.langgraph import MemlaneStore  # noqa: E402
from memlane.integrations.langgraph.tools import memory_tools  # noqa: E402
from memlane.model.errors import NotFoundError, ValidationError  # noqa: E402

CONFIG = {"configurable": {"user_id": "maya", "thread_id": "t1"}}


@pytest.fixture
def memory(tmp_path: object) -> Iterator[Memory]:
    mem = Memory(f"{tmp_path}/m.db", embedder="hash", llm="rules")
    yield mem
    mem.close()


@pytest.fixture
def tools(memory: Memory) -> dict[str, Any]:
    return {t.name: t for t in memory_tools(memory)}


def test_the_seed_tools_are_there(tools: dict[str, Any]) -> None:
    assert set(tools) == {
        "semantic_memory_search",
        "episodic_memory_fetch",
        "semantic_memory_put",
        "episodic_memory_put",
        "semantic_memory_update",
        "episodic_memory_update",
        "memory_query",
        "procedure_save",
    }
    schema = tools["semantic_memory_put"].tool_call_schema.model_json_schema()
    assert set(schema["properties"]) == {"summary", "category", "key"}  # no user_id for the model to set


def test_put_search_update_round_trip(tools: dict[str, Any], memory: Memory) -> None:
    put = tools["semantic_memory_put"].invoke(
        {"summary": "Maya's cat Luna is 3 years old.", "category": "personal", "key": "profile:pet:luna:age"},
        CONFIG,
    )
    assert put["key"] == "profile:pet:luna:age" and put["category"] == "Personal"
    found = tools["semantic_memory_search"].invoke(
        {"query": "how old is the cat", "topic": "Personal"}, CONFIG
    )
    assert [f["key"] for f in found] == ["profile:pet:luna:age"] and "score" in found[0]
    assert tools["semantic_memory_search"].invoke({"query": ""}, CONFIG) == []
    updated = tools["semantic_memory_update"].invoke(
        {"key": "profile:pet:luna:age", "summary": "Luna is 4."}, CONFIG
    )
    assert updated["summary"] == "Luna is 4." and updated["id"] == put["id"]
    assert [h.actor for h in memory.history(put["id"], user_id="maya")] == [
        "langgraph:tool",
        "langgraph:tool",
    ]
    assert memory.get(put["id"], user_id="maya").thread_id == "t1"
    with pytest.raises(NotFoundError):
        tools["episodic_memory_update"].invoke({"key": "profile:pet:luna:age", "summary": "x"}, CONFIG)


def test_keyless_memories_are_updated_by_id(tools: dict[str, Any]) -> None:
    put = tools["episodic_memory_put"].invoke({"summary": "On Monday Maya planned a trip to Porto."}, CONFIG)
    assert put["key"] == put["id"]
    out = tools["episodic_memory_update"].invoke({"key": put["key"], "category": "travel"}, CONFIG)
    assert out["category"] == "Travel"


def test_episodic_fetch_uses_the_last_user_message_or_recency(tools: dict[str, Any]) -> None:
    tools["episodic_memory_put"].invoke({"summary": "Maya discussed her budget for the Porto trip."}, CONFIG)
    tools["episodic_memory_put"].invoke({"summary": "Maya asked for vegan recipes."}, CONFIG)
    recent = tools["episodic_memory_fetch"].invoke({"limit": 1}, CONFIG)
    assert [r["summary"] for r in recent] == ["Maya asked for vegan recipes."]
    found = tools["episodic_memory_fetch"].invoke({"query": "porto budget"}, CONFIG)
    assert found[0]["summary"].startswith("Maya discussed her budget")


def test_user_comes_from_config_only(tools: dict[str, Any]) -> None:
    with pytest.raises(ValidationError, match="user_id"):
        tools["semantic_memory_put"].invoke({"summary": "x"}, {"configurable": {}})


def test_memory_query_enforces_the_agents_allowlist(tools: dict[str, Any], memory: Memory) -> None:
    memory.put("Maya's savings goal is 10k euros.", user_id="maya", category="Finance")
    out = tools["memory_query"].invoke({"query": "savings goal", "top_k": 3}, CONFIG)
    assert out["agent"] == "supervisor" and out["items"] and out["items"][0]["text"].startswith("[finance]")


def test_tools_in_a_graph_use_its_store_and_state(memory: Memory) -> None:
    memory.put("Maya planned a hiking trip to the Alps.", user_id="maya", type="episodic")
    node = ToolNode(memory_tools())  # no memory given: the graph's MemlaneStore's
    graph = StateGraph(MessagesState).add_node("tools", node).add_edge(START, "tools")
    app = graph.compile(store=MemlaneStore(memory))
    call = AIMessage("", tool_calls=[{"name": "episodic_memory_fetch", "args": {}, "id": "c1"}])
    out = app.invoke({"messages": [HumanMessage("remember my hiking plans?"), call]}, CONFIG)
    reply = out["messages"][-1]
    assert isinstance(reply, ToolMessage)
    assert json.loads(reply.content)[0]["summary"] == "Maya planned a hiking trip to the Alps."


def test_memory_query_takes_a_preset_and_refuses_an_unknown_one(
    tools: dict[str, Any], memory: Memory
) -> None:
    memory.put("Maya's savings goal is 10k euros.", user_id="maya", category="Finance")
    ask = {"query": "savings goal", "top_k": 3}
    assert tools["memory_query"].invoke({**ask, "preset": "broad"}, CONFIG)["items"]
    with pytest.raises(ValidationError, match="recent-first"):
        tools["memory_query"].invoke({**ask, "preset": "newest"}, CONFIG)
