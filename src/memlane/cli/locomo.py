"""``memlane eval locomo``: evidence recall on LoCoMo for memlane and two baselines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from memlane.cli import render
from memlane.cli.app import CliError, EmbedderOption, load_settings
from memlane.cli.evaluate import eval_app

if TYPE_CHECKING:
    from memlane.providers.embed.base import Embedder


def _ks(text: str) -> list[int]:
    try:
        ks = sorted({int(p) for p in text.split(",") if p.strip()})
    except ValueError:
        raise CliError(f"--k takes comma-separated positive integers, got {text!r}") from None
    if not ks or ks[0] < 1:
        raise CliError(f"--k takes comma-separated positive integers, got {text!r}")
    return ks


def _table(report: dict[str, Any]) -> Table:
    ks = report["k"]
    table = Table(
        title=f"LoCoMo evidence retrieval ({report['questions']} questions, "
        f"{report['skipped']['total']} skipped)"
    )
    for col in ("method", "category", "n", *[f"R@{k}" for k in ks], "NDCG@10", "p50 ms", "p95 ms"):
        table.add_column(col, justify="left" if col in ("method", "category") else "right")
    for method, groups in report["methods"].items():
        for group, s in groups.items():
            table.add_row(
                method if group == "overall" else "",
                group,
                str(s["questions"]),
                *[f"{s[f'recall@{k}']:.3f}" for k in ks],
                f"{s['ndcg@10']:.3f}",
                f"{s['latency_ms_p50']:.1f}",
                f"{s['latency_ms_p95']:.1f}",
            )
        table.add_section()
    return table


def _session_table(report: dict[str, Any]) -> Table:
    """Session-level recall: the share of the sessions holding evidence among the first k distinct sessions."""
    ks = report["k"]
    table = Table(title="Session-level recall (sessions holding evidence among the top k distinct sessions)")
    for col in ("method", "category", *[f"S@{k}" for k in ks]):
        table.add_column(col, justify="left" if col in ("method", "category") else "right")
    for method, groups in report["methods"].items():
        for group, s in groups.items():
            table.add_row(
                method if group == "overall" else "", group, *[f"{s[f'session_recall@{k}']:.3f}" for k in ks]
            )
        table.add_section()
    return table


@eval_app.command("locomo")
def run_locomo(
    data: Annotated[
        Path,
        typer.Option(
            "--data",
            help="A LoCoMo JSON file in its original schema.",
            exists=True,
            dir_okay=False,
            readable=True,
        ),
    ],
    k: Annotated[str, typer.Option("--k", help="Cut-offs for recall, comma-separated.")] = "5,10,25",
    json_out: Annotated[
        Path | None,
        typer.Option("--json", help="Also write the figures as JSON to this file.", dir_okay=False),
    ] = None,
    embedder: EmbedderOption = None,
    embed_cache: Annotated[
        Path | None,
        typer.Option(
            "--embed-cache",
            help="SQLite file caching embeddings across runs (e.g. /tmp/locomo-embed.db).",
            dir_okay=False,
        ),
    ] = None,
    header: Annotated[
        bool,
        typer.Option(
            "--header/--no-header", help="Embed turns with the contextual header (speaker, previous turn)."
        ),
    ] = True,
    conversations: Annotated[int | None, typer.Option(min=1, help="Only the first N conversations.")] = None,
    skip: Annotated[
        int, typer.Option(min=0, help="Leave out the first N conversations (a held-out split).")
    ] = 0,
    sessions: Annotated[
        bool,
        typer.Option(
            "--sessions",
            help="Also record each conversation as a group chat "
            "and measure its recall (messages, session summaries, fused).",
        ),
    ] = False,
) -> None:
    """Ingest each conversation as its own user, ask every question, and report evidence recall@k,
    NDCG@10 and search latency per category for memlane, keyword-only and dense-only search."""
    from memlane.evaluation import locomo, locomo_data
    from memlane.model.search_presets import with_preset
    from memlane.providers.embed.settings import embedder_from_settings

    ks = _ks(k)
    settings = with_preset(load_settings())  # MEMLANE_SEARCH_PRESET: the eval searches below the engine
    if embedder:
        settings = settings.model_copy(update={"embedder": embedder})
    settings = locomo.eval_settings(settings, header=header)
    try:
        convs = locomo_data.load(data)[skip:][:conversations]
    except ValueError as exc:
        raise CliError(str(exc)) from None
    emb: Embedder = embedder_from_settings(settings)
    if embed_cache is not None:
        from memlane.evaluation.embed_cache import DiskCachedEmbedder

        emb = DiskCachedEmbedder(emb, embed_cache)
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=render.console(stderr=True),
        transient=True,
    )
    with bar:
        ingest = bar.add_task("ingesting turns", total=sum(len(c.turns) for c in convs))
        asking = bar.add_task("asking", total=sum(len(c.questions) for c in convs))

        def tick(stage: str, done: int, total: int) -> None:
            if stage == "ingested":
                bar.advance(ingest, done)
            else:
                bar.update(asking, completed=done)

        report = locomo.run(convs, emb, settings, ks=ks, progress=tick, sessions=sessions)
    report["data"] = str(data)
    render.console().print(_table(report))
    render.console().print(_session_table(report))
    if json_out is not None:
        try:
            json_out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            raise CliError(f"cannot write {json_out}: {exc.strerror or exc}") from None
        typer.echo(f"wrote {json_out}", err=True)
