"""``memlane demo``: replay a short conversation into a fresh store, then show memories and searches.

The conversation is plain data (speaker, text). Each user turn goes through the formation pipeline
(``Memory.add``: rule-based extraction, then the dedup / merge / supersede decision), and the demo
shows what each turn left in memory from the events the pipeline publishes. The move to another city
waits for consent (docs/consent.md); the demo plays the consent UI: the user's "yes" accepts it.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer
from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from memlane.cli import render
from memlane.cli.app import CliError, EmbedderOption, app, is_sqlite_path, open_memory

if TYPE_CHECKING:
    from memlane.engine.memory import Memory
    from memlane.ledger.events import MemoryEvent

Turn = tuple[Literal["user", "assistant"], str]

USER = "maya"
CONFIRM = "Yes, please."  # the user's answer the demo takes as consent to the pending change
CONVERSATION: tuple[Turn, ...] = (
    ("user", "Hi! I'm Maya."),
    ("assistant", "Nice to meet you, Maya! What can I help with?"),
    ("user", "I live in Lisbon, a short walk from the river."),
    ("user", "I work as a data engineer at a solar energy startup."),
    ("user", "My cat Luna is 3 and rules the apartment."),
    ("user", "I'm vegetarian, so no meat in recipe ideas please."),
    ("user", "I prefer short answers with bullet points."),
    ("user", "Phew, long week. How's your day going?"),
    ("assistant", "Busy in a good way! Anything on your mind?"),
    ("user", "Big news: I just moved to Porto!"),
    ("assistant", "Congratulations on the move! Shall I update your city to Porto?"),
    ("user", CONFIRM),
    ("user", "Oh, and Luna turned 4 last week."),
    ("assistant", "Happy birthday to Luna!"),
)
SEARCHES = (
    "Where does she live?",
    "How old is her cat?",
    "What should I cook for her tonight?",
    "How should I format answers?",
)
TOP_HITS = 3
LABELS = {
    "memory.created": ("added", "green"),
    "memory.merged": ("already known", "blue"),
    "memory.changed_fact": ("corrected", "yellow"),
    "memory.error": ("error", "red"),
    "memory.proposed": ("waits for consent", "magenta"),
    "memory.proposal_decided": ("consent", "green"),
}


def remember(mem: Memory, history: list[dict[str, str]]) -> list[MemoryEvent]:
    """Run formation on the latest turn (accepting the pending changes when it is the user's yes) and
    return the write events it produced."""
    seen: list[MemoryEvent] = []
    unsubscribe = mem.events.subscribe(seen.append, user_id=USER)
    try:
        mem.add(history[-6:], user_id=USER, thread_id="demo", wait=True)
        for p in mem.proposals.list(user_id=USER) if history[-1]["content"] == CONFIRM else ():
            mem.proposals.accept(p.id, user_id=USER, actor=f"user:{USER}", reason="said yes in the chat")
    finally:
        unsubscribe()
    return [e for e in seen if e.type in LABELS]


def turn_lines(turn: Turn, events: list[MemoryEvent]) -> list[Text]:
    speaker, text = turn
    name = USER if speaker == "user" else "assistant"
    lines = [Text.assemble((f"{name:>9}: ", "bold cyan" if speaker == "user" else "bold magenta"), text)]
    for event in events:
        label, style = LABELS[event.type]
        data = event.data
        old = data.get("old_summary") or data.get("current")
        change = (
            Text.assemble((str(old), "dim"), " -> ", str(data.get("summary", "")))
            if old
            else Text(str(data.get("summary") or data.get("message", "")))
        )
        if event.type == "memory.proposal_decided":
            change = Text(f"{data.get('status')} by {data.get('decided_by')}")
        lines.append(Text.assemble(" " * 11, (f"-> {label}: ", style), change))
    if speaker == "user" and not events:
        lines.append(Text(" " * 11 + "-> nothing to remember", style="dim"))
    return lines


def fresh_location(db: Path | None) -> Path:
    if db is None:
        return Path(tempfile.mkdtemp(prefix="memlane-demo-")) / "demo.db"
    if not is_sqlite_path(str(db)):
        raise CliError("the demo writes a fresh SQLite file; give a file path for --db")
    if db.expanduser().exists():
        raise CliError(f"{db} already exists; the demo needs a fresh file (omit --db for a temporary one)")
    return db.expanduser()


@app.command(rich_help_panel="Demo")
def demo(
    db: Annotated[
        Path | None,
        typer.Option(
            "--db",
            help="New SQLite file to create and keep \\[default: a temporary one].",
            dir_okay=False,
            show_default=False,
        ),
    ] = None,
    keep: Annotated[
        bool, typer.Option("--keep", help="Keep the temporary database to explore it afterwards.")
    ] = False,
    embedder: EmbedderOption = None,
    vectors: Annotated[
        Literal["local", "s3vectors"] | None,
        typer.Option(
            "--vectors",
            help="Where vectors are searched: local, or s3vectors (S3V_BUCKET, S3V_INDEX_VECTORS) "
            "\\[default: MEMLANE_VECTORS].",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Replay a short conversation into a fresh store; show the memories and a few searches. The
    temporary database goes away afterwards unless --keep."""
    location = fresh_location(db)
    try:
        _replay(location, embedder, vectors)
    finally:
        if db is None and not keep:
            shutil.rmtree(location.parent, ignore_errors=True)
    if db is None and not keep:
        render.console().print("The demo's database was removed; run 'memlane demo --keep' to explore it.")
        return
    render.console().print(
        f"Try: {'MEMLANE_VECTORS=' + vectors + ' ' if vectors else ''}memlane search "
        f'"where does she live?" --user {USER} --db {location}'
        + (f" --embedder {embedder}" if embedder else "")
    )


def _replay(location: Path, embedder: str | None, vectors: str | None) -> None:
    out: Console = render.console()
    with open_memory(str(location), embedder, vectors=vectors) as mem:
        where = f"  vectors: {mem.backend.name}" if mem.settings.vectors != "local" else ""
        out.print(
            Text.assemble(
                ("memlane demo", "bold"), f"  database: {location}  embedder: {mem.embedder.identity}{where}"
            )
        )
        out.print(Rule("conversation", align="left"))
        history: list[dict[str, str]] = []
        outcomes: list[list[MemoryEvent]] = []
        with render.console(stderr=True).status("forming memories..."):
            for speaker, text in CONVERSATION:
                history.append({"role": speaker, "content": text})
                outcomes.append(remember(mem, history) if speaker == "user" else [])
        for turn, events in zip(CONVERSATION, outcomes, strict=True):
            for line in turn_lines(turn, events):
                out.print(line)
        out.print()
        records = mem.list(user_id=USER)
        out.print(
            render.memories_table(records, title=f"{render.plural(len(records), 'memory')} stored for {USER}")
        )
        for query in SEARCHES:
            out.print()
            hits = mem.search(query, user_id=USER, limit=TOP_HITS)
            out.print(
                render.search_table(
                    hits, title=f'search "{query}"', show_ids=False, pin_margin=mem.settings.memory_pin_margin
                )
            )
    out.print()
