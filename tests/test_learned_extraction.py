"""The learned extraction path: the training command on a slice (a tiny model, to keep the pipeline
honest), the provider reading its weights only to extract, and the evaluation command."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from memlane.cli.app import app
from memlane.model.candidate import Candidate, ChatMessage, Extraction
from memlane.providers.llm.learned import LearnedLLM
from memlane.providers.llm.learned.extract import combined
from memlane.providers.llm.learned.extraction_model import TAGS

DATA = Path(__file__).resolve().parents[1] / "data" / "extraction"


def test_the_training_command_trains_a_tiny_model_that_the_provider_extracts_with(tmp_path: Path) -> None:
    slice_file = tmp_path / "slice.jsonl"
    rows = [line for f in sorted((DATA / "train").glob("*.jsonl")) for line in f.read_text().splitlines()[:6]]
    slice_file.write_text("\n".join(rows) + "\n")
    out = tmp_path / "model"
    result = CliRunner().invoke(
        app,
        [
            "train",
            "extraction",
            "--data",
            str(slice_file),
            "--dev",
            str(slice_file),
            "--epochs",
            "1",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "epoch 1:" in result.output and "slice recall" in result.output
    card = json.loads((out / "extraction.json").read_text())
    assert card["tags"] == list(TAGS) and card["info"]["train_messages"] == len(rows)
    assert (out / "extraction.safetensors").stat().st_size < 25_000_000  # the trained layers only
    extraction = LearnedLLM(weights=out).extract(
        [ChatMessage(role="user", content="I live in Tromsø with my cat.")]
    )
    assert all(c.summary.startswith("User") for c in extraction.candidates)
    assert extraction.should_create == bool(extraction.candidates)


def test_without_extraction_weights_the_learned_provider_extracts_with_the_rules(tmp_path: Path) -> None:
    extraction = LearnedLLM(weights=tmp_path).extract([ChatMessage(role="user", content="I live in Tromsø.")])
    assert [c.summary for c in extraction.candidates] == ["User lives in Tromsø."]


def test_the_evaluation_command_scores_an_extractor_on_labelled_messages() -> None:
    result = CliRunner().invoke(
        app, ["eval", "extraction", str(DATA / "dev" / "whose_and_changes.jsonl"), "--llm", "rules"]
    )
    assert result.exit_code == 0, result.output
    assert "whose_and_changes.jsonl:" in result.output and "recall " in result.output


def _extraction(*candidates: Candidate) -> Extraction:
    return Extraction(should_create=bool(candidates), candidates=list(candidates))


def test_the_models_candidates_join_the_rules_only_where_they_say_something_else() -> None:
    rules = _extraction(Candidate(summary="User lives in York.", key="profile:residence:city"))
    learned = _extraction(
        Candidate(summary="User moved to York last weekend."),  # the same move: the keyed rewrite stays
        Candidate(summary="User quit smoking 10 days ago."),  # missed by the rules: kept
    )
    both = combined(rules, learned)
    assert [c.summary for c in both.candidates] == ["User lives in York.", "User quit smoking 10 days ago."]
    assert both.candidates[0].key == "profile:residence:city"
    assert combined(_extraction(), learned).candidates == learned.candidates
    nothing = combined(_extraction(), _extraction())
    assert not nothing.should_create and not nothing.candidates
