"""When periodic tasks run: one durable job per (user, task, slot) in the jobs table.

A task runs every ``every`` for each user, at an offset within the period taken from a hash of the
user and the task, so users' runs spread over the period instead of starting together. A job's id
is derived from (user, task, slot): seeding the same slot twice, from any number of workers, enqueues
it once, and a run schedules the next slot in the transaction that completes it.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

from memlane.model.ids import deterministic_id
from memlane.model.jobs import Job

TASK_PREFIX = "task."
EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


def kind_of(task: str) -> str:
    return TASK_PREFIX + task


def _offset(user_id: str, task: str, every: timedelta) -> timedelta:
    digest = int.from_bytes(hashlib.sha256(f"{user_id}|{task}".encode()).digest()[:8], "big")
    return timedelta(microseconds=digest % max(1, int(every / timedelta(microseconds=1))))


def next_slot(user_id: str, task: str, every: timedelta, now: datetime) -> tuple[int, datetime]:
    """The first slot of the user's task due strictly after ``now``: its number and due time."""
    start = EPOCH + _offset(user_id, task, every)
    slot = (now - start) // every + 1
    return slot, start + slot * every


def task_job(user_id: str, task: str, every: timedelta, now: datetime) -> Job:
    """The job of the user's next ``task`` run after ``now``."""
    slot, due = next_slot(user_id, task, every, now)
    return Job(
        id=deterministic_id(user_id, "task", f"{task}@{slot}"),
        user_id=user_id,
        kind=kind_of(task),
        payload={"task": task, "slot": slot},
        run_after=due,
        created_at=now,
        updated_at=now,
    )
