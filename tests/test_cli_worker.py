"""``memlane worker`` as a real process over a real SQLite file: it forms memories from turns another
process queued (with its own worker off), runs due periodic tasks, and stops cleanly on SIGTERM;
``--once`` runs what is due and exits."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from memlane import Memory
from memlane.model.config import Settings
from memlane.model.jobs import JobStatus
from tests.formation_helpers import local_embedder, wait_until


def worker_cmd(db: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "memlane.cli", "worker", "--db", str(db), "--embedder", "local", *args]


def test_a_worker_process_forms_what_another_process_queued_and_stops_on_sigterm(tmp_path: Path) -> None:
    db = tmp_path / "memlane.db"
    with Memory(
        str(db), embedder=local_embedder(), llm="rules", settings=Settings(db=str(db), worker=False)
    ) as mem:
        mem.put("User drinks green tea.", user_id="maya")  # a user the worker schedules tasks for at start
        mem.add("I just moved to Lisbon, and my daughter Ivy is six.", user_id="maya")
        time.sleep(0.5)
        assert (
            mem._worker is None and len(mem.list(user_id="maya")) == 1
        )  # MEMLANE_WORKER off: nothing ran here
        proc = subprocess.Popen(
            worker_cmd(db, "--poll", "0.1"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            wait_until(
                lambda: len(mem.list(user_id="maya")) >= 3,
                timeout=90,
                what="the worker process to form memories",
            )
            wait_until(
                lambda: len(mem.backend.jobs.scheduled_users("task.ttl")) == 1,
                timeout=30,
                what="the worker to schedule the user's TTL run",
            )
        finally:
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        assert (
            "periodic tasks: ttl, purge, consolidate, insights, consent" in out
            and "memlane worker stopped" in out
        )
        left = mem.jobs.list(JobStatus.PENDING.value, user_id="maya") + mem.jobs.list(
            JobStatus.PARKED.value, user_id="maya"
        )
        # the next runs; no formation job left
        assert sorted(j.kind for j in left) == [
            "task.consent",
            "task.consolidate",
            "task.insights",
            "task.purge",
            "task.ttl",
        ]
        summaries = " ".join(r.summary for r in mem.list(user_id="maya"))
        assert "Lisbon" in summaries and "Ivy" in summaries


def test_worker_once_runs_what_is_due_and_exits(tmp_path: Path) -> None:
    db = tmp_path / "memlane.db"
    with Memory(
        str(db), embedder=local_embedder(), llm="rules", settings=Settings(db=str(db), worker=False)
    ) as mem:
        mem.add("My favourite colour is teal.", user_id="maya")
    done = subprocess.run(worker_cmd(db, "--once"), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ran 1 job(s) and 0 task(s)")  # the candidate's decision; tasks not yet due
    with Memory(
        str(db), embedder=local_embedder(), llm="rules", settings=Settings(db=str(db), worker=False)
    ) as mem:
        assert [r.summary for r in mem.list(user_id="maya")] == ["User's favourite colour is teal."]
        assert len(mem.backend.jobs.scheduled_users("task.ttl")) == 1
