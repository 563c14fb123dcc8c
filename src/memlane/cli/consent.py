"""``memlane proposals``: proposed changes to sensitive fields (docs/consent.md), listed, accepted, rejected."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, cast

import typer
from rich.table import Table
from rich.text import Text

from memlane.cli import render
from memlane.cli.app import DbOption, EmbedderOption, JsonOption, UserOption, app, open_memory, print_json

if TYPE_CHECKING:
    from memlane.model.consent import Proposal

proposals_app = typer.Typer(
    help="Consent: changes to sensitive fields wait here for a decision.", no_args_is_help=True
)
app.add_typer(proposals_app, name="proposals")
IdArgument = Annotated[str, typer.Argument(metavar="ID", help="Proposal id.", show_default=False)]
ReasonOption = Annotated[str | None, typer.Option(help="Why (kept in the memory's history).")]
ByOption = Annotated[
    str,
    typer.Option("--by", help="Who decides, as the history names it (user:<id> when the user asked you)."),
]


def _show(p: Proposal, verb: str) -> None:
    typer.echo(f"{verb} proposal {p.id} ({p.field}): {p.current!r} -> {p.candidate.summary!r}")


@proposals_app.command("list")
def list_proposals(
    user: UserOption,
    status: Annotated[
        str, typer.Option(help="pending (still open), accepted, rejected, expired, replaced or all.")
    ] = "pending",
    limit: Annotated[int, typer.Option(min=1, max=10_000)] = 50,
    db: DbOption = None,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """The user's proposals, oldest first."""
    with open_memory(db, embedder, must_exist=True) as mem:
        found = cast(
            "list[Proposal]",
            mem.proposals.list(user_id=user, status=None if status == "all" else status, limit=limit),
        )
    if as_json:
        print_json([p.model_dump(mode="json") for p in found])
        return
    table = Table(title=f"{render.plural(len(found), 'proposal')}", title_justify="left")
    for col in ("id", "field", "now -> proposed", "sig", "status", "expires (UTC)"):
        table.add_column(col, ratio=1 if col.startswith("now") else None, no_wrap=col.startswith("expires"))
    for p in found:
        decided = Text(p.status.value) + (
            Text(f"\nby {p.decided_by}", style="dim") if p.decided_by else Text()
        )
        table.add_row(
            render.id_text(p.id, style=""),
            p.field,
            Text.assemble((p.current, "dim"), " -> ", p.candidate.summary),
            str(p.signals),
            decided,
            render.when(p.expires_at),
        )
    render.console().print(table)


@proposals_app.command("accept")
def accept(
    proposal_id: IdArgument,
    user: UserOption,
    reason: ReasonOption = None,
    by: ByOption = "admin:cli",
    db: DbOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Apply a proposed change: the memory is superseded (its history names who decided)."""
    with open_memory(db, embedder, must_exist=True) as mem:
        _show(mem.proposals.accept(proposal_id, user_id=user, actor=by, reason=reason), "accepted")


@proposals_app.command("reject")
def reject(
    proposal_id: IdArgument,
    user: UserOption,
    reason: ReasonOption = None,
    by: ByOption = "admin:cli",
    db: DbOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Refuse a proposed change: the memory stays as it is."""
    with open_memory(db, embedder, must_exist=True) as mem:
        _show(mem.proposals.reject(proposal_id, user_id=user, actor=by, reason=reason), "rejected")
