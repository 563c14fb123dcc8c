"""``memlane train``: fine-tune the offline models from the labelled data in the repository."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memlane.cli.app import app

train_app = typer.Typer(help="Train the offline models (CPU, seeded).", no_args_is_help=True)
app.add_typer(train_app, name="train")

_DEFAULT_DATA = Path("data/decisions/train")
_DEFAULT_DEV = [Path("scenarios/pairs_holdout.jsonl")]  # plus the shipped calibration pairs


_Bf16Option = Annotated[
    bool | None,
    typer.Option(
        "--bf16/--fp32", help="bfloat16 forward passes (default: where the CPU has AMX or AVX-512 BF16)."
    ),
]


def _bf16(option: bool | None) -> bool:
    """--bf16/--fp32 as given, else bfloat16 where the CPU multiplies it in hardware."""
    from memlane.training.fine_tune import bf16_native

    return bf16_native() if option is None else option


@train_app.command("decisions")
def train_decisions(
    data: Annotated[
        list[Path] | None,
        typer.Option(
            "--data",
            help="Training pair files or folders of *.jsonl [default: data/decisions/train]",
            exists=True,
            show_default=False,
        ),
    ] = None,
    dev: Annotated[
        list[Path] | None,
        typer.Option(
            "--dev",
            help="Development pair files, scored after each epoch [default: the shipped calibration "
            "pairs and scenarios/pairs_holdout.jsonl]",
            exists=True,
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Where the weights and card go [default: the package's weights folder]",
            file_okay=False,
            show_default=False,
        ),
    ] = None,
    epochs: Annotated[int, typer.Option(min=1, max=20)] = 2,
    seed: Annotated[int, typer.Option()] = 13,
    learning_rate: Annotated[float, typer.Option(min=1e-7, max=1e-2)] = 4e-5,
    limit: Annotated[
        int | None, typer.Option(min=1, help="Use only the first N written pairs (a quick run).")
    ] = None,
    unsure_below: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=1.0,
            help="Verdicts less probable than this are 'unsure' (the similarity bands decide).",
        ),
    ] = 0.5,
    derived: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=3.0,
            help="Derived examples at most this many times the written pairs (default 0.4).",
        ),
    ] = None,
    bf16: _Bf16Option = None,
) -> None:
    """Fine-tune the decision model (stored memory, candidate -> merge / supersede / create); print the
    development figures after each epoch; write decision.safetensors and decision.json."""
    import numpy as np

    from memlane.formation.calibrate import default_pairs_path
    from memlane.providers.embed.local import LocalEmbedder
    from memlane.providers.llm.learned.decision_model import weights_dir
    from memlane.training.decision_data import DERIVED_SHARE, derived_examples, examples, read_pairs
    from memlane.training.train_decisions import TrainConfig, train

    pairs = read_pairs(data or [_DEFAULT_DATA])[:limit]
    dev_paths = dev or [default_pairs_path(), *(p for p in _DEFAULT_DEV if p.exists())]
    dev_sets = {p.stem: examples(read_pairs([p])) for p in dev_paths}
    embedder = LocalEmbedder()
    extra = derived_examples(
        pairs,
        lambda texts: np.asarray(embedder.embed(texts)),
        seed=seed,
        at_most=DERIVED_SHARE if derived is None else derived,
    )
    train_set = examples(pairs) + extra
    typer.echo(
        f"{len(pairs)} written pairs + {len(extra)} derived = {len(train_set)} examples; "
        f"dev: {', '.join(f'{k} {len(v)}' for k, v in dev_sets.items())}"
    )
    config = TrainConfig(
        epochs=epochs,
        seed=seed,
        learning_rate=learning_rate,
        unsure_below=unsure_below,
        bf16=_bf16(bf16),
    )
    target = out or weights_dir()
    train(train_set, dev_sets, target, config, log=typer.echo)
    typer.echo(f"wrote {target / 'decision.safetensors'} and {target / 'decision.json'}")


_DEFAULT_EXTRACTION = Path("data/extraction/train")
_DEFAULT_EXTRACTION_DEV = Path("data/extraction/dev")


@train_app.command("extraction")
def train_extraction(
    data: Annotated[
        list[Path] | None,
        typer.Option(
            "--data",
            help="Training message files or folders of *.jsonl [default: data/extraction/train]",
            exists=True,
            show_default=False,
        ),
    ] = None,
    dev: Annotated[
        list[Path] | None,
        typer.Option(
            "--dev",
            help="Development message files, scored after each epoch [default: data/extraction/dev]",
            exists=True,
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Where the weights and card go [default: the package's weights folder]",
            file_okay=False,
            show_default=False,
        ),
    ] = None,
    epochs: Annotated[int, typer.Option(min=1, max=20)] = 5,
    seed: Annotated[int, typer.Option()] = 13,
    learning_rate: Annotated[float, typer.Option(min=1e-7, max=1e-2)] = 5e-5,
    limit: Annotated[
        int | None, typer.Option(min=1, help="Use only the first N messages (a quick run).")
    ] = None,
    bf16: _Bf16Option = None,
) -> None:
    """Fine-tune the extraction model (a user's message -> the spans worth remembering, their kind, category
    and importance); print the development figures after each epoch; write extraction.safetensors and .json."""
    from memlane.providers.llm.learned.decision_model import weights_dir
    from memlane.training.extraction_data import read_messages
    from memlane.training.train_extraction import TrainConfig, train

    rows = read_messages(data or [_DEFAULT_EXTRACTION])[:limit]
    dev_paths = dev or [_DEFAULT_EXTRACTION_DEV]
    dev_sets = {p.stem: read_messages([p]) for p in dev_paths}
    typer.echo(f"{len(rows)} messages; dev: {', '.join(f'{k} {len(v)}' for k, v in dev_sets.items())}")
    target = out or weights_dir()
    train(
        rows,
        dev_sets,
        target,
        TrainConfig(
            epochs=epochs,
            seed=seed,
            learning_rate=learning_rate,
            bf16=_bf16(bf16),
        ),
        log=typer.echo,
    )
    typer.echo(f"wrote {target / 'extraction.safetensors'} and {target / 'extraction.json'}")


@train_app.command("graphs")
def train_graphs(
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Where the graphs and their cards go [default: the package's providers/graphs folder]",
            file_okay=False,
            show_default=False,
        ),
    ] = None,
) -> None:
    """Export the graphs ONNX Runtime runs (the bundled encoder, the decision model) without their weights.
    Needs torch and the onnx package (pip install onnx). Only a new architecture needs this."""
    import importlib.util

    from memlane.model.errors import ValidationError
    from memlane.providers.onnx_graph import graphs_dir
    from memlane.training.export_graphs import export_decision, export_embedder

    if importlib.util.find_spec("onnx") is None:
        raise ValidationError("exporting graphs needs the onnx package: pip install onnx")
    target = out or graphs_dir()
    for path in (export_embedder(target), export_decision(target)):
        typer.echo(f"wrote {path} ({path.stat().st_size // 1024} KB) and {path.with_suffix('.json').name}")
