"""``memlane eval``: behaviour scenarios (and retrieval benchmarks)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memlane.cli.app import EmbedderOption, app, load_settings

eval_app = typer.Typer(help="Evaluate memory behaviour and retrieval.", no_args_is_help=True)
app.add_typer(eval_app, name="eval")


@eval_app.command("scenarios")
def run_scenarios(
    files: Annotated[
        list[Path],
        typer.Argument(
            metavar="FILE...", help="Scenario JSONL files.", exists=True, dir_okay=False, readable=True
        ),
    ],
    embedder: EmbedderOption = None,
    llm: Annotated[
        str | None, typer.Option(help="rules, openai or bedrock [default: $MEMLANE_LLM or rules]")
    ] = None,
    only: Annotated[str | None, typer.Option(help="Run only scenarios whose id contains this.")] = None,
    consent: Annotated[
        str,
        typer.Option(
            help="accept: accept each proposed change to a sensitive field as the "
            "user would (counted); hold: leave them pending; off: no consent "
            "fields (docs/consent.md)."
        ),
    ] = "accept",
    show_noise: Annotated[
        bool,
        typer.Option(
            "--noise",
            help="After each scenario, list the memories counted as noise and those no expectation names.",
        ),
    ] = False,
) -> None:
    """Replay scenarios into fresh stores; print PASS/FAIL per scenario, a noise line when a scenario
    declares noise, and 'N passed, N failed'."""
    from memlane.evaluation import scenarios
    from memlane.providers.embed.settings import embedder_from_settings

    if consent not in scenarios.CONSENT_MODES:
        raise typer.BadParameter(f"use one of {', '.join(scenarios.CONSENT_MODES)}", param_hint="'--consent'")
    settings = load_settings()
    if embedder:
        settings = settings.model_copy(update={"embedder": embedder})
    items = [s for s in scenarios.load(files) if not only or only in s["id"]]

    def report(o: scenarios.Outcome) -> None:
        typer.echo(f"PASS {o.id}" if o.passed else f"FAIL {o.id}: {'; '.join(o.reasons)}")
        for why, summary in o.noise.noisy if show_noise else ():
            typer.echo(f"  noise ({why}) {summary}")
        for summary in o.noise.unclaimed if show_noise else ():
            typer.echo(f"  unclaimed {summary}")

    outcomes = scenarios.run(items, embedder_from_settings(settings), llm=llm, report=report, consent=consent)
    passed = sum(o.passed for o in outcomes)
    if consent == "accept":
        accepted = [o for o in outcomes if o.accepted]
        typer.echo(
            f"consent: the runner accepted {sum(o.accepted for o in accepted)} proposed change(s) as the user "
            f"in {len(accepted)} scenario(s){': ' if accepted else ''}{', '.join(o.id for o in accepted)} "
            "(--consent hold leaves them pending)"
        )
    noise = scenarios.noise_line(outcomes)  # only when a scenario declares noise (docs/benchmarks.md)
    if noise:
        typer.echo(noise)
    typer.echo(f"{passed} passed, {len(outcomes) - passed} failed")
    raise typer.Exit(0 if passed == len(outcomes) else 1)


@eval_app.command("extraction")
def run_extraction(
    files: Annotated[
        list[Path],
        typer.Argument(
            metavar="FILE...",
            help="Labelled message JSONL files (data/extraction/README.md).",
            exists=True,
            readable=True,
        ),
    ],
    llm: Annotated[str | None, typer.Option(help="rules or learned [default: $MEMLANE_LLM or rules]")] = None,
) -> None:
    """Extract memories from labelled messages; print per file how many written memories were found
    (a proposal saying nearly the same words), how many proposals were right, and how many messages with
    nothing to keep were left alone."""
    from memlane.model.candidate import ChatMessage
    from memlane.providers.llm.registry import llm_from_settings
    from memlane.training.extraction_data import read_messages
    from memlane.training.extraction_eval import Proposal, score

    settings = load_settings()
    if llm:
        settings = settings.model_copy(update={"llm": llm})
    extractor = llm_from_settings(settings)
    for path in files:
        rows = read_messages([path])
        proposals = []
        for row in rows:
            before = [ChatMessage(role="assistant", content=row.assistant)] if row.assistant else []
            extraction = extractor.extract([*before, ChatMessage(role="user", content=row.message)])
            proposals.append([Proposal(c.summary) for c in extraction.candidates])
        typer.echo(f"{path.name}: {len(rows)} messages; {score(rows, proposals).line()}")
