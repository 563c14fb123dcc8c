"""``memlane calibrate``: band fitting on known scores, the shipped pairs, the CLI (hash embedder), and
one small check with the real local model."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner, Result

from memlane.cli.app import app
from memlane.formation.bands import Bands
from memlane.formation.calibrate import Pair, calibrate, fit_type, load_pairs, replay
from memlane.model.candidate import ChatMessage, ConflictVerdict, Extraction, SameFact
from memlane.model.errors import ValidationError
from memlane.providers.embed import get_embedder
from memlane.providers.llm.base import MemoryLLM


def pairs_with(labels: str, kinds: Sequence[str | None] | None = None) -> list[Pair]:
    """One pair per character of ``labels``: s = same, d = different."""
    kinds = kinds or [None] * len(labels)
    return [
        Pair(f"a{i}", f"b{i}", "same" if c == "s" else "different", "semantic", k)
        for i, (c, k) in enumerate(zip(labels, kinds, strict=True))
    ]


def test_auto_is_the_lowest_threshold_with_the_precision_and_low_keeps_the_recall() -> None:
    scores = np.array([0.95, 0.90, 0.85, 0.70, 0.80, 0.50, 0.30])
    fit = fit_type("semantic", pairs_with("ssssddd"), scores, precision=1.0, recall=0.75)
    assert fit.precision_reached
    assert fit.exact["auto"] == pytest.approx(0.85) and fit.auto == pytest.approx(0.85)
    assert fit.exact["low"] == pytest.approx(0.85) and fit.low == pytest.approx(0.85)
    assert fit.floor is None
    auto, check, below = fit.bands
    assert (auto.same, auto.different, auto.precision, auto.recall) == (3, 0, 1.0, 0.75)
    assert (check.same, check.different) == (0, 0) and check.precision is None
    assert (below.same, below.different) == (1, 3)

    wide = fit_type("semantic", pairs_with("ssssddd"), scores, precision=0.75, recall=1.0)
    assert wide.auto == pytest.approx(0.70) and wide.low == pytest.approx(0.70)  # 4 same of 5 >= 0.70


def test_rounding_never_lets_a_different_pair_into_auto() -> None:
    scores = np.array([0.99, 0.853, 0.851, 0.40])
    fit = fit_type("semantic", pairs_with("ssdd"), scores, precision=1.0, recall=1.0)
    assert fit.exact["auto"] == pytest.approx(0.853)
    assert fit.auto == pytest.approx(0.86)  # 0.85 would take in the different pair at 0.851
    assert fit.low == pytest.approx(0.85)  # rounded down: recall only grows


def test_unreachable_precision_puts_auto_above_every_different_pair() -> None:
    scores = np.array([0.97, 0.90, 0.60, 0.20])
    fit = fit_type("semantic", pairs_with("dssd"), scores, precision=0.98, recall=0.5)
    assert not fit.precision_reached
    assert fit.auto >= 0.97 and fit.bands[0].different == 0


def test_floor_keeps_updates_and_ignore_updates_frees_auto() -> None:
    labels, kinds = "sssddd", ["paraphrase"] * 3 + ["update", "update", "unrelated"]
    scores = np.array([0.90, 0.80, 0.70, 0.95, 0.60, 0.20])
    strict = fit_type("semantic", pairs_with(labels, kinds), scores, precision=1.0, recall=1.0)
    assert not strict.precision_reached and strict.bands[0].same == 0
    assert strict.floor == pytest.approx(0.60) and strict.low == pytest.approx(0.70)
    assert strict.bands[1].kinds == {"update": 1}
    lenient = fit_type(
        "semantic", pairs_with(labels, kinds), scores, precision=1.0, recall=1.0, ignore_updates=True
    )
    assert lenient.precision_reached and lenient.auto == pytest.approx(0.70)


def test_one_label_only_is_refused() -> None:
    with pytest.raises(ValidationError, match="both"):
        fit_type("semantic", pairs_with("ss"), np.array([0.9, 0.8]), precision=0.98, recall=0.95)


def test_shipped_pairs_are_varied_and_valid() -> None:
    pairs = load_pairs()
    assert 150 <= len(pairs) <= 260
    counts = Counter((p.type, p.kind) for p in pairs)
    for mem_type in ("semantic", "episodic"):
        for kind in ("paraphrase", "update", "related", "unrelated"):
            assert counts[(mem_type, kind)] >= 10, (mem_type, kind)
    assert all((p.label == "same") == (p.kind == "paraphrase") for p in pairs)
    assert len({(p.text_a, p.text_b) for p in pairs}) == len(pairs)


def test_calibrate_with_the_hash_embedder_fits_both_types() -> None:
    cal = calibrate(get_embedder("hash"), load_pairs())
    assert [f.type for f in cal.fits] == ["semantic", "episodic"]
    for fit in cal.fits:
        assert fit.floor is not None and fit.auto >= fit.low >= fit.floor
        assert sum(b.same + b.different for b in fit.bands) == fit.pairs
        assert sum(b.recall for b in fit.bands) == pytest.approx(1.0)
    assert set(cal.env()) == {
        "SEMANTIC_AUTO_UPDATE",
        "SEMANTIC_CHECK_LOW",
        "EPISODIC_AUTO_UPDATE",
        "EPISODIC_CHECK_LOW",
    }


class NeverSame(MemoryLLM):
    """Checks that never see a conflict and never call two texts the same fact (the bands decide)."""

    name = "never-same"

    def extract(self, messages: Sequence[ChatMessage], existing: Sequence[str] = ()) -> Extraction:
        return Extraction(should_create=False)

    def same_fact(self, existing: str, candidate: str, category: str | None = None) -> SameFact:
        return SameFact(same_fact=False)

    def classify_conflict(self, existing: str, candidate: str) -> ConflictVerdict:
        return ConflictVerdict(relation="unsure")


def test_replay_runs_decide_on_each_pair_with_the_bands() -> None:
    pairs = pairs_with("ssdd", ["paraphrase", "paraphrase", "update", "unrelated"])
    scores = np.array([0.90, 0.60, 0.85, 0.20])
    bands = {"semantic": Bands(auto=0.80, low=0.50, floor=0.30, link=0.5)}
    result = replay("test", pairs, scores, bands, NeverSame())
    assert result.actions == {
        "semantic paraphrase": {"merge": 1, "create": 1},
        "semantic unrelated": {"create": 1},
        "semantic update": {"merge": 1},
    }
    assert (result.correct, result.total) == (2, 4)  # the auto merge and the unrelated create
    # merge: given twice (paraphrase, update), right once; supersede wanted once, never given
    assert (result.scores["merge"].precision, result.scores["merge"].recall) == (0.5, 0.5)
    assert (result.scores["supersede"].precision, result.scores["supersede"].recall) == (None, 0.0)
    assert (result.scores["create"].precision, result.scores["create"].recall) == (0.5, 1.0)


def run(*args: str) -> Result:
    return CliRunner().invoke(app, ["calibrate", "--embedder", "hash", *args], env={"COLUMNS": "120"})


def test_cli_prints_bands_and_settings() -> None:
    result = run()
    assert result.exit_code == 0, result.output
    for text in (
        "semantic (",
        "episodic (",
        "auto >=",
        "check ",
        "below <",
        "SEMANTIC_AUTO_UPDATE=",
        "EPISODIC_CHECK_LOW=",
        'DEFAULTS["hash"]["episodic"] = Bands(',
    ):
        assert text in result.stdout


def test_cli_json_and_bad_input(tmp_path: Path) -> None:
    result = run("--json", "--precision", "0.9")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["embedder"] == "hash" and data["precision_target"] == 0.9
    assert data["env"]["SEMANTIC_AUTO_UPDATE"] == f"{data['fits'][0]['auto']:.2f}"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text_a": "x", "text_b": "y", "label": "same", "type": "procedural"}\n')
    result = run("--pairs", str(bad))
    assert result.exit_code == 2 and "error:" in result.stderr and "type must be" in result.stderr
    assert run("--recall", "1.5").exit_code == 2


def test_cli_decisions_compares_configured_and_fitted_bands() -> None:
    result = run("--decisions", "--json")
    assert result.exit_code == 0, result.output
    configured, fitted = json.loads(result.stdout)["decisions"]
    assert (configured["name"], fitted["name"]) == ("configured", "fitted")
    assert configured["total"] == fitted["total"] == len(load_pairs())
    assert fitted["bands"]["semantic"]["auto"] == json.loads(result.stdout)["fits"][0]["auto"]
    out = run("--decisions").stdout
    assert "correct" in out and "supersede P / R" in out


def test_local_model_separates_paraphrases_from_unrelated(tmp_path: Path) -> None:
    same = [
        ("User owns a red kayak.", "The user has a kayak that is red."),
        ("User is a pharmacist in Lyon.", "User works as a pharmacist in Lyon."),
    ]
    different = [
        ("User owns a red kayak.", "User's brother plays the oboe."),
        ("User is a pharmacist in Lyon.", "User is afraid of spiders."),
    ]
    pairs = [Pair(a, b, "same", "semantic", "paraphrase") for a, b in same]
    pairs += [Pair(a, b, "different", "semantic", "unrelated") for a, b in different]
    cal = calibrate(get_embedder("local"), pairs, precision=1.0, recall=1.0)
    fit = cal.fits[0]
    assert cal.embedder == "local" and fit.precision_reached
    assert fit.scores_by_kind["paraphrase"][0] > 0.8 > 0.3 > fit.scores_by_kind["unrelated"][2]
    assert fit.bands[0].same == 2 and fit.bands[0].different == 0
