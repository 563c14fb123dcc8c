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
    files: Annotated[list[Path], typer.Argument(metavar="FILE...", help="Scenario JSONL files.", exists=True,
                                                dir_okay=False, readable=True)],
    embedder: EmbedderOption = None,
    llm: Annotated[str | None, typer.Option(help="rules, openai or bedrock [default: $MEMLANE_LLM or rules]")] = None,
    only: Annotated[str | None, typer.Option(help="Run only scenarios whose id contains this.")] = None,
    consent: Annotated[str, typer.Option(help="accept: accept each proposed change to a sensitive field as the "
                                              "user would (counted); hold: leave them pending; off: no consent "
                                              "fields (docs/consent.md).")] = "accept",
) -> None:
    """Replay scenarios into fresh stores; print PASS/FAIL per scenario and 'N passed, N failed'."""
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

    outcomes = scenarios.run(items, embedder_from_settings(settings), llm=llm, report=report, consent=consent)
    passed = sum(o.passed for o in outcomes)
    if consent == "accept":
        accepted = [o for o in outcomes if o.accepted]
        typer.echo(f"consent: the runner accepted {sum(o.accepted for o in accepted)} proposed change(s) as the user "
                   f"in {len(accepted)} scenario(s){': ' if accepted else ''}{', '.join(o.id for o in accepted)} "
                   "(--consent hold leaves them pending)")
    typer.echo(f"{passed} passed, {len(outcomes) - passed} failed")
    raise typer.Exit(0 if passed == len(outcomes) else 1)
