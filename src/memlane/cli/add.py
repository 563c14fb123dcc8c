"""``memlane add``: run formation on a message (the hot path, as ``POST /v1/memory/turns`` with
``wait``) and print what was decided for each fact found in it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.text import Text

from memlane.cli import render
from memlane.cli.app import (
    CreateDirsOption,
    DbOption,
    EmbedderOption,
    JsonOption,
    UserOption,
    app,
    open_memory,
    print_json,
)

if TYPE_CHECKING:
    from memlane.ledger.events import MemoryEvent

ACTIONS = {
    "create": "added",
    "merge": "already known, merged",
    "supersede": "replaced an older memory",
    "history": "kept as an earlier version (said before the current memory)",
    "ignore": "ignored",
    "propose": "waits for consent (memlane proposals)",
}


@app.command(rich_help_panel="Memories")
def add(
    text: Annotated[
        str, typer.Argument(metavar="TEXT", help="What the user said, in their words.", show_default=False)
    ],
    user: UserOption,
    thread: Annotated[str | None, typer.Option("--thread", help="Thread (conversation) id.")] = None,
    db: DbOption = None,
    create_dirs: CreateDirsOption = False,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Form memories from a message: extract facts, then add, merge or replace (the chat hot path)."""
    errors: list[MemoryEvent] = []
    with open_memory(db, embedder, create_dirs=create_dirs) as mem:
        unsubscribe = mem.events.subscribe(
            lambda e: errors.append(e) if e.type == "memory.error" else None, user_id=user
        )
        try:
            turn_id, _ = mem.add_turn(text, user_id=user, thread_id=thread, wait=True)
        finally:
            unsubscribe()
        outcomes = mem.jobs.outcomes(turn_id, user_id=user)
        pending = mem.jobs.pending([turn_id], user_id=user)
    left_out = [
        {"code": e.data.get("code"), "message": e.data.get("message")}
        for e in errors
        if pending is None or e.data.get("code") != "job_failed"
    ]  # a failed attempt is the pending reason
    if as_json:
        print_json(
            {
                "turn_id": turn_id,
                "decisions": [o.model_dump() for o in outcomes],
                "left_out": left_out,
                "pending": None if pending is None else pending.model_dump(),
            }
        )
        return
    if pending is not None:
        typer.echo(f"pending ({pending.code}): {pending.message}")
    elif not outcomes and not left_out:
        typer.echo("nothing to remember in this message (no durable fact found)")
    out = render.console()
    for o in outcomes:
        out.print(Text.assemble((f"{ACTIONS.get(o.action, o.action)}: ", "bold"), o.summary))
        if o.memory_id:
            out.print(Text.assemble("  memory ", (o.memory_id, "dim")))
    for item in left_out:
        out.print(Text.assemble(("left out: ", "bold red"), _left_out_text(item)))


def _left_out_text(item: dict[str, Any]) -> str:
    return f"{item['message']} ({item['code']})" if item.get("code") else str(item["message"])
