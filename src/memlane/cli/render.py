"""Rich tables and panels for memories, search results and history (no I/O besides printing)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.measure import Measurement
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from memlane.model.provenance import attributed
from memlane.model.text import printable as safe

if TYPE_CHECKING:
    from memlane.model.record import HistoryEntry, MemoryRecord, ScoreBreakdown, SearchHit

SIGNALS = ("similarity", "importance", "recency", "pinned")
SHORT = {
    "similarity": "sim",
    "keyword": "kw",
    "importance": "imp",
    "recency": "rec",
    "pinned": "pin",
    "relations": "rel",
    "brevity": "brev",
    "subject": "subj",
    "kind": "kind",
    "decay": "decay",
    "type_weight": "tw",
}
FACTORS = ("decay", "type_weight")  # multiply the weighted sum


def console(*, stderr: bool = False) -> Console:
    """A console bound to the current streams (made per call so redirected output is honoured)."""
    return Console(stderr=stderr, highlight=False)


def plural(n: int, word: str) -> str:
    return f"{n} {word if n == 1 else ('memories' if word == 'memory' else word + 's')}"


def when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else "-"


NARROW = 100  # below this many columns (80 when output is piped) the search table stacks its signals


class IdText:
    """An id on one line; where its column is narrower, its start gives way to an ellipsis (UUIDv7 ids
    made in the same minute share their first characters, their random tails tell them apart)."""

    MIN = 13  # the ellipsis and the last 12 characters

    def __init__(self, value: str, style: str = "dim") -> None:
        self.value, self.style = value, style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width, value = options.max_width, self.value
        yield Text(
            value if len(value) <= width else "…" + value[len(value) - width + 1 :],
            style=self.style,
            no_wrap=True,
            overflow="crop",
        )

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(min(self.MIN, len(self.value)), len(self.value))


def id_text(value: str, style: str = "dim") -> IdText:
    return IdText(value, style)


def summary_cell(rec: MemoryRecord, *, show_id: bool = True, reader: str | None = None) -> Group:
    """The summary (wrapped at word boundaries; "shared by <owner>: ..." when shared with ``reader``;
    control characters shown escaped), then the id on a line of its own."""
    text = rec.summary if reader is None else attributed(rec.summary, rec, reader)
    return Group(Text(safe(text)), *([id_text(rec.id)] if show_id else []))


def memory_panel(rec: MemoryRecord, *, title: str = "memory") -> Panel:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    rows: list[tuple[str, str]] = [
        ("id", rec.id),
        ("user", rec.user_id),
        ("type", rec.type.value),
        ("category", safe(rec.category)),
        ("key", safe(rec.key or "-")),
        ("state", rec.state.value),
        ("importance", str(rec.importance)),
        ("pinned", "yes" if rec.pinned else "no"),
        ("tags", safe(", ".join(rec.tags)) or "-"),
        ("created", when(rec.created_at)),
        ("updated", when(rec.updated_at)),
    ]
    for name, value in rows:
        grid.add_row(name, value)
    return Panel(
        Group(Text(safe(rec.summary), style="bold"), Text(), grid),
        title=title,
        title_align="left",
        expand=False,
    )


def memories_table(
    records: Sequence[MemoryRecord],
    *,
    title: str | None = None,
    show_state: bool = False,
    reader: str | None = None,
) -> Table:
    table = Table(title=title, title_justify="left", show_lines=False)
    table.add_column("#", justify="right", style="dim")
    table.add_column("type")
    table.add_column("category")
    table.add_column("imp", justify="right")
    table.add_column("pin", justify="center")
    if show_state:
        table.add_column("state")
    table.add_column("summary (id)", ratio=1)
    for n, rec in enumerate(records, start=1):
        cells = [str(n), rec.type.value, safe(rec.category), str(rec.importance), "*" if rec.pinned else ""]
        if show_state:
            cells.append(rec.state.value)
        table.add_row(*cells, summary_cell(rec, reader=reader))
    return table


def formula(breakdown: ScoreBreakdown, shown: Sequence[str]) -> str:
    """How ``final`` is computed from the columns ``shown`` (:func:`memlane.retrieval.rerank.composite`)."""
    if not breakdown.weights:  # a dense- or keyword-only search: the raw score
        return "score = kw" if breakdown.keyword else "score = sim"
    text = " + ".join(f"{breakdown.weights[s]:.2f}*{SHORT[s]}" for s in SIGNALS)
    text += (
        " + rel" * ("relations" in shown)
        + " - brev" * ("brevity" in shown)
        + " - subj" * ("subject" in shown)
    )
    text += " - kind" * ("kind" in shown)
    factors = [SHORT[f] for f in FACTORS if f in shown]
    text = f"({text}) * {' * '.join(factors)}" if factors else text
    return f"score = {text}" + ("   (sim includes kw)" if "keyword" in shown else "")


def pin_note(margin: float) -> str:
    """When ``pin`` is 1 (:func:`memlane.retrieval.rerank.pin_signal`), for a table with pinned memories."""
    return (
        f"pin = 1: pinned, among the 3 closest, and its cosine within {margin:.2f} of the best match's "
        "(x2 sharing a word with the question)"
    )


def search_table(
    hits: Sequence[SearchHit],
    *,
    title: str | None = None,
    show_ids: bool = True,
    pin_margin: float | None = None,
    reader: str | None = None,
) -> Table:
    """Rank, score and the signals behind it (raw 0-1 values; the caption gives the formula and weights,
    and with ``pin_margin`` (``MEMORY_PIN_MARGIN``) and a pinned memory among the hits, when a pin counts)."""
    shown = [
        *SIGNALS,
        *(
            name
            for name in ("keyword", "relations", "brevity", "subject", "kind")
            if any(getattr(h.breakdown, name) for h in hits)
        ),
    ]
    shown += [f for f in FACTORS if any(getattr(h.breakdown, f) != 1.0 for h in hits)]
    caption = formula(hits[0].breakdown, shown) if hits else None
    if (
        caption
        and pin_margin is not None
        and hits[0].breakdown.weights
        and any(h.memory.pinned for h in hits)
    ):
        caption += "\n" + pin_note(pin_margin)
    table = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    table.add_column("#", justify="right", style="dim")
    table.add_column("score", justify="right", style="bold")
    if console().width < NARROW:  # the signals and the type under each summary, not in columns of their own
        table.add_column("summary, signals, type" + (" (id)" if show_ids else ""), ratio=1)
        for rank, hit in enumerate(hits, start=1):
            rec = hit.memory
            signals = Text(
                " ".join(f"{SHORT[name]} {getattr(hit.breakdown, name):.2f}" for name in shown), style="dim"
            )
            kind = Text(f"{rec.type.value} {safe(rec.category)}", style="dim") + (
                Text(f"  {rec.id}", style="dim") if show_ids else Text()
            )
            said = rec.summary if reader is None else attributed(rec.summary, rec, reader)
            table.add_row(str(rank), f"{hit.score:.3f}", Group(Text(safe(said)), signals, kind))
        return table
    for name in shown:
        table.add_column(SHORT[name], justify="right")
    table.add_column("type")
    table.add_column("category")
    table.add_column("summary (id)" if show_ids else "summary", ratio=1)
    for rank, hit in enumerate(hits, start=1):
        values = [f"{getattr(hit.breakdown, name):.2f}" for name in shown]
        table.add_row(
            str(rank),
            f"{hit.score:.3f}",
            *values,
            hit.memory.type.value,
            safe(hit.memory.category),
            summary_cell(hit.memory, show_id=show_ids, reader=reader),
        )
    return table


def _summary_of(value: Mapping[str, Any] | None) -> str | None:
    summary = (value or {}).get("summary")
    return None if summary is None else safe(str(summary))


def change_text(entry: HistoryEntry) -> Text:
    old, new = _summary_of(entry.old_value), _summary_of(entry.new_value)
    if old is None and new is None:
        return Text("-", style="dim")
    if old is None or old == new:
        return Text(str(new))
    if new is None:
        return Text(old, style="strike dim")
    return Text.assemble((old, "dim"), " -> ", new)


def history_table(entries: Sequence[HistoryEntry], *, title: str | None = None) -> Table:
    narrow = console().width < NARROW  # the reason goes under the change instead of in a column
    table = Table(title=title, title_justify="left")
    table.add_column("time (UTC)", no_wrap=True)
    table.add_column("event", style="bold")
    table.add_column("actor")
    if not narrow:
        table.add_column("reason")
    table.add_column("summary: old -> new" + (" (reason)" if narrow else ""), ratio=1)
    for entry in entries:
        reason = safe(entry.reason or "-")
        cells = (
            [Group(change_text(entry), Text(reason, style="dim"))] if narrow else [reason, change_text(entry)]
        )
        table.add_row(when(entry.at), entry.event.value, safe(entry.actor or "-"), *cells)
    return table


def hit_json(rank: int, hit: SearchHit) -> dict[str, Any]:
    return {
        "rank": rank,
        "score": hit.score,
        "breakdown": hit.breakdown.model_dump(),
        "memory": hit.memory.snapshot(),
    }
