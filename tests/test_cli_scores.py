"""The score tables of ``memlane demo`` and ``memlane search`` add up: every printed score is the printed
formula (the caption) applied to the printed parts (real SQLite file, hash embedder)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memlane.cli.app import app

NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLANE_CONFIG", str(tmp_path / "no-config.toml"))
    for name in ("MEMLANE_DB", "MEMLANE_EMBEDDER", "MEMLANE_USER"):
        monkeypatch.delenv(name, raising=False)


def run(*args: str) -> str:
    result = CliRunner().invoke(app, [*args, "--embedder", "hash"], env={"COLUMNS": "220"})
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result.stdout


def tables(out: str) -> list[tuple[str, list[dict[str, float]]]]:
    """(caption, rows) of each score table: a row maps the column names to the printed numbers."""
    found: list[tuple[str, list[dict[str, float]]]] = []
    header: list[str] = []
    rows: list[dict[str, float]] = []
    for line in out.splitlines():
        if line.startswith("┃"):
            header, rows = [c.strip() for c in line.strip("┃").split("┃")], []
        elif line.startswith("│") and header:
            cells = [c.strip() for c in line.strip("│").split("│")]
            if cells[0].isdigit():
                rows.append(
                    {
                        name: float(cell)
                        for name, cell in zip(header, cells, strict=True)
                        if NUMBER.match(cell)
                    }
                )
        elif line.startswith("score = "):
            found.append((line.strip(), rows))
            header, rows = [], []
    return found


def recompute(caption: str, row: dict[str, float]) -> tuple[float, float]:
    """The score the caption's formula gives for the row's printed parts, and the rounding it can be off by."""
    formula = caption.removeprefix("score = ").split("   (")[0]
    factors = [f for f in ("decay", "tw") if f" * {f}" in formula]  # multiply the weighted sum
    formula = formula.split(" * decay")[0].split(" * tw")[0].strip("()")
    total, slack = 0.0, 0.0005  # the score is printed to 3 decimals, the parts to 2
    for sign, term in re.findall(r"([+-]?)\s*([\w.*]+)", formula):
        weight, _, part = term.rpartition("*")
        factor = (float(weight) if weight else 1.0) * (-1 if sign == "-" else 1)
        total += factor * row[part]
        slack += abs(factor) * 0.005
    for f in factors:
        slack = slack * row[f] + abs(total) * 0.005
        total *= row[f]
    return total, slack


def assert_scores_add_up(out: str, expected_tables: int) -> list[str]:
    found = tables(out)
    assert len(found) == expected_tables, out
    for caption, rows in found:
        assert rows, caption
        for row in rows:
            score, slack = recompute(caption, row)
            assert abs(score - row["score"]) <= slack, f"{caption}: {row} recomputes to {score:.4f}"
    return [caption for caption, _ in found]


def test_demo_scores_are_the_caption_formula_of_the_printed_parts(tmp_path: Path) -> None:
    out = run("demo", "--db", str(tmp_path / "demo.db"))
    captions = assert_scores_add_up(out, expected_tables=4)
    assert any("+ rel" in c for c in captions)  # the relation boost is part of the formula when it is a part


def test_search_shows_the_weights_of_this_question_and_the_age_decay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_DECAY_ENABLED", "true")
    db = str(tmp_path / "s.db")
    for summary in ("User lives in Porto.", "User's cat Luna is 4 years old.", "User is vegetarian."):
        run("put", summary, "--user", "maya", "--db", db)
    run("put", "User grew up in Braga.", "--pinned", "--user", "maya", "--db", db)
    out = run("search", "where does the user live", "--user", "maya", "--db", db)
    plain = assert_scores_add_up(out, 1)
    recall = assert_scores_add_up(
        run("search", "do you remember where I live?", "--user", "maya", "--db", db), 1
    )
    assert "0.15*rec" in plain[0] and "0.30*rec" in recall[0]  # a recall question weighs recency double
    assert recall[0].startswith("score = (") and " * decay" in recall[0]
    assert (
        "0.50*pin" in plain[0] and "pin = 1: pinned, among the 3 closest, and its cosine within 0.15" in out
    )
