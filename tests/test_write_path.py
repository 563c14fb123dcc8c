"""The one write path: every kind of write advances the revision, writes one change row and emits
exactly one event with that row's sequence; concurrent puts of a key keep a true history;
idempotency keys make a retried put return the first result. Both backends."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator

import pytest

from memlane import Memory
from memlane.ledger.events import MemoryEvent
from memlane.model.enums import HistoryEvent, MemoryState
from memlane.model.errors import ConflictError, ValidationError
from tests.write_helpers import BACKENDS, engine

U, T = "ana", "t1"


@pytest.fixture(params=BACKENDS)
def mem(request: pytest.FixtureRequest, tmp_path: os.PathLike[str]) -> Iterator[Memory]:
    yield from engine(request, tmp_path)


def one_write(mem: Memory, action: Callable[[], object], kind: str) -> None:
    """``action`` advances thread T's revision by one and publishes exactly one event, of ``kind``,
    whose sequence is that of the one new change row."""
    events: list[MemoryEvent] = []
    stop = mem.events.subscribe(events.append, user_id=U)
    rev = mem.backend.changes.thread_revision(U, T)
    seq = max([c.seq for c in mem.backend.changes.changes_after(U, 0, limit=10_000)], default=0)
    try:
        action()
    finally:
        stop()
    rows = mem.backend.changes.changes_after(U, seq)
    writes = [e for e in events if e.type != "memory.candidate"]
    assert [e.type for e in writes] == [kind]
    assert [r.seq for r in rows] == [seq + 1] == [writes[0].seq]
    assert mem.backend.changes.thread_revision(U, T) == rev + 1


def test_every_kind_of_write_advances_the_revision_and_emits_one_event(mem: Memory) -> None:
    facts = {"user_id": U, "thread_id": T, "wait": True}
    made: dict[str, str] = {}
    one_write(
        mem, lambda: made.update(a=mem.put("User likes tea.", user_id=U, thread_id=T).id), "memory.created"
    )
    one_write(
        mem,
        lambda: made.update(
            k=mem.put("User lives in Lisbon.", user_id=U, thread_id=T, key="profile:residence:city").id
        ),
        "memory.created",
    )
    one_write(
        mem,
        lambda: mem.put("User lives in Porto.", user_id=U, key="profile:residence:city"),
        "memory.updated",
    )
    one_write(mem, lambda: mem.update(made["a"], user_id=U, importance=5), "memory.updated")
    one_write(mem, lambda: mem.link(made["a"], made["k"], user_id=U), "memory.linked")
    one_write(mem, lambda: mem.delete(made["a"], user_id=U), "memory.deleted")
    one_write(mem, lambda: mem.restore(made["a"], user_id=U), "memory.restored")
    one_write(
        mem,
        lambda: mem.add_facts([{"summary": "User plays chess.", "category": "Hobbies"}], **facts),
        "memory.created",
    )
    one_write(
        mem,
        lambda: mem.add_facts([{"summary": "User plays chess.", "category": "Hobbies"}], **facts),
        "memory.merged",
    )
    one_write(
        mem,
        lambda: mem.add_facts(
            [{"summary": "User's dog Luna is 3.", "key": "profile:pet:luna:age", "category": "Personal"}],
            **facts,
        ),
        "memory.created",
    )
    one_write(
        mem,
        lambda: mem.add_facts(
            [{"summary": "User's dog Luna is 4.", "key": "profile:pet:luna:age", "category": "Personal"}],
            **facts,
        ),
        "memory.changed_fact",
    )
    one_write(mem, lambda: mem.add("My sister is called Ines.", **facts), "memory.created")
    one_write(mem, lambda: mem.purge(made["a"], user_id=U), "memory.purged")
    row = {
        "kind": "memory",
        **mem.put("User swims.", user_id="bo", thread_id=T).snapshot(),
        "user_id": U,
        "id": "0199aaaa-0000-7000-8000-000000000001",
    }
    one_write(mem, lambda: mem.import_rows([row]), "memory.created")


def test_a_write_that_changes_nothing_emits_nothing(mem: Memory) -> None:
    rec = mem.put("User likes tea.", user_id=U, key="pref:drink", thread_id=T)
    events: list[MemoryEvent] = []
    mem.events.subscribe(events.append, user_id=U)
    mem.put("User likes tea.", user_id=U, key="pref:drink")
    mem.update(rec.id, user_id=U, summary="User likes tea.")
    assert events == []
    cake = mem.put("User likes cake.", user_id=U)
    mem.link(rec.id, cake.id, user_id=U)
    events.clear()
    mem.link(rec.id, cake.id, user_id=U)  # linked already
    assert events == []
    with pytest.raises(ValidationError):  # refused: nothing written, nothing published
        mem.restore(rec.id, user_id=U)
    assert events == [] and [h.event for h in mem.history(rec.id, user_id=U)] == [
        HistoryEvent.ADD,
        HistoryEvent.LINK,
    ]


def test_concurrent_puts_on_one_key_write_one_memory_and_a_true_history(mem: Memory) -> None:
    first = mem.put("User's seat is 1A.", user_id=U, key="pref:seat", importance=5, tags=["travel"])
    barrier = threading.Barrier(20)
    errors: list[BaseException] = []

    def put(n: int) -> None:
        try:
            barrier.wait()
            mem.put(f"User's seat is {n + 2}A.", user_id=U, key="pref:seat")  # summary only
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=put, args=(n,)) for n in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    live = mem.list(user_id=U)
    assert [r.id for r in live] == [first.id]
    assert live[0].importance == 5 and live[0].tags == ["travel"]  # fields no put gave stay as stored
    hist = mem.history(first.id, user_id=U)
    assert [h.event for h in hist] == [HistoryEvent.ADD] + [HistoryEvent.UPDATE] * 20
    for before, after in zip(hist, hist[1:], strict=False):  # each update starts from the one before it
        assert after.old_value == before.new_value
    assert hist[-1].new_value and hist[-1].new_value["summary"] == live[0].summary


def test_an_idempotency_key_makes_a_retried_put_return_the_first_result(mem: Memory) -> None:
    a = mem.put("User booked a table for Friday.", user_id=U, idempotency_key="req-1")
    b = mem.put("User booked a table for Friday.", user_id=U, idempotency_key="req-1")
    assert a.id == b.id and len(mem.list(user_id=U)) == 1
    assert [h.event for h in mem.history(a.id, user_id=U)] == [HistoryEvent.ADD]
    other = mem.put("User booked a table for Friday.", user_id=U, idempotency_key="req-2")
    assert other.id != a.id  # another request is another memory
    with pytest.raises(ConflictError, match="idempotency key"):
        mem.put("User booked a table for Saturday.", user_id=U, idempotency_key="req-1")
    assert mem.get(a.id, user_id=U).summary == "User booked a table for Friday."
    assert mem.put("User swims.", user_id="bo", idempotency_key="req-1").user_id == "bo"  # keys are per user
    with pytest.raises(ValidationError, match="idempotency_key"):
        mem.put("User swims.", user_id=U, idempotency_key="")
    mem.delete(a.id, user_id=U)
    assert (
        mem.put("User booked a table for Friday.", user_id=U, idempotency_key="req-1").state
        is MemoryState.SOFT_DELETED
    )  # still the first result
