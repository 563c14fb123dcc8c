"""``memlane ops``: operational tracking, op events counted per day, node, op and status."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from memlane.cli import render
from memlane.cli.app import DbOption, EmbedderOption, JsonOption, app, open_memory, print_json


@app.command("ops")
def ops(
    since: Annotated[
        str | None, typer.Option(help="From this time (ISO 8601) [default: 7 days ago].")
    ] = None,
    until: Annotated[str | None, typer.Option(help="Up to this time (ISO 8601) [default: now].")] = None,
    user: Annotated[str | None, typer.Option("--user", "-u", help="Only this user's events.")] = None,
    db: DbOption = None,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """What memlane did and when: hot-path classifications, decisions, context searches and task
    runs, counted per UTC day (no text)."""
    with open_memory(db, embedder, must_exist=True) as mem:
        rows = mem.op_counts(since=since, until=until, user_id=user)
    if as_json:
        print_json([r.model_dump() for r in rows])
        return
    table = Table(title=f"{sum(r.count for r in rows)} op event(s)", title_justify="left")
    for col in ("day", "node", "op", "status", "count"):
        table.add_column(col, justify="right" if col == "count" else "left")
    for r in rows:
        table.add_row(r.day, r.node, r.op, r.status, str(r.count))
    render.console().print(table)
