"""``memlane reembed``: refresh stored vectors after a change of embedder or contextual header."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from memlane.cli import render
from memlane.cli.app import DbOption, EmbedderOption, app, open_memory


@app.command("reembed", rich_help_panel="Maintenance")
def reembed(
    missing_only: Annotated[
        bool, typer.Option("--missing-only", help="Embed only memories that have no vector.")
    ] = False,
    user: Annotated[
        str | None,
        typer.Option("--user", "-u", help="Only this user \\[default: every user].", show_default=False),
    ] = None,
    batch_size: Annotated[int, typer.Option(min=1, max=10_000, help="Memories embedded per batch.")] = 64,
    restart: Annotated[
        bool, typer.Option("--restart", help="Start over instead of resuming an interrupted run.")
    ] = False,
    db: DbOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Re-embed memories with the configured embedder and header (MEMORY_EMBEDDING_HEADER[_FIELDS]).
    The way to change a store's embedder (same vector size): the store answers to the new one once
    every memory is re-embedded. Resumable: an interrupted run continues where it stopped when run
    again with the same settings."""
    with open_memory(db, embedder, must_exist=True, switch_embedder=True) as mem:
        bar = Progress(
            TextColumn("re-embedding"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=render.console(stderr=True),
            transient=True,
        )
        with bar:
            task = bar.add_task("reembed", total=None)

            def tick(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            report = mem.reembed(
                missing_only=missing_only, user_id=user, batch_size=batch_size, restart=restart, progress=tick
            )
    resumed = " (resumed)" if report.resumed else ""
    typer.echo(
        f"re-embedded {render.plural(report.embedded, 'memory')} of {render.plural(report.users, 'user')}"
        f"{resumed}; embedding {report.signature.split('|')[1]} with {report.signature.split('|')[0]}"
    )
