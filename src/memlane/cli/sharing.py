"""Shared and global memories: ``memlane share``, ``unshare``, ``shares`` and ``memlane global``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, cast

import typer
from rich.table import Table

from memlane.cli import render
from memlane.cli.app import (
    CliError,
    DbOption,
    EmbedderOption,
    IdArgument,
    JsonOption,
    UserOption,
    app,
    open_memory,
    print_json,
)
from memlane.cli.ids import resolve_id

if TYPE_CHECKING:
    from memlane.model.link import MemoryLink
    from memlane.model.record import MemoryRecord

PANEL = "Sharing"
UsersOption = Annotated[
    list[str] | None,
    typer.Option(
        "--from", help="A user to unshare from (repeat for several; the owner's default: everyone)."
    ),
]
global_app = typer.Typer(
    help="Global memories: linked to every user with fewer than "
    "MEMORY_GLOBAL_BOOTSTRAP_BELOW memories of their own.",
    no_args_is_help=True,
)
app.add_typer(global_app, name="global", rich_help_panel=PANEL)


def _links(links: Sequence[MemoryLink], as_json: bool, title: str) -> None:
    if as_json:
        print_json([k.model_dump(mode="json") for k in links])
        return
    table = Table(title=title, title_justify="left")
    for col in ("user", "linked by", "linked (UTC)", "unlinked (UTC)"):
        table.add_column(col)
    for k in links:
        table.add_row(k.user_id, k.linked_by, render.when(k.linked_at), render.when(k.unlinked_at))
    render.console().print(table)


@app.command(rich_help_panel=PANEL)
def share(
    memory_id: IdArgument,
    user: UserOption,
    with_: Annotated[list[str], typer.Option("--with", help="A user to share with (repeat for several).")],
    db: DbOption = None,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Let other users see one of your memories (they can read it, never change it)."""
    with open_memory(db, embedder, must_exist=True) as mem:
        memory_id = resolve_id(mem, user, memory_id)
        links = cast(
            "list[MemoryLink]", mem.sharing.share(memory_id, user_id=user, with_users=with_, actor="cli")
        )
    _links(links, as_json, f"{memory_id} shared with")


@app.command(rich_help_panel=PANEL)
def unshare(
    memory_id: IdArgument,
    user: UserOption,
    from_: UsersOption = None,
    reason: Annotated[str | None, typer.Option(help="Why (kept in the history).")] = None,
    db: DbOption = None,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Stop sharing your memory, or remove a memory shared with you from your own."""
    with open_memory(db, embedder, must_exist=True) as mem:
        memory_id = resolve_id(mem, user, memory_id)
        links = cast(
            "list[MemoryLink]",
            mem.sharing.unshare(
                memory_id, user_id=user, from_users=from_ or None, actor="cli", reason=reason
            ),
        )
    _links(links, as_json, f"{memory_id} unshared")


@app.command(rich_help_panel=PANEL)
def shares(
    memory_id: IdArgument,
    user: UserOption,
    db: DbOption = None,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Whom a memory is shared with (its owner sees every link, anyone else their own)."""
    with open_memory(db, embedder, must_exist=True) as mem:
        memory_id = resolve_id(mem, user, memory_id)
        links = cast("list[MemoryLink]", mem.sharing.shared_with(memory_id, user_id=user))
    _links(links, as_json, f"links of {memory_id}")


@global_app.command("put")
def put_global(
    summary: Annotated[str, typer.Argument(metavar="SUMMARY", help="The memory's text.", show_default=False)],
    category: Annotated[str | None, typer.Option(help="Category \\[default: Other].")] = None,
    key: Annotated[
        str | None, typer.Option(help="Deterministic key: putting it again updates in place.")
    ] = None,
    importance: Annotated[int, typer.Option(min=1, max=5, help="Importance 1-5.")] = 3,
    tag: Annotated[list[str] | None, typer.Option("--tag", help="A tag (repeat for several).")] = None,
    db: DbOption = None,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Store a global memory."""
    with open_memory(db, embedder) as mem:
        rec = mem.sharing.put_global(
            summary, category=category, key=key, importance=importance, tags=tag or None, actor="cli"
        )
    if as_json:
        print_json(rec.snapshot())
    else:
        render.console().print(render.memory_panel(rec, title="stored (global)"))


@global_app.command("list")
def list_global(
    limit: Annotated[int, typer.Option(help="At most this many.")] = 50,
    all_: Annotated[bool, typer.Option("--all", help="Include deleted and purged ones.")] = False,
    db: DbOption = None,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the global memories, newest first."""
    with open_memory(db, embedder, must_exist=True) as mem:
        records = cast("list[MemoryRecord]", mem.sharing.list_global(limit=limit, include_inactive=all_))
    if as_json:
        print_json([r.snapshot() for r in records])
    elif not records:
        typer.echo("no global memories")
    else:
        render.console().print(render.memories_table(records, show_state=all_))


@global_app.command("purge")
def purge_global(
    memory_id: Annotated[
        str, typer.Argument(metavar="ID", help="The global memory's full id.", show_default=False)
    ],
    yes: Annotated[
        bool, typer.Option("--yes", help="Confirm: it is removed for every user, for good.")
    ] = False,
    db: DbOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Remove a global memory for every user, for good."""
    if not yes:
        raise CliError("purge removes the global memory for every user for good; pass --yes to confirm")
    with open_memory(db, embedder, must_exist=True) as mem:
        mem.sharing.purge_global(memory_id, actor="cli")
    typer.echo(f"purged global memory {memory_id}")
