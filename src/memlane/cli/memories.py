"""Memory commands: put, get, list, search, history, delete, pin, retype, restore, purge, users."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer

from memlane.cli import render
from memlane.cli.app import (
    CliError,
    CreateDirsOption,
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
from memlane.model.enums import MemoryState, MemoryType

if TYPE_CHECKING:
    from memlane.model.misfiled import Misfiled
    from memlane.model.record import HistoryEntry, SearchHit

PANEL = "Memories"


def _filters(
    type_: MemoryType | None = None, category: str | None = None, state: MemoryState | None = None
) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    if type_ is not None:
        out["type"] = type_.value
    if category is not None:
        out["category"] = category
    if state is not None:
        out["state"] = state.value
    return out or None


def _json_filter(value: str | None) -> dict[str, Any] | None:
    if value is None:
        return None
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError as exc:
        raise typer.BadParameter(
            f"not valid JSON ({exc.msg} at character {exc.pos})", param_hint="'--filter'"
        ) from None
    return parsed  # the engine says what is wrong with a parsed value (not an object, unknown field, ...)


@app.command(rich_help_panel=PANEL)
def put(
    summary: Annotated[
        str,
        typer.Argument(
            metavar="SUMMARY", help="The memory's text (1-2 sentences, third person).", show_default=False
        ),
    ],
    user: UserOption,
    type_: Annotated[MemoryType, typer.Option("--type", help="Memory type.")] = MemoryType.SEMANTIC,
    category: Annotated[str | None, typer.Option(help="Category, e.g. Personal \\[default: Other].")] = None,
    key: Annotated[
        str | None, typer.Option(help="Deterministic key: putting the same key again updates in place.")
    ] = None,
    importance: Annotated[int, typer.Option(min=1, max=5, help="Importance 1-5.")] = 3,
    pinned: Annotated[bool, typer.Option("--pinned", help="Always rank this memory higher.")] = False,
    tag: Annotated[list[str] | None, typer.Option("--tag", help="A tag (repeat for several).")] = None,
    db: DbOption = None,
    create_dirs: CreateDirsOption = False,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Store a memory and print it."""
    with open_memory(db, embedder, create_dirs=create_dirs) as mem:
        rec = mem.put(
            summary,
            user_id=user,
            type=type_,
            category=category,
            key=key,
            importance=importance,
            pinned=pinned,
            tags=tag or None,
            actor="cli",
        )
    if as_json:
        print_json(rec.snapshot())
    else:
        render.console().print(render.memory_panel(rec, title="stored"))


@app.command(rich_help_panel=PANEL)
def get(
    memory_id: IdArgument,
    user: UserOption,
    db: DbOption = None,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show one memory."""
    with open_memory(db, embedder, must_exist=True) as mem:
        rec = mem.get(resolve_id(mem, user, memory_id), user_id=user)
    if as_json:
        print_json(rec.snapshot())
    else:
        render.console().print(render.memory_panel(rec))


@app.command("list", rich_help_panel=PANEL)
def list_(
    user: UserOption,
    type_: Annotated[MemoryType | None, typer.Option("--type", help="Only this type.")] = None,
    category: Annotated[str | None, typer.Option(help="Only this category.")] = None,
    state: Annotated[
        MemoryState | None, typer.Option(help="Only this state (implies inactive ones).")
    ] = None,
    limit: Annotated[int, typer.Option(help="At most this many.")] = 50,
    offset: Annotated[int, typer.Option(help="Skip this many first.")] = 0,
    all_: Annotated[bool, typer.Option("--all", help="Include superseded and deleted memories.")] = False,
    db: DbOption = None,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """List a user's memories, newest first."""
    with open_memory(db, embedder, must_exist=True) as mem:
        records = mem.list(
            user_id=user,
            filters=_filters(type_, category, state),
            limit=limit,
            offset=offset,
            include_inactive=all_,
        )
    if as_json:
        print_json([r.snapshot() for r in records])
    elif not records:
        typer.echo(f"no memories for user {user}")
    else:
        render.console().print(
            render.memories_table(records, show_state=all_ or state is not None, reader=user)
        )


@app.command(rich_help_panel=PANEL)
def search(
    query: Annotated[
        str, typer.Argument(metavar="QUERY", help="What to look for, in plain words.", show_default=False)
    ],
    user: UserOption,
    limit: Annotated[int, typer.Option(help="At most this many results.")] = 10,
    threshold: Annotated[float | None, typer.Option(help="Minimum similarity (-1 to 1).")] = None,
    preset: Annotated[
        str | None,
        typer.Option(
            help="Retrieval preset: balanced, recent-first, precise or broad (default: MEMLANE_SEARCH_PRESET)."
        ),
    ] = None,
    filter_: Annotated[
        str | None,
        typer.Option("--filter", metavar="JSON", help='Metadata filter, e.g. \'{"category": "Work"}\'.'),
    ] = None,
    db: DbOption = None,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Search a user's memories; shows each result's score breakdown."""
    filters = _json_filter(filter_)
    with open_memory(db, embedder, must_exist=True) as mem:
        # cast: the engine's `Memory.list` method shadows `list` in its later return annotations (mypy)
        hits = cast(
            "list[SearchHit]",
            mem.search(query, user_id=user, filters=filters, limit=limit, threshold=threshold, preset=preset),
        )
    if as_json:
        print_json([render.hit_json(n, h) for n, h in enumerate(hits, start=1)])
    elif not hits:
        typer.echo("no matching memories")
    else:
        render.console().print(
            render.search_table(hits, pin_margin=mem.settings.memory_pin_margin, reader=user)
        )


@app.command(rich_help_panel=PANEL)
def history(
    memory_id: IdArgument,
    user: UserOption,
    db: DbOption = None,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show every change to a memory: event, time, actor, reason, old -> new."""
    with open_memory(db, embedder, must_exist=True) as mem:
        memory_id = resolve_id(mem, user, memory_id)
        entries = cast("list[HistoryEntry]", mem.history(memory_id, user_id=user))
    if as_json:
        print_json([e.model_dump(mode="json") for e in entries])
    else:
        render.console().print(render.history_table(entries, title=f"history of {memory_id}"))


@app.command(rich_help_panel=PANEL)
def delete(
    memory_id: IdArgument, user: UserOption, db: DbOption = None, embedder: EmbedderOption = None
) -> None:
    """Soft-delete a memory (restorable until it is purged)."""
    with open_memory(db, embedder, must_exist=True) as mem:
        rec = mem.delete(resolve_id(mem, user, memory_id), user_id=user, actor="cli")
    until = f" until {render.when(rec.purge_at)} UTC" if rec.purge_at else ""
    typer.echo(f"deleted {rec.id} (restorable{until}: memlane restore {rec.id} --user {user})")


@app.command(rich_help_panel=PANEL)
def pin(
    memory_id: IdArgument,
    user: UserOption,
    off: Annotated[bool, typer.Option("--off", help="Unpin instead.")] = False,
    db: DbOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Pin a memory (it ranks higher in search and context), or unpin it with --off."""
    with open_memory(db, embedder, must_exist=True) as mem:
        rec = mem.update(resolve_id(mem, user, memory_id), user_id=user, actor="cli", pinned=not off)
    typer.echo(f"{'unpinned' if off else 'pinned'} {rec.id}: {render.safe(rec.summary)}")


RETYPE_TYPES = "semantic or episodic"


@app.command(rich_help_panel=PANEL)
def retype(
    memory_id: Annotated[
        str | None,
        typer.Argument(
            metavar="[ID]",
            help="Memory id, or a unique start of it, or the tail a table shows after '…'.",
            show_default=False,
        ),
    ] = None,
    *,
    user: UserOption,
    type_: Annotated[
        str | None,
        typer.Option("--type", help=f"The right type: {RETYPE_TYPES}.", show_default=False),
    ] = None,
    reason: Annotated[str | None, typer.Option(help="Why, for the history row.")] = None,
    suggest: Annotated[
        bool,
        typer.Option(
            "--suggest",
            help="List memories whose type looks wrong (an episodic one with a key; a semantic one "
            "dated 'yesterday', 'last week', ...); nothing is changed.",
        ),
    ] = False,
    db: DbOption = None,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Move a memory filed under the wrong type (episodic <-> semantic), with history; --suggest lists
    candidates."""
    if suggest:
        if memory_id is not None or type_ is not None:
            raise CliError("--suggest lists candidates; give it no ID and no --type")
        with open_memory(db, embedder, must_exist=True) as mem:
            found = cast("list[Misfiled]", mem.misfiled(user_id=user))
        if as_json:
            print_json([f.model_dump(mode="json") for f in found])
        elif not found:
            typer.echo(f"no misfiled memories found for user {user}")
        for f in [] if as_json else found:
            rec = f.memory
            typer.echo(
                f"{rec.id}  {rec.type.value} -> {f.suggested.value} ({f.why}): {render.safe(rec.summary)}"
            )
            typer.echo(f"  memlane retype {rec.id} --type {f.suggested.value} --user {user}")
        return
    if memory_id is None or type_ is None:
        raise CliError(f"give the memory's ID and --type ({RETYPE_TYPES}), or --suggest")
    with open_memory(db, embedder, must_exist=True) as mem:
        given = resolve_id(mem, user, memory_id)
        before = mem.get(given, user_id=user).type.value
        rec = mem.retype(given, user_id=user, type=type_, actor="cli", reason=reason)
    if as_json:
        print_json(rec.snapshot())
        return
    moved = f" as {rec.id} (its key's id under the new type)" if rec.id != given else ""
    typer.echo(f"retyped {given} from {before} to {rec.type.value}{moved}: {render.safe(rec.summary)}")


@app.command(rich_help_panel=PANEL)
def restore(
    memory_id: IdArgument, user: UserOption, db: DbOption = None, embedder: EmbedderOption = None
) -> None:
    """Bring back a soft-deleted memory."""
    with open_memory(db, embedder, must_exist=True) as mem:
        rec = mem.restore(resolve_id(mem, user, memory_id), user_id=user, actor="cli")
    typer.echo(f"restored {rec.id}: {render.safe(rec.summary)}")


@app.command(rich_help_panel=PANEL)
def purge(
    memory_id: IdArgument,
    user: UserOption,
    yes: Annotated[bool, typer.Option("--yes", help="Confirm: the content is removed for good.")] = False,
    db: DbOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Remove a memory's content for good (a tombstone and its history remain)."""
    if not yes:
        raise CliError("purge removes the memory for good; pass --yes to confirm")
    with open_memory(db, embedder, must_exist=True) as mem:
        memory_id = resolve_id(mem, user, memory_id)
        mem.purge(memory_id, user_id=user, actor="cli")
    typer.echo(f"purged {memory_id}")


@app.command(rich_help_panel=PANEL)
def users(db: DbOption = None, embedder: EmbedderOption = None, as_json: JsonOption = False) -> None:
    """List the user ids that have memories."""
    with open_memory(db, embedder, must_exist=True) as mem:
        ids = cast("list[str]", mem.users())
    if as_json:
        print_json(ids)
    else:
        for user_id in ids:
            typer.echo(user_id)
