"""``memlane calibrate``: fit the create/update bands of an embedder from labelled pairs."""

from __future__ import annotations

from dataclasses import asdict
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from memlane.cli.app import EmbedderOption, JsonOption, app, load_settings, print_json
from memlane.cli.render import console

if TYPE_CHECKING:  # the calibration code is imported when the command runs (`memlane --help` stays fast)
    import numpy as np

    from memlane.formation.calibrate import ActionScore, BandStats, Calibration, Pair, Replay, TypeFit
    from memlane.model.config import Settings


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


SHORT_KIND = {"update": "upd", "related": "rel", "unrelated": "unr", "different": "diff"}


def _band_name(band: BandStats) -> str:
    if band.upper is None:
        return f"auto >= {band.lower:.2f}"
    if band.lower is None:
        return f"below < {band.upper:.2f}"
    return f"check {band.lower:.2f}-{band.upper:.2f}"


def _caption(fit: TypeFit, cal: Calibration) -> str:
    exact = ", ".join(f"{name} {value:.4f}" for name, value in fit.exact.items())
    unreachable = "" if fit.precision_reached else f"; precision {cal.precision_target:.0%} not reachable"
    return f"exact: {exact}{unreachable}"


def _tables(fit: TypeFit, cal: Calibration) -> tuple[Table, Table]:
    floor = "" if fit.floor is None else f", floor {fit.floor:.2f}"
    bands = Table(
        title=f"{fit.type} ({fit.pairs} pairs): auto {fit.auto:.2f}, low {fit.low:.2f}{floor}",
        caption=_caption(fit, cal),
        title_justify="left",
        caption_justify="left",
    )
    bands.add_column("band")
    for name in ("same", "diff", "prec.", "recall", "F1"):
        bands.add_column(name, justify="right")
    bands.add_column("diff by kind", no_wrap=True)
    for b in fit.bands:
        kinds = " ".join(f"{SHORT_KIND.get(k, k)} {n}" for k, n in sorted(b.kinds.items())) or "-"
        bands.add_row(
            _band_name(b),
            str(b.same),
            str(b.different),
            _pct(b.precision),
            _pct(b.recall),
            f"{b.f1:.2f}",
            kinds,
        )
    scores = Table(title=f"{fit.type}: cosine by kind", title_justify="left")
    scores.add_column("kind")
    for name in ("min", "median", "max"):
        scores.add_column(name, justify="right")
    for kind, (lo, mid, hi) in fit.scores_by_kind.items():
        scores.add_row(kind, f"{lo:.3f}", f"{mid:.3f}", f"{hi:.3f}")
    return bands, scores


def _suggestions(cal: Calibration) -> list[str]:
    from memlane.formation.bands import DEFAULTS

    lines = [f"{name}={value}" for name, value in cal.env().items()]
    table = DEFAULTS.get(cal.embedder, {})
    for fit in cal.fits:
        current = table.get(fit.type)
        floor = fit.floor if fit.floor is not None else (current.floor if current else fit.low)
        link = f"{current.link:.2f}" if current else "?"
        lines.append(
            f'# bands.py DEFAULTS["{cal.embedder}"]["{fit.type}"] = '
            f"Bands({fit.auto:.2f}, {fit.low:.2f}, {floor:.2f}, {link})  # link not fitted"
        )
    return lines


def _replays(cal: Calibration, pairs: list[Pair], scores: np.ndarray, settings: Settings) -> list[Replay]:
    """``decide`` on every pair with the configured bands and with the fitted ones."""
    from memlane.formation.bands import Bands, bands_for
    from memlane.formation.calibrate import replay
    from memlane.model.enums import MemoryType
    from memlane.providers.llm.registry import llm_from_settings

    llm = llm_from_settings(settings)
    current = {f.type: bands_for(cal.embedder, MemoryType(f.type), settings) for f in cal.fits}
    fitted = {
        f.type: Bands(
            f.auto, f.low, current[f.type].floor if f.floor is None else f.floor, current[f.type].link
        )
        for f in cal.fits
    }
    window = timedelta(hours=settings.episodic_merge_window_hours)
    return [
        replay(
            name,
            pairs,
            scores,
            bands,
            llm,
            merge_window=window,
            heuristics=settings.memory_enable_entity_heuristics,
        )
        for name, bands in (("configured", current), ("fitted", fitted))
    ]


def _replay_table(replays: list[Replay], llm: str) -> Table:
    from memlane.formation.calibrate import EXPECTED

    table = Table(
        title=f"decide() on each pair ({llm} checks): text_a stored, text_b an hour later",
        title_justify="left",
    )
    for name in ("pairs", "want", *(r.name for r in replays)):
        table.add_column(name)
    for group in replays[0].actions:
        want = "/".join(
            EXPECTED.get(group.split()[-1], ("merge",) if group.endswith("same") else ("not merge",))
        )
        cells = [
            ", ".join(f"{a} {n}" for a, n in sorted(r.actions.get(group, {}).items(), key=lambda x: -x[1]))
            for r in replays
        ]
        table.add_row(group, want, *cells)
    table.add_row("correct", "", *(f"{r.correct}/{r.total}" for r in replays), style="bold")
    for action in replays[0].scores:
        table.add_row(f"{action} P / R", "", *(_pr(r.scores[action]) for r in replays))
    return table


def _pr(score: ActionScore) -> str:
    def pct(x: float | None) -> str:
        return "-" if x is None else f"{x:.0%}"

    return f"{pct(score.precision)} / {pct(score.recall)} (gave {score.taken}, want {score.wanted})"


@app.command("calibrate")
def calibrate_command(
    pairs: Annotated[
        Path | None,
        typer.Option(
            "--pairs",
            help="Labelled pairs, JSONL: text_a, text_b, "
            "label same|different, type, kind \\[default: the shipped set]",
            dir_okay=False,
            show_default=False,
        ),
    ] = None,
    embedder: EmbedderOption = None,
    precision: Annotated[float, typer.Option(help="Precision of 'same' wanted at or above auto.")] = 0.98,
    recall: Annotated[float, typer.Option(help="Recall of 'same' wanted at or above low.")] = 0.95,
    ignore_updates: Annotated[
        bool,
        typer.Option(
            "--ignore-updates",
            help="Leave 'update' pairs out of auto's precision (the conflict check runs before any merge).",
        ),
    ] = False,
    decisions: Annotated[
        bool,
        typer.Option(
            "--decisions",
            help="Also replay decide() on every pair (same-fact and conflict checks of $MEMLANE_LLM) "
            "with the configured and the fitted bands.",
        ),
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """Fit the create/update bands (auto, low, floor) per memory type; print precision and recall per band
    and the settings that apply them."""
    from memlane.formation.calibrate import calibrate, load_pairs, score_pairs
    from memlane.providers.embed.settings import embedder_from_settings

    settings = load_settings()
    if embedder:
        settings = settings.model_copy(update={"embedder": embedder})
    labelled = load_pairs(pairs)
    model = embedder_from_settings(settings)
    scores = score_pairs(model, labelled)
    cal = calibrate(
        model, labelled, precision=precision, recall=recall, ignore_updates=ignore_updates, scores=scores
    )
    replays = _replays(cal, labelled, scores, settings) if decisions else []
    if json_out:
        print_json({**asdict(cal), "env": cal.env(), "decisions": [asdict(r) for r in replays]})
        return
    out = console()
    out.print(
        f"embedder {cal.embedder} ({cal.model}); targets: precision {precision:.0%} at or above auto, "
        f"recall {recall:.0%} at or above low" + ("; update pairs left out of auto" if ignore_updates else "")
    )
    for fit in cal.fits:
        for table in _tables(fit, cal):
            out.print(table)
    if replays:
        out.print(_replay_table(replays, settings.llm))
    out.print("\nSuggested settings:")
    for line in _suggestions(cal):
        typer.echo(line)
