"""A real memlane worker process for the durability tests.

``python -m tests.crash_worker --db LOCATION [--fact TEXT ...] [--mode crash|drain] [--lease S]`` opens the
store (SQLite file or PostgreSQL URL) with the local embedder and a scripted LLM, then:

* ``crash``: accepts the facts with ``add_facts`` (the background worker thread is held at the user
  lock until the acceptance is reported on stdout), then lets the worker run. Started with
  ``MEMLANE_FAULT=before_commit``, the process ends with ``os._exit`` right before the first decision
  commits; a restarted worker must finish the job once the lease (``--lease`` seconds) has run out.
* ``drain``: submits the facts with ``add_facts(wait=True)`` and keeps calling ``process_jobs`` until no
  job is pending or running, alongside any other worker process on the same queue.

``python -m tests.crash_worker --stdin`` loads the embedding model first (seconds), reports
``{"step": "loaded"}`` and then reads its arguments as one JSON list from stdin: tests start workers
ahead of need, and the line they send is also the start signal (EOF: exit without work).

One JSON line per step goes to stdout (``accepted``, ``done``, ``error``). Waits are bounded by ``--timeout``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from memlane.model.jobs import JobStatus
from tests.formation_helpers import ScriptedLLM, local_embedder, open_memory


def report(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


def run(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="crash_worker")
    p.add_argument("--db", required=True)
    p.add_argument("--user", default="maya")
    p.add_argument("--fact", action="append", default=[])
    p.add_argument("--mode", choices=["crash", "drain"], default="crash")
    p.add_argument("--lease", type=float, default=60.0)
    p.add_argument("--timeout", type=float, default=60.0)
    args = p.parse_args(argv)
    deadline = time.monotonic() + args.timeout

    mem = open_memory(args.db, ScriptedLLM())
    mem.formation.lease_seconds = args.lease
    decided: list[str] = []  # decisions this process committed (each publishes created or merged)
    mem.events.subscribe(
        lambda e: decided.append(e.type) if e.type in ("memory.created", "memory.merged") else None
    )
    facts = [{"summary": f} for f in args.fact]
    if args.mode == "crash":
        with mem.backend.user_lock(args.user):  # the worker thread claims a job, then waits here
            accepted = mem.add_facts(facts, user_id=args.user, wait=False)
            report(step="accepted", facts=[c.summary for c in accepted], worker=mem.formation.worker_id)
    else:
        mem.add_facts(facts, user_id=args.user, wait=True)
    while True:  # crash: the worker thread dies in here; drain: run what is runnable until none is left
        if args.mode == "drain":
            mem.process_jobs()
        busy = mem.jobs.list(JobStatus.PENDING.value) + mem.jobs.list(JobStatus.RUNNING.value)
        if not busy:
            break
        if time.monotonic() > deadline:
            report(step="error", error=f"jobs still busy: {[(j.id, j.status.value) for j in busy]}")
            return 3
        time.sleep(0.01)
    report(step="done", decided=len(decided), worker=mem.formation.worker_id)
    mem.close()
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] != ["--stdin"]:
        return run(argv)
    local_embedder()
    report(step="loaded")
    line = sys.stdin.readline()
    return run(json.loads(line)) if line.strip() else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
