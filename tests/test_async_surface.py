"""``AsyncMemory`` has a typed twin of every public ``Memory`` method, and the twins run the engine."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest

from memlane import AsyncMemory, Memory
from memlane.engine.async_memory import RENAMED


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    m = Memory(str(tmp_path / "m.db"), embedder="hash")
    yield m
    m.close()


def public_methods(cls: type) -> list[str]:
    return [name for name, member in inspect.getmembers(cls, callable) if not name.startswith("_")]


def test_every_public_memory_method_has_an_async_twin() -> None:
    missing = [n for n in public_methods(Memory) if not hasattr(AsyncMemory, RENAMED.get(n, n))]
    assert missing == []


def test_twins_are_coroutine_functions_named_after_the_sync_method(mem: Memory) -> None:
    amem = AsyncMemory(memory=mem)
    for name in public_methods(Memory):
        twin = getattr(amem, RENAMED.get(name, name))
        assert inspect.iscoroutinefunction(twin), name
        if name != "export_user":  # collected into a list in the thread, so its own signature
            assert inspect.signature(twin) == inspect.signature(getattr(mem, name)), name


def test_twins_run_against_a_real_store(mem: Memory) -> None:
    amem = AsyncMemory(memory=mem)

    async def run() -> None:
        rec = await amem.put("User plays chess.", user_id="maya")
        await amem.put("User likes tea.", user_id="lena")
        links = await amem.share(rec.id, user_id="maya", with_users=["lena"])
        assert [k.user_id for k in links] == ["lena"]
        assert rec.id in [h.memory.id for h in await amem.search("chess", user_id="lena")]
        saved = await amem.add_procedure("Deploy", ["Run the tests", "Tag the release"], user_id="maya")
        assert [p.id for p in await amem.procedures(user_id="maya")] == [saved.id]
        assert await amem.proposals(user_id="maya") == []
        assert sorted(await amem.users()) == ["lena", "maya"]
        assert [r["kind"] for r in await amem.export_user("lena")].count("memory") == 1
        await amem.aclose()

    asyncio.run(run())
    with pytest.raises(Exception):  # noqa: B017 - closed: the store refuses any further read
        mem.list(user_id="maya")
