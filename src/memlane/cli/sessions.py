"""``memlane sessions``: a user's group-chat sessions (docs/sessions.md), listed, shown, recorded from
JSONL, deleted; and the backfill of their vectors."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.console import Group
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from memlane.cli import render
from memlane.cli.app import (
    CliError,
    DbOption,
    EmbedderOption,
    JsonOption,
    UserOption,
    app,
    open_memory,
    print_json,
)
from memlane.cli.transfer import read_jsonl
from memlane.model.session import ChatSession, SessionMessage

sessions_app = typer.Typer(
    help="Group-chat sessions: recorded messages split by inactivity, and their summaries.",
    no_args_is_help=True,
)
app.add_typer(sessions_app, name="sessions")
IdArgument = Annotated[str, typer.Argument(metavar="ID", help="Session id.", show_default=False)]
ChatOption = Annotated[str, typer.Option("--chat", "-c", help="The group chat's id.", show_default=False)]


def span(s: ChatSession) -> str:
    """``2026-03-02 18:00–18:40`` (UTC), the end's date too when it is another day."""
    end = s.ended_at.strftime("%H:%M" if s.ended_at.date() == s.started_at.date() else "%Y-%m-%d %H:%M")
    return f"{render.when(s.started_at)}–{end}"


def sessions_table(found: list[ChatSession]) -> Table:
    """One session a row, its id in full on a line of its own; fits 80 columns."""
    table = Table(
        title=render.plural(len(found), "session"), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False
    )
    table.add_column("chat (session id)", overflow="fold", min_width=36)
    table.add_column("time (UTC)", min_width=11)
    table.add_column("msgs", justify="right")
    table.add_column("status, who", ratio=1, overflow="fold")
    for s in found:
        date, _, hours = span(s).partition(" ")
        table.add_row(
            Text.assemble(s.chat_id, "\n", (s.id, "dim")),
            f"{date}\n{hours}",
            str(s.message_count),
            Text.assemble(s.status.value, "\n", (", ".join(s.participants), "dim")),
        )
    return table


def messages_table(messages: list[SessionMessage]) -> Table:
    table = Table(title=render.plural(len(messages), "message"), title_justify="left")
    table.add_column("time (UTC)", no_wrap=True)
    table.add_column("from")
    table.add_column("text", ratio=1, overflow="fold")
    for m in messages:
        table.add_row(render.when(m.at), render.safe(m.sender or m.role), render.safe(m.text))
    return table


@sessions_app.command("list")
def list_sessions(
    user: UserOption,
    chat: Annotated[str | None, typer.Option("--chat", "-c", help="Only this group chat.")] = None,
    status: Annotated[str | None, typer.Option(help="open, closed, summarized or failed.")] = None,
    limit: Annotated[int, typer.Option(min=1, max=10_000)] = 100,
    db: DbOption = None,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """The user's sessions, oldest first."""
    with open_memory(db, embedder, must_exist=True) as mem:
        found = mem.sessions.list(user_id=user, chat_id=chat, status=status, limit=limit)
    if as_json:
        print_json([s.model_dump(mode="json") for s in found])
        return
    render.console().print(sessions_table(found))


@sessions_app.command("show")
def show(
    session_id: IdArgument,
    user: UserOption,
    limit: Annotated[int, typer.Option(min=1, max=10_000)] = 1000,
    db: DbOption = None,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """A session, its summary (when it has one) and its messages."""
    with open_memory(db, embedder, must_exist=True) as mem:
        session = mem.sessions.get(session_id, user_id=user)
        messages = mem.sessions.messages(session_id, user_id=user, limit=limit)
        summary = mem.get(session.memory_id, user_id=user) if session.memory_id else None
    if as_json:
        print_json(
            {
                "session": session.model_dump(mode="json"),
                "messages": [m.model_dump(mode="json") for m in messages],
                "summary": summary.snapshot() if summary else None,
            }
        )
        return
    head = Text.assemble(
        (f"{session.chat_id}  ", "bold"),
        span(session),
        f"  {session.status.value}, ",
        render.plural(session.message_count, "message"),
        f" from {', '.join(session.participants)}",
    )
    parts: list[Text | Table] = [head, Text(session.id, style="dim")]
    if summary is not None:
        parts.append(Text(f"summary ({summary.state.value}, {summary.id}): {render.safe(summary.summary)}"))
    elif session.error:
        parts.append(Text(f"summary failed: {session.error}", style="red"))
    render.console().print(Group(*parts, messages_table(messages)))


@sessions_app.command("record")
def record(
    user: UserOption,
    chat: ChatOption,
    source: Annotated[
        Path,
        typer.Option(
            "--from",
            metavar="FILE",
            show_default=False,
            help='JSONL, one message a line: {"content", "name", "role", "at"} (\'-\' for stdin).',
        ),
    ],
    db: DbOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Record a chat's messages (oldest first); each joins its session by its time."""
    rows = read_jsonl(source)
    if not rows:
        raise CliError(f"{source} holds no message")
    if not all(isinstance(r, dict) for r in rows):
        raise CliError(
            f"{source}: every line must be a JSON object such as "
            '{"name": "ana", "content": "hi", "at": "2026-03-02T18:00:00Z"}'
        )
    with open_memory(db, embedder) as mem:
        stored = mem.sessions.record_messages(rows, user_id=user, chat_id=chat)
    sessions = len({m.session_id for m in stored})
    typer.echo(
        f"recorded {render.plural(len(stored), 'message')} of chat {chat} in "
        f"{render.plural(sessions, 'session')}"
    )


@sessions_app.command("delete")
def delete(
    session_id: IdArgument,
    user: UserOption,
    yes: Annotated[bool, typer.Option("--yes", help="Confirm: the messages are removed for good.")] = False,
    db: DbOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Forget a session: its messages, the session and its summary memory (purged)."""
    if not yes:
        raise CliError("delete removes the session's messages and summary for good; pass --yes to confirm")
    with open_memory(db, embedder, must_exist=True) as mem:
        gone = mem.sessions.delete(session_id, user_id=user, actor="cli")
    typer.echo(
        f"deleted session {gone.id} ({render.plural(gone.message_count, 'message')} of chat {gone.chat_id})"
    )


@sessions_app.command("backfill")
def backfill(
    user: Annotated[
        str | None,
        typer.Option("--user", "-u", help="Only this user \\[default: every user].", show_default=False),
    ] = None,
    batch_size: Annotated[int, typer.Option(min=1, max=10_000, help="Texts embedded per batch.")] = 64,
    rate: Annotated[float | None, typer.Option(min=0.001, help="At most this many texts a second.")] = None,
    db: DbOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Embed the recorded messages and session summaries that have no vector of the current embedder
    (after an embedder change, or for messages recorded before message vectors): missing-only, so an
    interrupted run goes on where it stopped when run again."""
    with open_memory(db, embedder, must_exist=True) as mem:
        bar = Progress(
            TextColumn("users"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[texts]} texts"),
            TimeElapsedColumn(),
            console=render.console(stderr=True),
            transient=True,
        )
        with bar:
            task = bar.add_task("backfill", total=None, texts=0)

            def tick(done: int, users: int, texts: int) -> None:
                bar.update(task, completed=done, total=users, texts=texts)

            report = mem.backfill_sessions(user_id=user, batch_size=batch_size, rate=rate, progress=tick)
    typer.echo(
        f"embedded {render.plural(report.messages, 'message')} and {report.summaries} session "
        f"{'summary' if report.summaries == 1 else 'summaries'} of {render.plural(report.users, 'user')}"
    )
