"""Training examples for the decision model, read from the labelled pair files (the calibration format:
``text_a`` stored, ``text_b`` candidate, ``kind`` paraphrase / update / related / unrelated).

Besides the written rows, two kinds are derived with a seed: the written merge and create rows read the
other way round (both directions are the same relation), and unrelated pairs drawn from different rows
whose embeddings are far apart (cosine under ``FAR``), so the model sees many easy "both hold" pairs.
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

FAR = 0.25  # cosine under which two random memories are taken as unrelated
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


def derived_examples(pairs: Sequence[Pair], embed: Callable[[list[str]], np.ndarray], *, seed: int,
                     unrelated_share: float = 0.3) -> list[Example]:
    """The written merge/create rows reversed, and ``unrelated_share`` x len(pairs) far-apart random pairs."""
    rng = random.Random(seed)
    out = [Example(p.text_b, p.text_a, LABELS.index(label_of(p)), derived=True)
           for p in pairs if label_of(p) != "supersede"]
    texts = sorted({t for p in pairs for t in (p.text_a, p.text_b)})
    vectors = embed(texts)
    vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    wanted, tries = int(unrelated_share * len(pairs)), 0
    create = LABELS.index("create")
    while wanted and tries < wanted * 20:
        tries += 1
        i, j = rng.randrange(len(texts)), rng.randrange(len(texts))
        if i != j and float(vectors[i] @ vectors[j]) < FAR:
            out.append(Example(texts[i], texts[j], create, derived=True))
            wanted -= 1
    return out
