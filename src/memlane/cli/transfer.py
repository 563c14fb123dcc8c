"""export / import: a user's memories, relations, history and chat sessions with their messages as JSON
Lines (one row per line)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from memlane.cli import render
from memlane.cli.app import CliError, CreateDirsOption, DbOption, EmbedderOption, UserOption, app, open_memory

PANEL = "Transfer"


def _write_rows(rows: Iterator[dict[str, Any]], stream: IO[str]) -> tuple[int, int]:
    total = memories = 0
    for row in rows:
        stream.write(json.dumps(row, ensure_ascii=False) + "\n")
        total += 1
        memories += row.get("kind") == "memory"
    return total, memories


@app.command("export", rich_help_panel=PANEL)
def export(
    user: UserOption,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", help="Write to this file \\[default: stdout].", dir_okay=False, show_default=False
        ),
    ] = None,
    db: DbOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Export a user's memories, relations, history and chat sessions (with messages) as JSONL."""
    with open_memory(db, embedder, must_exist=True) as mem:
        rows = mem.export_user(user)
        if out is None:
            _write_rows(rows, sys.stdout)
            return
        partial = out.with_name(out.name + ".partial")
        try:  # write aside, then rename: a failed export never leaves a half-written file as ``out``
            with partial.open("w", encoding="utf-8") as stream:
                total, memories = _write_rows(rows, stream)
            os.replace(partial, out)
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise CliError(f"cannot write {out}: {exc.strerror or exc}") from None
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
    typer.echo(
        f"exported {render.plural(memories, 'memory')} ({render.plural(total, 'row')}) of {user} to {out}",
        err=True,
    )


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every row of a JSONL file (``-`` is stdin); a bad line is an error naming its number."""
    try:
        lines = sys.stdin.readlines() if str(path) == "-" else path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    rows = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise CliError(f"{path} line {n}: not valid JSON ({exc.msg})") from None
    return rows


@app.command("import", rich_help_panel=PANEL)
def import_(
    file: Annotated[
        Path,
        typer.Argument(
            metavar="FILE", help="JSONL written by 'memlane export' ('-' for stdin).", show_default=False
        ),
    ],
    user: Annotated[
        str | None,
        typer.Option(
            "--user",
            "-u",
            help="Import as this user (another user's export "
            "gets new ids) \\[default: the users in the file].",
            show_default=False,
        ),
    ] = None,
    batch_size: Annotated[int, typer.Option(min=1, max=10_000, help="Memories embedded per batch.")] = 64,
    db: DbOption = None,
    create_dirs: CreateDirsOption = False,
    embedder: EmbedderOption = None,
) -> None:
    """Import memories (re-embedded), relations, history and chat sessions from JSONL; all rows are checked
    first."""
    from memlane.engine.importer import import_rows

    rows = read_jsonl(file)
    total = sum(1 for r in rows if isinstance(r, dict) and r.get("kind", "memory") == "memory")
    with open_memory(db, embedder, create_dirs=create_dirs) as mem:
        progress = Progress(
            TextColumn("importing"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=render.console(stderr=True),
            transient=True,
        )
        with progress:
            task = progress.add_task("import", total=total)
            count = import_rows(
                mem, rows, batch_size=batch_size, user_id=user, progress=lambda n: progress.advance(task, n)
            )
        target = mem.settings.db
    chats = {
        k: sum(1 for r in rows if isinstance(r, dict) and r.get("kind") == k) for k in ("session", "message")
    }
    extra = (
        f" with {render.plural(chats['session'], 'session')} of {render.plural(chats['message'], 'message')}"
        if chats["session"]
        else ""
    )
    typer.echo(
        f"imported {render.plural(count, 'memory')}{extra} into {target}" + (f" as {user}" if user else "")
    )
