"""Training examples for the decision model, read from the labelled pair files (the calibration format:
``text_a`` stored, ``text_b`` candidate, ``kind`` paraphrase / update / related / unrelated).

Besides the written rows, examples are derived with a seed (:func:`derived_examples`): the written merge
and create rows read the other way round, candidates of one stored memory compared with each other, and
"both hold" pairs of memories from different families whose embeddings are apart (cosine under ``FAR``),
as close in meaning as the neighbours formation judges under its similarity floor.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memlane.formation.calibrate import Pair, load_pairs
from memlane.model.errors import ValidationError
from memlane.providers.llm.learned.decision_model import LABELS

# cosine under which two memories of different families are taken as both holding: 95 % of the written
# supersede pairs score 0.50 or more, so a pair under this is almost never one attribute said twice
FAR = 0.45
_KIND_LABEL = {"paraphrase": "merge", "update": "supersede", "related": "create", "unrelated": "create"}


@dataclass(frozen=True)
class Example:
    stored: str
    candidate: str
    label: int  # index into LABELS
    derived: bool = False


def label_of(pair: Pair) -> str:
    """merge / supersede / create: what ``decide`` should do with the pair."""
    if pair.kind:
        return _KIND_LABEL[pair.kind]
    return "merge" if pair.label == "same" else "create"


def read_pairs(paths: Sequence[Path]) -> list[Pair]:
    """Every pair of the files (a folder stands for its ``*.jsonl`` files), in a stable order."""
    files: list[Path] = []
    for path in paths:
        files += sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    if not files:
        raise ValidationError(f"no pair files in {', '.join(map(str, paths))}")
    return [p for f in files for p in load_pairs(f)]


def examples(pairs: Sequence[Pair]) -> list[Example]:
    return [Example(p.text_a, p.text_b, LABELS.index(label_of(p))) for p in pairs]


def _family_examples(pairs: Sequence[Pair], rng: random.Random, per_family: int) -> list[Example]:
    """Candidates of one stored memory compared with each other: a paraphrase of it against an update of
    it is an update, two paraphrases are one fact, a paraphrase against a related fact is both holding."""
    families: dict[str, list[Pair]] = {}
    for p in pairs:
        families.setdefault(p.text_a, []).append(p)
    out: list[Example] = []
    for members in families.values():
        said = [p.text_b for p in members if label_of(p) == "merge"]
        made = [(p.text_b, label_of(p)) for p in members if p.kind in ("update", "related")]
        found = [(a, b, "merge") for a in said for b in said if a != b]
        found += [
            (a, b, "supersede" if label == "supersede" else "create") for a in said for b, label in made
        ]
        rng.shuffle(found)
        out += [Example(a, b, LABELS.index(label), derived=True) for a, b, label in found[:per_family]]
    return out


DERIVED_SHARE = 0.4  # derived examples at most this many times the written pairs (30 minutes of training)


def derived_examples(
    pairs: Sequence[Pair],
    embed: Callable[[list[str]], np.ndarray],
    *,
    seed: int,
    unrelated_share: float = 0.15,
    per_family: int = 4,
    far_per_change: int = 1,
    at_most: float = DERIVED_SHARE,
) -> list[Example]:
    """Each replacing candidate against ``far_per_change`` memories of other families under ``FAR`` (a
    word of change replaces nothing about another attribute: "moved to Berlin" leaves "works as a
    translator"), all kept; then, drawn with the seed up to ``at_most`` x len(pairs) in all (so training
    stays within its time on this machine): the written merge/create rows reversed, pairs within a family
    (:func:`_family_examples`) and ``unrelated_share`` x len(pairs) pairs far apart drawn at random."""
    rng = random.Random(seed)
    others = [
        Example(p.text_b, p.text_a, LABELS.index(label_of(p)), derived=True)
        for p in pairs
        if label_of(p) != "supersede"
    ]
    others += _family_examples(pairs, rng, per_family)
    texts = sorted({t for p in pairs for t in (p.text_a, p.text_b)})
    index = {t: i for i, t in enumerate(texts)}
    family = {t: p.text_a for p in pairs for t in (p.text_a, p.text_b)}
    vectors = embed(texts)
    vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    create = LABELS.index("create")

    def far_from(text: str) -> str | None:
        for _ in range(20):
            other = texts[rng.randrange(len(texts))]
            if family[other] != family[text] and float(vectors[index[text]] @ vectors[index[other]]) < FAR:
                return other
        return None

    changes = [
        Example(stored, p.text_b, create, derived=True)
        for p in pairs
        if label_of(p) == "supersede"
        for _ in range(far_per_change)
        if (stored := far_from(p.text_b)) is not None
    ]
    for _ in range(int(unrelated_share * len(pairs))):
        first = texts[rng.randrange(len(texts))]
        if (second := far_from(first)) is not None:
            others.append(Example(first, second, create, derived=True))
    room = max(0, int(at_most * len(pairs)) - len(changes))
    return changes + (others if len(others) <= room else rng.sample(others, room))
