"""``memlane jobs``: see, retry and run the background formation jobs."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from memlane.cli import render
from memlane.cli.app import DbOption, EmbedderOption, JsonOption, app, open_memory, print_json

jobs_app = typer.Typer(
    help="Background jobs: list them, retry parked ones (`memlane worker` runs them).", no_args_is_help=True
)
app.add_typer(jobs_app, name="jobs")


@jobs_app.command("list")
def list_jobs(
    status: Annotated[str | None, typer.Option(help="pending, running, done or parked.")] = None,
    user: Annotated[str | None, typer.Option("--user", "-u", help="Only this user's jobs.")] = None,
    limit: Annotated[int, typer.Option(min=1, max=10_000)] = 50,
    db: DbOption = None,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Jobs, oldest first, with their attempts and last error."""
    with open_memory(db, embedder, must_exist=True) as mem:
        jobs = mem.jobs.list(status, user_id=user, limit=limit)
    if as_json:
        print_json([j.model_dump(mode="json") for j in jobs])
        return
    table = Table(title=f"{len(jobs)} job(s)", title_justify="left")
    for col in ("id", "kind", "user", "status", "attempts", "created", "last error"):
        table.add_column(col, ratio=1 if col == "last error" else None)
    for j in jobs:
        table.add_row(
            render.id_text(j.id, style=""),
            j.kind,
            j.user_id,
            j.status.value,
            str(j.attempts),
            j.created_at.strftime("%Y-%m-%d %H:%M:%S"),
            (j.last_error or "")[:80],
        )
    render.console().print(table)


@jobs_app.command("retry")
def retry(
    job_id: Annotated[
        str | None, typer.Argument(metavar="[ID]", help="A parked job's id.", show_default=False)
    ] = None,
    all_parked: Annotated[
        bool, typer.Option("--all", help="Every parked job (of --user when given).")
    ] = False,
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="With --all: only this user's jobs.")
    ] = None,
    db: DbOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Put a parked job (or, with --all, every parked job) back in the queue (attempts start again)."""
    if (job_id is None) == (not all_parked):
        raise typer.BadParameter(
            "give a parked job's ID or --all, not both"
            if job_id
            else "give a parked job's ID, or --all for every parked job"
        )
    if user is not None and not all_parked:
        raise typer.BadParameter("--user goes with --all")
    with open_memory(db, embedder, must_exist=True) as mem:
        if job_id is not None:
            mem.jobs.retry(job_id)
            typer.echo(f"job {job_id} is pending again")
            return
        ids = mem.jobs.retry_many(user_id=user)
    typer.echo(f"{len(ids)} parked job(s) pending again" + (f": {', '.join(ids)}" if ids else ""))
