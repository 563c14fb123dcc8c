"""The periodic tasks on a controllable clock, on SQLite and a real PostgreSQL: TTL retires what no one
read, purge forgets it after ``purge_at``, reads move ``last_accessed``; the schedule is per user,
staggered and idempotent; a worker killed mid-task or racing another neither loses nor repeats a run.

Real parts: the bundled local embedder, SQLite files, a PostgreSQL server, a real worker process."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import timedelta

import pytest

from memlane import Memory
from memlane.lifecycle.schedule import kind_of
from memlane.model.config import Settings
from memlane.model.enums import HistoryEvent, MemoryState
from memlane.model.errors import LeaseLostError
from memlane.model.jobs import JobStatus
from memlane.model.record import utcnow
from memlane.storage.base import WriteBatch
from tests.formation_helpers import local_embedder

U = "maya"
DAY = timedelta(days=1)


def open_mem(location: str, **settings: object) -> Memory:
    """TTL and purge only (consolidation has its own tests)."""
    chosen: dict[str, object] = {"memlane_schedule": {"ttl": 24, "purge": 24}, **settings}
    return Memory(location, embedder=local_embedder(), llm="rules", settings=Settings(db=location, **chosen))


@pytest.fixture
def mem(location: str) -> Iterator[Memory]:
    with open_mem(location) as m:
        yield m


def task_jobs(mem: Memory, task: str, status: JobStatus | None = None) -> list:
    return [j for j in mem.backend.jobs.list_jobs(status, limit=10_000) if j.kind == kind_of(task)]


def test_ttl_soft_deletes_what_no_one_read_and_purge_forgets_it_later(mem: Memory) -> None:
    t0 = utcnow()
    old = mem.put("User once asked about the weather in Porto.", user_id=U, importance=1)
    pinned = mem.put("User's locker code is 4471.", user_id=U, importance=1, pinned=True)
    important = mem.put("User is allergic to penicillin.", user_id=U, importance=4)
    read = mem.put("User's favourite tea is genmaicha.", user_id=U, importance=1)
    hits = mem.search("which tea does the user like?", user_id=U, limit=1, at=t0 + 30 * DAY)
    assert [h.memory.id for h in hits] == [read.id]  # what a read returns counts as used

    mem.run_tasks(at=t0 + 59 * DAY)  # seeds each user's runs; none is due before a day has passed
    assert mem.get(old.id, user_id=U).state is MemoryState.ACTIVE
    ran = mem.run_tasks(at=t0 + 61 * DAY)
    assert ran == 2  # ttl and purge, once each

    gone = mem.get(old.id, user_id=U)
    assert gone.state is MemoryState.SOFT_DELETED
    assert gone.purge_at is not None and abs(gone.purge_at - (t0 + 91 * DAY)) < DAY
    for kept in (pinned, important, read):  # pinned, important, or read at day 30
        assert mem.get(kept.id, user_id=U).state is MemoryState.ACTIVE
    events = [(h.event, h.actor) for h in mem.history(old.id, user_id=U)]
    assert events.count((HistoryEvent.TTL, "system:ttl")) == 1
    deltas = [
        c
        for c in mem.backend.changes.changes_after(U, 0, limit=1000)
        if c.memory_id == old.id and c.event == "deleted"
    ]
    assert len(deltas) == 1 and deltas[0].meta["reason"] == "ttl"  # one delta bullet
    assert old.id not in [h.memory.id for h in mem.search("weather in Porto", user_id=U, at=t0 + 61 * DAY)]

    mem.run_tasks(at=t0 + 80 * DAY)
    assert mem.get(old.id, user_id=U).state is MemoryState.SOFT_DELETED  # not yet past purge_at
    mem.run_tasks(at=t0 + 92 * DAY)
    purged = mem.get(old.id, user_id=U)
    assert purged.state is MemoryState.PURGED and "Porto" not in purged.summary
    assert all(
        "Porto" not in str(h.old_value) + str(h.new_value) for h in mem.backend.memories.history(U, old.id)
    )


def test_a_restore_before_purge_at_keeps_the_memory(mem: Memory) -> None:
    t0 = utcnow()
    rec = mem.put("User tried a pottery class once.", user_id=U, importance=1)
    mem.run_tasks(at=t0)
    mem.run_tasks(at=t0 + 61 * DAY)
    assert mem.get(rec.id, user_id=U).state is MemoryState.SOFT_DELETED
    mem.restore(rec.id, user_id=U)
    mem.run_tasks(at=t0 + 92 * DAY)  # past the first purge_at: the restore cancelled that purge
    back = mem.get(rec.id, user_id=U)
    assert back.state is not MemoryState.PURGED and back.summary == rec.summary
    assert HistoryEvent.PURGE not in [h.event for h in mem.history(rec.id, user_id=U)]


def test_reads_move_last_accessed_and_count_them(mem: Memory) -> None:
    t0 = utcnow()
    rec = mem.put("User plays the cello in a community orchestra.", user_id=U)
    assert rec.access_count == 0 and rec.last_accessed is None
    mem.search("what instrument does the user play?", user_id=U, at=t0 + 10 * DAY)
    mem.context("tell me about music", user_id=U, at=t0 + 20 * DAY)
    mem.query(
        "instrument", user_id=U, agent="supervisor", at=t0 + 5 * DAY
    )  # an earlier time never moves it back
    seen = mem.get(rec.id, user_id=U)
    assert seen.access_count == 3
    assert seen.last_accessed is not None and abs(seen.last_accessed - (t0 + 20 * DAY)) < timedelta(seconds=1)
    assert len(mem.backend.memories.history(U, rec.id)) == 1  # bookkeeping writes no history


def test_runs_are_per_user_staggered_and_seeded_once(mem: Memory) -> None:
    t0 = utcnow()
    users = [f"user{i}" for i in range(8)]
    for u in users:
        mem.put("User likes hiking.", user_id=u)
    assert mem.lifecycle.seed(t0) == 16
    assert mem.lifecycle.seed(t0) == 0  # a second worker seeding finds every run scheduled
    due = sorted(j.run_after for j in task_jobs(mem, "ttl"))
    assert len(due) == 8 and all(t0 < d <= t0 + DAY for d in due)
    assert len(set(due)) == 8 and due[-1] - due[0] > timedelta(hours=6)  # spread over the day

    assert mem.run_tasks(at=t0 + DAY + timedelta(seconds=1)) == 16
    assert mem.run_tasks(at=t0 + DAY + timedelta(seconds=1)) == 0
    pending = task_jobs(mem, "ttl", JobStatus.PENDING)
    assert len(pending) == 8 and all(t0 + DAY < j.run_after <= t0 + 2 * DAY for j in pending)
    done = task_jobs(mem, "ttl", JobStatus.DONE)
    assert len(done) == 8 and all(j.payload == {"task": "ttl", "expired": 0} for j in done)


def test_a_task_set_to_zero_hours_does_not_run(location: str) -> None:
    with open_mem(location, memlane_schedule={"ttl": 0, "purge": 24}) as mem:
        mem.put("User likes hiking.", user_id=U, importance=1)
        mem.run_tasks(at=utcnow())  # schedules
        assert mem.run_tasks(at=utcnow() + 100 * DAY) == 1
        assert not task_jobs(mem, "ttl") and len(task_jobs(mem, "purge")) == 2  # one ran, the next is pending


def test_two_workers_racing_run_each_task_once(location: str) -> None:
    t0 = utcnow()
    with open_mem(location) as a, open_mem(location) as b:
        ids = [
            a.put(f"User mentioned idle fact number {i}.", user_id=f"u{i % 4}", importance=1).id
            for i in range(12)
        ]
        a.lifecycle.seed(t0)
        counts: list[int] = []
        workers = [
            threading.Thread(target=lambda m=m: counts.append(m.lifecycle.run_due(t0 + 61 * DAY)))
            for m in (a, b)
        ]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        assert sum(counts) == 8  # 4 users x (ttl, purge)
        for i, mid in enumerate(ids):
            events = [h.event for h in a.backend.memories.history(f"u{i % 4}", mid)]
            assert events.count(HistoryEvent.TTL) == 1
        assert len(task_jobs(a, "ttl", JobStatus.PENDING)) == 4


def test_a_worker_that_lost_its_lease_writes_nothing(mem: Memory, location: str) -> None:
    t0 = utcnow()
    rec = mem.put("User once mentioned a cousin's bakery.", user_id=U, importance=1)
    mem.lifecycle.seed(t0)
    late = t0 + 61 * DAY
    with open_mem(location) as other:
        mem.lifecycle.lease_seconds = 1
        job = mem.backend.jobs.claim_job(
            mem.lifecycle.worker_id, lease_seconds=1, now=late, kinds=[kind_of("ttl")]
        )
        assert job is not None
        assert other.lifecycle.run_once(
            late + timedelta(seconds=2)
        )  # the lease ran out: the other worker runs it
        with pytest.raises(LeaseLostError):
            mem.lifecycle._run(job, late + timedelta(seconds=3))
    assert [h.event for h in mem.history(rec.id, user_id=U)].count(HistoryEvent.TTL) == 1


CRASH = """
import sys
from datetime import datetime
from memlane import Memory
from memlane.model.config import Settings
mem = Memory(sys.argv[1], embedder="local", llm="rules", settings=Settings(db=sys.argv[1]))
mem.lifecycle.run_once(datetime.fromisoformat(sys.argv[2]))
print("committed")
"""


def test_a_worker_killed_mid_task_leaves_it_to_the_next_once_its_lease_ends(
    mem: Memory, location: str
) -> None:
    t0 = utcnow()
    recs = [mem.put(f"User once mentioned errand number {i}.", user_id=U, importance=1) for i in range(3)]
    mem.lifecycle.seed(t0)
    late = t0 + 61 * DAY
    for j in task_jobs(mem, "purge"):  # only the TTL run is due in this test
        mem.backend.apply(WriteBatch(complete_job=j.id))
    env = {**os.environ, "MEMLANE_FAULT": "task_before_commit"}
    proc = subprocess.run(
        [sys.executable, "-c", CRASH, location, late.isoformat()],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 86 and "committed" not in proc.stdout, proc.stderr
    assert all(mem.get(r.id, user_id=U).state is MemoryState.ACTIVE for r in recs)  # the crash wrote nothing
    assert mem.lifecycle.run_once(late + timedelta(seconds=10)) is False  # still leased to the dead worker
    assert mem.lifecycle.run_once(late + timedelta(minutes=6)) is True
    for r in recs:
        assert [h.event for h in mem.history(r.id, user_id=U)].count(HistoryEvent.TTL) == 1
    assert (
        len(task_jobs(mem, "ttl", JobStatus.DONE)) == 1 and len(task_jobs(mem, "ttl", JobStatus.PENDING)) == 1
    )
