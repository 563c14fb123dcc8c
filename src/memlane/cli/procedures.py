"""``memlane procedure``: save, list and show a user's procedures (numbered imperative steps)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from memlane.cli import render
from memlane.cli.app import DbOption, EmbedderOption, JsonOption, UserOption, app, open_memory, print_json

if TYPE_CHECKING:
    from memlane.model.record import MemoryRecord

procedure_app = typer.Typer(
    help="Procedures: how-to steps agents allowed `procedural` can fetch.", no_args_is_help=True
)
app.add_typer(procedure_app, name="procedure")

NameArgument = Annotated[
    str,
    typer.Argument(
        metavar="NAME", help="What the procedure does, e.g. 'deploy the blog'.", show_default=False
    ),
]


def _show(rec: MemoryRecord, as_json: bool, title: str = "procedure") -> None:
    if as_json:
        print_json(rec.snapshot())
        return
    out = render.console()
    out.print(render.memory_panel(rec, title=title))
    for n, step in enumerate(rec.metadata.get("steps", []), 1):
        out.print(f"  {n}. {step}", markup=False, highlight=False)


@procedure_app.command("add")
def add(
    name: NameArgument,
    steps: Annotated[
        list[str],
        typer.Argument(metavar="STEP...", help="The steps in order, one argument each.", show_default=False),
    ],
    user: UserOption,
    tag: Annotated[list[str] | None, typer.Option("--tag", help="A tag (repeat for several).")] = None,
    importance: Annotated[int, typer.Option(min=1, max=5, help="Importance 1-5.")] = 3,
    db: DbOption = None,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Save a procedure; saving the same name again replaces its steps (the old ones stay in history)."""
    with open_memory(db, embedder) as mem:
        rec = mem.procedures.add(
            name, steps, user_id=user, tags=tag or None, importance=importance, actor="cli"
        )
    _show(rec, as_json, "saved")


@procedure_app.command("show")
def show(
    name: NameArgument,
    user: UserOption,
    db: DbOption = None,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show one procedure and its steps."""
    with open_memory(db, embedder, must_exist=True) as mem:
        rec = mem.procedures.get(name, user_id=user)
    _show(rec, as_json)


@procedure_app.command("list")
def list_(
    user: UserOption, db: DbOption = None, embedder: EmbedderOption = None, as_json: JsonOption = False
) -> None:
    """The user's procedures."""
    with open_memory(db, embedder, must_exist=True) as mem:
        rows = mem.procedures.list(user_id=user)
    if as_json:
        print_json([r.snapshot() for r in rows])
    else:
        render.console().print(render.memories_table(rows, title=f"{render.plural(len(rows), 'procedure')}"))
