"""The decision data in the repository: every row reads, training never holds a development or blind pair."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memlane.formation.calibrate import default_pairs_path, load_pairs
from memlane.training.decision_data import label_of, read_pairs

DATA = Path(__file__).resolve().parents[1] / "data" / "decisions"
HELD_OUT = [
    default_pairs_path(),
    DATA.parents[1] / "scenarios" / "pairs_holdout.jsonl",
    *sorted((DATA / "blind").glob("*.jsonl")),
]


def _key(a: str, b: str) -> frozenset[str]:
    return frozenset(" ".join(t.lower().rstrip(".").split()) for t in (a, b))


def test_every_training_row_is_a_labelled_pair_with_a_voice() -> None:
    pairs = read_pairs([DATA / "train"])
    assert len(pairs) >= 3000
    labels = {label_of(p) for p in pairs}
    assert labels == {"merge", "supersede", "create"}
    for path in sorted((DATA / "train").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            assert json.loads(line).get("voice"), f"{path.name}: a row without a voice tag"


@pytest.mark.parametrize("held_out", HELD_OUT, ids=lambda p: p.name)
def test_no_held_out_pair_is_in_the_training_data(held_out: Path) -> None:
    train = {_key(p.text_a, p.text_b) for p in read_pairs([DATA / "train"])}
    leaked = [p for p in load_pairs(held_out) if _key(p.text_a, p.text_b) in train]
    assert not leaked, f"{held_out.name}: {len(leaked)} pairs also in training, e.g. {leaked[0]}"
