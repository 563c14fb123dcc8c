"""``memlane worker``: run formation jobs and the periodic tasks until stopped (or once, for cron)."""

from __future__ import annotations

import contextlib
import signal
from typing import Annotated, Any

import typer

from memlane.cli.app import DbOption, EmbedderOption, app, open_memory


@app.command()
def worker(
    once: Annotated[bool, typer.Option("--once", help="Run what is due now, then exit (for cron).")] = False,
    tasks: Annotated[
        bool,
        typer.Option(
            "--tasks/--no-tasks",
            help="Also run the periodic tasks (MEMLANE_SCHEDULE: TTL, purge) on their per-user schedule.",
        ),
    ] = True,
    poll: Annotated[float, typer.Option(min=0.05, help="Seconds between polls when idle.")] = 0.5,
    db: DbOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Run background work: formation jobs, then the periodic tasks that are due.

    Any number of workers can share a PostgreSQL database (each job runs once, SKIP LOCKED); on
    SQLite they take turns at the file's write lock. A worker killed mid-job leaves it to another once
    its lease ends. Run `memlane serve --no-worker` when workers run separately."""
    from memlane.engine.worker import Worker

    with open_memory(db, embedder) as mem:
        if once:
            ran = mem.process_jobs()
            due = mem.run_tasks() if tasks else 0
            typer.echo(f"ran {ran} job(s) and {due} task(s)")
            return
        loop = Worker(mem.formation, mem.lifecycle if tasks else None, poll_seconds=poll)

        def stop(*_: Any) -> None:
            loop.stop()

        signal.signal(signal.SIGTERM, stop)
        which = ", ".join(mem.lifecycle.schedule) if tasks and mem.lifecycle.schedule else "none"
        typer.echo(
            f"memlane worker {mem.formation.worker_id} on {mem.settings.db} (periodic tasks: {which}); "
            "Ctrl-C stops it"
        )
        with contextlib.suppress(KeyboardInterrupt):
            loop.run()  # in this thread
        typer.echo("memlane worker stopped")
