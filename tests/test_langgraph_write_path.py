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
from memlane.ledger.mutations import Mutation  # noqa: E402
from memlane.model.errors import ValidationError  # noqa: E402
from memlane.model.ids import GLOBAL_USER  # noqa: E402
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


def test_a_mutation_committed_from_outside_the_engine_holds_record_writes_of_valid_users_only(
    mem: Memory,
) -> None:
    """``Memory.commit_mutation`` (the store's route to the write path) refuses what other methods
    check: a purge, a global memory, something that is not a Mutation; nothing is written."""
    rec = mem.put("User likes tea.", user_id=U)
    purge = Mutation(actor="langgraph")
    purge.purge(rec, "forget")
    with pytest.raises(ValidationError, match="cannot carry purges"):
        mem.commit_mutation(purge)
    ours = mem.build_record("Everyone likes tea.", user_id=U)
    theirs = Mutation(actor="langgraph")
    theirs.create(ours.model_copy(update={"user_id": GLOBAL_USER}), None, "langgraph store put")
    with pytest.raises(ValidationError, match="invalid user_id '__global__'"):
        mem.commit_mutation(theirs)
    with pytest.raises(ValidationError, match="expected a Mutation"):
        mem.commit_mutation(purge.batch)  # type: ignore[arg-type]
    assert mem.get(rec.id, user_id=U).summary == "User likes tea."
    assert [c.event for c in mem.backend.changes.changes_after(U, 0)] == ["created"]
    assert mem.backend.memories.get(GLOBAL_USER, ours.id) is None
