"""The LangGraph store writes through memlane's write path: each put, delete and TTL expiry is one
change row and one event, like every other write (SQLite and PostgreSQL)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import langgraph.store.base  # noqa: F401 - in the test extra: a broken install fails, not skips
import pytest

from memlane import Memory  # noqa: E402
from memlane.integrations.langgraph import MemlaneStore  # noqa: E402
from tests.write_helpers import BACKENDS, engine  # noqa: E402

U = "ana"


@pytest.fixture(params=BACKENDS)
def mem(request: pytest.FixtureRequest, tmp_path: os.PathLike[str]) -> Iterator[Memory]:
    yield from engine(request, tmp_path)


def test_store_puts_deletes_and_expiry_are_writes_with_one_event_each(mem: Memory) -> None:
    store = MemlaneStore(mem)
    ns = (U, "semantic")
    mem.put(
        "User likes tea.", user_id=U, thread_id="t1"
    )  # another thread's write: store writes count under ""
    one = mem.backend.changes.thread_revision(U, "")
    events: list[str] = []
    mem.events.subscribe(lambda e: events.append(e.type), user_id=U)
    store.put(ns, "pref:drink", {"summary": "User drinks green tea."})
    store.put(ns, "pref:drink", {"summary": "User drinks black tea."})
    store.put(ns, "pref:drink", {"summary": "User drinks black tea."})  # unchanged: no write
    store.delete(ns, "pref:drink")
    store.put(ns, "pref:food", {"summary": "User likes rice."}, ttl=0.001)  # minutes
    time.sleep(0.2)
    assert store.sweep_ttl() == 1
    assert events == [
        "memory.created",
        "memory.updated",
        "memory.deleted",
        "memory.created",
        "memory.deleted",
    ]
    assert mem.backend.changes.thread_revision(U, "") == one + 5
    seqs = [c.seq for c in mem.backend.changes.changes_after(U, 0)]
    assert seqs == list(range(1, 7))
