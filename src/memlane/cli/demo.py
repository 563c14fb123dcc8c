"""``memlane demo``: replay a short conversation into a fresh store, then show memories and searches.

The conversation is data: (speaker, text, memory-or-None). Today each memory is written with
``Memory.put(..., key=...)``, so a correction of a slot fact (a move, the pet's new age) updates that
memory in place. :func:`remember` is the one place to change when the demo moves to ``Memory.add``.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from memlane.cli import render
from memlane.cli.app import CliError, EmbedderOption, app, is_sqlite_path, open_memory
from memlane.engine.memory import Memory
from memlane.model.enums import MemoryType
from memlane.model.record import MemoryRecord


@dataclass(frozen=True)
class Fact:
    """A ready memory a turn leaves behind."""

    summary: str
    key: str
    category: str
    importance: int = 3
    pinned: bool = False
    type: MemoryType = MemoryType.SEMANTIC


Turn = tuple[Literal["user", "assistant"], str, Fact | None]
Outcome = tuple[Literal["added", "updated"], MemoryRecord, str | None]  # (what happened, memory, old summary)

USER = "maya"
CITY = "profile:residence:city"
PET = "profile:pet:luna"
CONVERSATION: tuple[Turn, ...] = (
    ("user", "Hi! I'm Maya.", Fact("User's name is Maya.", "profile:name", "Personal", 4)),
    ("assistant", "Nice to meet you, Maya! What can I help with?", None),
    ("user", "I live in Lisbon, a short walk from the river.", Fact("User lives in Lisbon.", CITY, "Personal", 4)),
    ("user", "I'm a data engineer at a solar energy startup.",
     Fact("User works as a data engineer at a solar energy startup.", "profile:job", "Work", 4)),
    ("user", "My cat Luna is 3 and rules the apartment.",
     Fact("User has a cat named Luna, who is 3 years old.", PET, "Personal")),
    ("user", "I'm vegetarian, so no meat in recipe ideas please.",
     Fact("User is vegetarian and wants no meat in recipe suggestions.", "profile:diet", "Health", 4)),
    ("user", "And keep answers short, bullet points if you can.",
     Fact("User prefers short answers with bullet points.", "preference:answer_style", "Preferences", 4, True)),
    ("user", "Phew, long week. How's your day going?", None),
    ("assistant", "Busy in a good way! Anything on your mind?", None),
    ("user", "Big news: I just moved to Porto!", Fact("User lives in Porto.", CITY, "Personal", 4)),
    ("user", "Oh, and Luna turned 4 last week.", Fact("User has a cat named Luna, who is 4 years old.", PET, "Personal")),
    ("assistant", "Congratulations on the move, and happy birthday to Luna!", None),
)
SEARCHES = ("Which city does she live in?", "How old is her cat?", "What should I cook for her tonight?",
            "How should I format answers?")
TOP_HITS = 3


def remember(mem: Memory, user_id: str, turn: Turn) -> Outcome | None:
    """What a turn leaves in memory: its ready fact, put under its key (the same key updates in place)."""
    _speaker, _text, fact = turn
    if fact is None:
        return None
    before = {r.id: r.summary for r in mem.list(user_id=user_id, filters={"key": fact.key})}
    rec = mem.put(fact.summary, user_id=user_id, key=fact.key, type=fact.type, category=fact.category,
                  importance=fact.importance, pinned=fact.pinned, actor="demo")
    old = before.get(rec.id)
    return ("updated", rec, old) if old is not None else ("added", rec, None)


def turn_lines(turn: Turn, outcome: Outcome | None, user_id: str) -> list[Text]:
    speaker, text, _fact = turn
    name = user_id if speaker == "user" else "assistant"
    lines = [Text.assemble((f"{name:>9}: ", "bold cyan" if speaker == "user" else "bold magenta"), text)]
    if outcome is not None:
        event, rec, old = outcome
        change = Text.assemble((old or "", "dim"), " -> ", rec.summary) if old else Text(rec.summary)
        lines.append(Text.assemble(" " * 11, (f"-> {event}: ", "green" if event == "added" else "yellow"), change))
    elif speaker == "user":
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
    db: Annotated[Path | None, typer.Option("--db", help="New SQLite file to create \\[default: a temporary one].",
                                            dir_okay=False, show_default=False)] = None,
    embedder: EmbedderOption = None,
) -> None:
    """Replay a short conversation into a fresh store; show the memories and a few searches."""
    location = fresh_location(db)
    out: Console = render.console()
    with open_memory(str(location), embedder) as mem:
        out.print(Text.assemble(("memlane demo", "bold"), f"  database: {location}  embedder: {mem.embedder.identity}"))
        out.print(Rule("conversation", align="left"))
        with render.console(stderr=True).status("embedding memories..."):
            outcomes = [remember(mem, USER, turn) for turn in CONVERSATION]
        for turn, outcome in zip(CONVERSATION, outcomes, strict=True):
            for line in turn_lines(turn, outcome, USER):
                out.print(line)
        out.print()
        records = mem.list(user_id=USER)
        out.print(render.memories_table(records, title=f"{render.plural(len(records), 'memory')} stored for {USER}"))
        weights = mem.settings.memory_rerank_weights
        for query in SEARCHES:
            out.print()
            hits = mem.search(query, user_id=USER, limit=TOP_HITS)
            out.print(render.search_table(hits, weights, title=f'search "{query}"', show_ids=False))
    out.print()
    out.print(f'Try: memlane search "where does she live?" --user {USER} --db {location}'
              + (f" --embedder {embedder}" if embedder else ""))
