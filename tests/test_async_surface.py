"""``AsyncMemory`` has a typed twin of every public ``Memory`` method, and the twins run the engine."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest

from memlane import AsyncMemory, Memory
from memlane.engine.async_memory import RENAMED
from memlane.engine.namespace import Namespace, Renamed


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    m = Memory(str(tmp_path / "m.db"), embedder="hash")
    yield m
    m.close()


def public_methods(cls: type) -> list[str]:
    """Public calls, without the old names kept one release."""
    return [
        name
        for name, _ in inspect.getmembers(cls, callable)
        if not name.startswith("_") and not isinstance(inspect.getattr_static(cls, name), Renamed)
    ]


def namespaces(mem: Memory) -> dict[str, Namespace]:
    return {name: ns for name, ns in vars(mem).items() if isinstance(ns, Namespace)}


def test_every_public_memory_method_has_an_async_twin() -> None:
    missing = [n for n in public_methods(Memory) if not hasattr(AsyncMemory, RENAMED.get(n, n))]
    assert missing == []


def test_every_namespace_call_has_an_async_twin(mem: Memory) -> None:
    amem = AsyncMemory(memory=mem)
    found = namespaces(mem)
    assert sorted(found) == ["jobs", "procedures", "proposals", "sessions", "sharing"]
    for name, ns in found.items():
        twins = getattr(amem, name)
        for call in public_methods(type(ns)):
            assert inspect.iscoroutinefunction(getattr(twins, call, None)), f"{name}.{call}"
            assert inspect.signature(getattr(twins, call)) == inspect.signature(getattr(ns, call))


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
        links = await amem.sharing.share(rec.id, user_id="maya", with_users=["lena"])
        assert [k.user_id for k in links] == ["lena"]
        assert rec.id in [h.memory.id for h in await amem.search("chess", user_id="lena")]
        saved = await amem.procedures.add("Deploy", ["Run the tests", "Tag the release"], user_id="maya")
        assert [p.id for p in await amem.procedures.list(user_id="maya")] == [saved.id]
        assert await amem.proposals.list(user_id="maya") == []
        assert sorted(await amem.users()) == ["lena", "maya"]
        assert [r["kind"] for r in await amem.export_user("lena")].count("memory") == 1
        await amem.aclose()

    asyncio.run(run())
    with pytest.raises(Exception):  # noqa: B017 - closed: the store refuses any further read
        mem.list(user_id="maya")
