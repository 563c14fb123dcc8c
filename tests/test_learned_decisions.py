"""The learned decision path: the training command on a slice (a tiny model, to keep the pipeline honest),
the shipped model's verdicts on pairs in our own words, and formation deciding with it end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memlane.cli.app import app
from memlane.providers.llm.learned import LearnedLLM

DATA = Path(__file__).resolve().parents[1] / "data" / "decisions" / "train"


def test_the_training_command_trains_a_tiny_model_that_the_provider_loads(tmp_path: Path) -> None:
    slice_file = tmp_path / "slice.jsonl"
    rows = [line for f in sorted(DATA.glob("*.jsonl")) for line in f.read_text().splitlines()[:8]]
    slice_file.write_text("\n".join(rows) + "\n")
    out = tmp_path / "model"
    result = CliRunner().invoke(
        app,
        [
            "train",
            "decisions",
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
    assert "epoch 1:" in result.output and "slice" in result.output
    card = json.loads((out / "decision.json").read_text())
    assert card["labels"] == ["merge", "supersede", "create"] and card["info"]["train_examples"] > len(rows)
    # only the trained layers ship: well under the full encoder's 90 MB
    assert (out / "decision.safetensors").stat().st_size < 25_000_000
    verdicts = LearnedLLM(weights=out).judge(
        "User lives in York.", ["User lives in Leeds.", "User has a cat."]
    )
    assert len(verdicts) == 2
    assert all(v.relation in ("redundancy", "contradiction", "new", "unsure") for v in verdicts)
    assert all((v.reason or "").startswith("decision model: merge ") for v in verdicts)


def test_training_refuses_a_file_that_is_not_pairs(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text_a": "User lives in York."}\n')
    result = CliRunner().invoke(app, ["train", "decisions", "--data", str(bad), "--out", str(tmp_path / "m")])
    assert result.exit_code != 0
    assert "text_a and text_b must be non-empty strings" in result.output
    assert not (tmp_path / "m").exists()


def _known_gap(stored: str, candidate: str, relation: str, why: str) -> object:
    """A pair the shipped model still gets wrong: strict, so a model that learns it makes the test fail."""
    return pytest.param(
        stored,
        candidate,
        relation,
        marks=pytest.mark.xfail(
            strict=True, reason=f"known gap of the shipped model: {why} (docs/learned-decisions.md)"
        ),
    )


@pytest.fixture(scope="module")
def learned() -> LearnedLLM:
    return LearnedLLM()


@pytest.mark.parametrize(
    ("stored", "candidate", "relation"),
    [
        ("User lives in Lisbon.", "User moved to Madrid last month.", "contradiction"),
        ("User likes coffee.", "User hates coffee.", "contradiction"),
        ("User has a dog.", "User has a golden retriever named Max.", "contradiction"),
        ("User works remotely as a translator.", "User moved to Berlin.", "new"),
        _known_gap(
            "User is learning Japanese.",
            "User wants to visit Japan.",
            "new",
            "another fact about the same topic read as the same fact",
        ),
        _known_gap(
            "User lives in a rented house in Durban North.",
            "User's landlord, Mr Pillay, has moved to Ballito.",
            "new",
            "someone else's move read as the user's",
        ),
        ("User's daughter Ines is 6.", "Ines, the user's daughter, just turned seven.", "contradiction"),
        ("User is vegetarian.", "User eats meat again these days.", "contradiction"),
        ("User's monthly rent is $1,850.", "The user pays 1850 dollars a month in rent.", "redundancy"),
        _known_gap(
            "User hates coriander.", "User can't stand cilantro.", "redundancy", "synonyms it was not shown"
        ),
        ("User plays the guitar.", "User plays the piano too.", "new"),
        ("User works as a nurse.", "User's husband works as a nurse.", "new"),
        ("User moved to Madrid last month.", "User has a cat called Tofu.", "new"),
    ],
)
def test_the_shipped_model_decides_everyday_pairs(
    learned: LearnedLLM, stored: str, candidate: str, relation: str
) -> None:
    assert learned.classify_conflict(stored, candidate).relation == relation


def test_formation_with_the_learned_judge_replaces_a_moved_home_and_keeps_the_rest(
    tmp_path: Path, learned: LearnedLLM
) -> None:
    from tests.formation_helpers import open_memory

    mem = open_memory(str(tmp_path / "m.db"), learned)
    try:
        for day, fact in enumerate(
            ["User lives in Lisbon.", "User works as a translator.", "User plays the guitar."]
        ):
            mem.add_facts([{"summary": fact}], user_id="ana", at=f"2026-01-0{day + 1}T09:00:00Z", wait=True)
        mem.add_facts(
            [{"summary": "User moved to Porto in March."}],
            user_id="ana",
            at="2026-03-20T09:00:00Z",
            wait=True,
        )
        mem.add_facts(
            [{"summary": "User plays the piano as well."}],
            user_id="ana",
            at="2026-03-21T09:00:00Z",
            wait=True,
        )
        active = sorted(r.summary for r in mem.list(user_id="ana"))
        assert active == [
            "User moved to Porto in March.",
            "User plays the guitar.",
            "User plays the piano as well.",
            "User works as a translator.",
        ]
        old = mem.list(user_id="ana", filters={"state": "superseded"}, include_inactive=True)
        assert [r.summary for r in old] == ["User lives in Lisbon."]
        assert "decision model" in (mem.history(old[0].id, user_id="ana")[-1].reason or "")
    finally:
        mem.close()


def test_the_judge_runs_on_the_threads_the_settings_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """``MEMLANE_TORCH_THREADS`` sets the decision model's threads as it sets the embedder's."""
    from memlane.model.config import Settings
    from memlane.providers.llm.registry import llm_from_settings

    monkeypatch.setenv("MEMLANE_TORCH_THREADS", "2")
    llm = llm_from_settings(Settings(llm="learned"))
    assert isinstance(llm, LearnedLLM)
    llm.model.probabilities([("User lives in Leeds.", "User moved to York.")])
    assert llm.model._load()[1].threads == 2
    monkeypatch.delenv("MEMLANE_TORCH_THREADS")
    default = llm_from_settings(Settings(llm="learned"))
    assert default.model is not llm.model and default.model.threads is None
