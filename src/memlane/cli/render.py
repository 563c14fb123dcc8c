"""Rich tables and panels for memories, search results and history (no I/O besides printing)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from memlane.model.record import HistoryEntry, MemoryRecord, ScoreBreakdown, SearchHit

SIGNALS = ("similarity", "importance", "recency", "pinned")
SHORT = {"similarity": "sim", "keyword": "kw", "importance": "imp", "recency": "rec", "pinned": "pin",
         "relations": "rel", "brevity": "brev", "decay": "decay", "type_weight": "tw"}
FACTORS = ("decay", "type_weight")  # multiply the weighted sum


def console(*, stderr: bool = False) -> Console:
    """A console bound to the current streams (made per call so redirected output is honoured)."""
    return Console(stderr=stderr, highlight=False)


def plural(n: int, word: str) -> str:
    return f"{n} {word if n == 1 else ('memories' if word == 'memory' else word + 's')}"


def when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else "-"


def summary_cell(rec: MemoryRecord, *, show_id: bool = True) -> Text:
    text = Text(rec.summary)
    if show_id:
        text.append(f"\n{rec.id}", style="dim")
    return text


def memory_panel(rec: MemoryRecord, *, title: str = "memory") -> Panel:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    rows: list[tuple[str, str]] = [
        ("id", rec.id), ("user", rec.user_id), ("type", rec.type.value), ("category", rec.category),
        ("key", rec.key or "-"), ("state", rec.state.value), ("importance", str(rec.importance)),
        ("pinned", "yes" if rec.pinned else "no"), ("tags", ", ".join(rec.tags) or "-"),
        ("created", when(rec.created_at)), ("updated", when(rec.updated_at)),
    ]
    for name, value in rows:
        grid.add_row(name, value)
    return Panel(Group(Text(rec.summary, style="bold"), Text(), grid), title=title, title_align="left", expand=False)


def memories_table(records: Sequence[MemoryRecord], *, title: str | None = None, show_state: bool = False) -> Table:
    table = Table(title=title, title_justify="left", show_lines=False)
    table.add_column("#", justify="right", style="dim")
    table.add_column("type")
    table.add_column("category")
    table.add_column("imp", justify="right")
    table.add_column("pin", justify="center")
    if show_state:
        table.add_column("state")
    table.add_column("summary (id)", ratio=1, overflow="fold")
    for n, rec in enumerate(records, start=1):
        cells = [str(n), rec.type.value, rec.category, str(rec.importance), "*" if rec.pinned else ""]
        if show_state:
            cells.append(rec.state.value)
        table.add_row(*cells, summary_cell(rec))
    return table


def formula(breakdown: ScoreBreakdown, shown: Sequence[str]) -> str:
    """How ``final`` is computed from the columns ``shown`` (:func:`memlane.retrieval.rerank.composite`)."""
    if not breakdown.weights:  # a dense- or keyword-only search: the raw score
        return "score = kw" if breakdown.keyword else "score = sim"
    text = " + ".join(f"{breakdown.weights[s]:.2f}*{SHORT[s]}" for s in SIGNALS)
    text += " + rel" * ("relations" in shown) + " - brev" * ("brevity" in shown)
    factors = [SHORT[f] for f in FACTORS if f in shown]
    text = f"({text}) * {' * '.join(factors)}" if factors else text
    return f"score = {text}" + ("   (sim includes kw)" if "keyword" in shown else "")


def pin_note(margin: float) -> str:
    """When ``pin`` is 1 (:func:`memlane.retrieval.rerank.pin_signal`), for a table with pinned memories."""
    return f"pin = 1: pinned, and sim within {margin:.2f} of the best match"


def search_table(hits: Sequence[SearchHit], *, title: str | None = None, show_ids: bool = True,
                 pin_margin: float | None = None) -> Table:
    """Rank, score and the signals behind it (raw 0-1 values; the caption gives the formula and weights,
    and with ``pin_margin`` (``MEMORY_PIN_MARGIN``) and a pinned memory among the hits, when a pin counts)."""
    shown = [*SIGNALS, *(name for name in ("keyword", "relations", "brevity") if any(getattr(h.breakdown, name)
                                                                                    for h in hits))]
    shown += [f for f in FACTORS if any(getattr(h.breakdown, f) != 1.0 for h in hits)]
    caption = formula(hits[0].breakdown, shown) if hits else None
    if caption and pin_margin is not None and hits[0].breakdown.weights and any(h.memory.pinned for h in hits):
        caption += "\n" + pin_note(pin_margin)
    table = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    table.add_column("#", justify="right", style="dim")
    table.add_column("score", justify="right", style="bold")
    for name in shown:
        table.add_column(SHORT[name], justify="right")
    table.add_column("type")
    table.add_column("category")
    table.add_column("summary (id)" if show_ids else "summary", ratio=1, overflow="fold")
    for rank, hit in enumerate(hits, start=1):
        signals = [f"{getattr(hit.breakdown, name):.2f}" for name in shown]
        table.add_row(str(rank), f"{hit.score:.3f}", *signals, hit.memory.type.value, hit.memory.category,
                      summary_cell(hit.memory, show_id=show_ids))
    return table


def _summary_of(value: Mapping[str, Any] | None) -> str | None:
    summary = (value or {}).get("summary")
    return None if summary is None else str(summary)


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
    table = Table(title=title, title_justify="left")
    table.add_column("time (UTC)", no_wrap=True)
    table.add_column("event", style="bold")
    table.add_column("actor")
    table.add_column("reason")
    table.add_column("summary: old -> new", ratio=1)
    for entry in entries:
        table.add_row(when(entry.at), entry.event.value, entry.actor or "-", entry.reason or "-", change_text(entry))
    return table


def hit_json(rank: int, hit: SearchHit) -> dict[str, Any]:
    return {"rank": rank, "score": hit.score, "breakdown": hit.breakdown.model_dump(), "memory": hit.memory.snapshot()}
