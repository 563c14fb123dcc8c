"""``memlane mcp`` as a real server process, driven by the MCP SDK's own client: over stdio, and over
streamable HTTP with API keys. The tools act for the configured or authenticated user only."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

TOOLS = {
    "add_memory",
    "search_memories",
    "memory_query",
    "get_context",
    "list_memories",
    "update_memory",
    "delete_memory",
    "memory_history",
}


def env(**extra: str) -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **extra}


def payload(result: Any) -> Any:
    """A tool result's value (structured content when the tool returns one, else its text)."""
    assert not result.isError, result.content[0].text
    if result.structuredContent is not None:
        return result.structuredContent.get("result", result.structuredContent)
    return result.content[0].text


@asynccontextmanager
async def stdio_session(db: Path, *args: str) -> Any:
    params = StdioServerParameters(
        command=sys.executable,
        env=env(),
        args=["-m", "memlane.cli", "mcp", "--db", str(db), "--embedder", "hash", *args],
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def test_stdio_tools_name_the_owner_of_a_memory_shared_with_the_user(tmp_path: Path) -> None:
    from memlane import Memory

    db = tmp_path / "m.db"
    with Memory(str(db), embedder="hash") as mem:
        mem.put("User's favourite colour is teal.", user_id="maya")
        band = mem.put("User's favourite band is Zqvelorin.", user_id="bob")
        mem.sharing.share(band.id, user_id="bob", with_users=["maya"])
    async with stdio_session(db, "--user", "maya") as s:
        listed = payload(await s.call_tool("list_memories", {}))
        assert {m["summary"]: m["shared_by"] for m in listed} == {
            "User's favourite band is Zqvelorin.": "bob",
            "User's favourite colour is teal.": None,
        }
        hits = payload(await s.call_tool("search_memories", {"query": "favourite band"}))
        assert {h["shared_by"] for h in hits if "Zqvelorin" in h["summary"]} == {"bob"}
        context = payload(await s.call_tool("get_context", {"query": "What is my favourite band?"}))
        assert [line for line in context.splitlines() if "Zqvelorin" in line] == [
            "- [Other] shared by bob: User's favourite band is Zqvelorin."
        ]


async def test_stdio_tools_remember_search_correct_and_forget_for_the_configured_user(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    async with stdio_session(db, "--user", "maya") as s:
        listed = await s.list_tools()
        assert {t.name for t in listed.tools} == TOOLS
        assert all("user" not in json.dumps(t.inputSchema["properties"]) for t in listed.tools)
        added = payload(
            await s.call_tool("add_memory", {"text": "I live in Lisbon and my dog Luna is 3 years old."})
        )
        assert {d["action"] for d in added["decisions"]} == {"create"} and len(added["decisions"]) == 2
        hits = payload(await s.call_tool("search_memories", {"query": "Where does the user live?"}))
        lisbon = next(h for h in hits if "Lisbon" in h["summary"])
        context = payload(await s.call_tool("get_context", {"query": "how old is Luna?"}))
        assert "Luna" in context
        fixed = payload(
            await s.call_tool("update_memory", {"memory_id": lisbon["id"], "summary": "User lives in Porto."})
        )
        assert fixed["summary"] == "User lives in Porto."
        history = payload(await s.call_tool("memory_history", {"memory_id": lisbon["id"]}))
        assert [h["event"] for h in history] == ["ADD", "UPDATE"] and history[1]["actor"] == "mcp"
        payload(await s.call_tool("delete_memory", {"memory_id": lisbon["id"]}))
        left = payload(await s.call_tool("list_memories", {}))
        assert [m["summary"] for m in left] == ["User's dog Luna is 3 years old."]
        refused = await s.call_tool("memory_query", {"query": "plans", "categories": ["procedural"]})
        assert refused.isError and "may not read procedural" in refused.content[0].text
        missing = await s.call_tool("delete_memory", {"memory_id": "no-such-id"})
        assert missing.isError and "no memory 'no-such-id'" in missing.content[0].text
    async with stdio_session(db, "--user", "lena") as s:  # another user's server sees none of it
        assert payload(await s.call_tool("list_memories", {})) == []
        gone = await s.call_tool("memory_history", {"memory_id": lisbon["id"]})
        assert gone.isError


def test_stdio_without_a_user_is_refused(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "memlane.cli", "mcp", "--db", str(tmp_path / "m.db")],
        capture_output=True,
        text=True,
        env=env(),
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode != 0 and "pass --user" in out.stderr


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memlane.cli",
            "mcp",
            "--transport",
            "http",
            "--port",
            str(port),
            "--db",
            str(tmp_path / "h.db"),
            "--embedder",
            "hash",
        ],
        env=env(MEMLANE_API_KEYS="admin-key,lena-key:lena"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + 90
    while True:
        try:
            httpx.get(url, timeout=1)
            break
        except httpx.TransportError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise AssertionError(f"memlane mcp did not start: {proc.communicate()[1][-2000:]}") from None
            time.sleep(0.2)
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@asynccontextmanager
async def http_session(url: str, headers: dict[str, str]) -> Any:
    async with (
        httpx.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(url, http_client=http) as (read, write, _),
        ClientSession(read, write) as s,
    ):
        await s.initialize()
        yield s


async def test_http_acts_for_the_user_the_key_or_header_names(http_server: str) -> None:
    admin_for_maya = {"Authorization": "Bearer admin-key", "X-Memlane-User": "maya"}
    async with http_session(http_server, admin_for_maya) as s:
        added = payload(await s.call_tool("add_memory", {"text": "I'm allergic to peanuts."}))
        assert added["decisions"] and added["decisions"][0]["action"] == "create"
        assert "peanuts" in payload(await s.call_tool("list_memories", {}))[0]["summary"]
    async with http_session(http_server, {"Authorization": "Bearer lena-key"}) as s:
        assert payload(await s.call_tool("list_memories", {})) == []  # lena's key: lena's memories only
    async with http_session(http_server, {"Authorization": "Bearer lena-key", "X-Memlane-User": "maya"}) as s:
        refused = await s.call_tool("list_memories", {})
        assert refused.isError and "acts for 'lena' only" in refused.content[0].text
    async with http_session(http_server, {"Authorization": "Bearer wrong", "X-Memlane-User": "maya"}) as s:
        refused = await s.call_tool("list_memories", {})
        assert refused.isError and "unknown API key" in refused.content[0].text


async def test_the_stdio_server_logs_no_memory_text_above_debug(tmp_path: Path) -> None:
    db, errlog = tmp_path / "m.db", tmp_path / "stderr.log"
    params = StdioServerParameters(
        command=sys.executable,
        env=env(),
        args=["-m", "memlane.cli", "mcp", "--db", str(db), "--embedder", "hash", "--user", "maya"],
    )
    with errlog.open("w") as err:
        async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            added = payload(
                await s.call_tool("add_memory", {"text": "I live in Valparaiso and my cat Pixel is 7."})
            )
            assert len(added["decisions"]) == 2
            again = payload(await s.call_tool("add_memory", {"text": "My cat Pixel turned 8 today."}))
            assert again["decisions"]
            fixed = payload(
                await s.call_tool(
                    "update_memory",
                    {
                        "memory_id": added["decisions"][0]["memory_id"],
                        "summary": "User lives in Antofagasta.",
                    },
                )
            )
            assert fixed["summary"] == "User lives in Antofagasta."
    logged = errlog.read_text()
    assert '"event": "memory_decision"' in logged  # the decisions are logged (at INFO, on stderr) ...
    for word in ("Valparaiso", "Pixel", "Antofagasta"):  # ... without the user's words
        assert word not in logged, logged
