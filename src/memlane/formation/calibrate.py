"""Fit the create/update bands of one embedder from labelled pairs (``memlane calibrate``).

A pair is two memory summaries labelled ``same`` (one fact, worded twice) or ``different``, with a
memory ``type`` (semantic or episodic) and an optional ``kind``: ``paraphrase``, ``update`` (the same
slot with a new value: "Miso is 5" / "Miso just turned 6"), ``related`` or ``unrelated``.

Per type, on the cosine scores of the pairs:

* ``auto``: the lowest threshold whose band (score >= auto) holds "same" pairs with precision >= the
  target; a neighbour there is taken as the same fact without asking the same-fact check.
* ``low``: the highest threshold that keeps the recall of "same" pairs (score >= low) >= the target;
  ``[low, auto)`` is the band where the same-fact check is asked.
* ``floor`` (when the set has ``update`` pairs): the highest threshold that keeps the same recall of
  "same" and "update" pairs together, so a changed value still reaches the conflict check.

With ``ignore_updates``, "update" pairs do not count against ``auto``: ``decide`` asks the conflict
check before merging in every band. Suggested values are rounded to two decimals without losing the
targets. The episodic merge window (``EPISODIC_MERGE_WINDOW_HOURS``) is not modelled: text only.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Literal

import numpy as np

from memlane.formation.bands import Bands
from memlane.formation.decide import decide
from memlane.model.candidate import Candidate
from memlane.model.enums import MemoryType
from memlane.model.errors import ValidationError
from memlane.model.record import MemoryRecord
from memlane.providers.embed.base import Embedder
from memlane.providers.llm.base import MemoryLLM
from memlane.storage.base import ScoredRecord

Label = Literal["same", "different"]
TYPES = ("semantic", "episodic")
KINDS = ("paraphrase", "update", "related", "unrelated")
ENV_NAMES = {
    "semantic": ("SEMANTIC_AUTO_UPDATE", "SEMANTIC_CHECK_LOW"),
    "episodic": ("EPISODIC_AUTO_UPDATE", "EPISODIC_CHECK_LOW"),
}


@dataclass(frozen=True)
class Pair:
    text_a: str
    text_b: str
    label: Label
    type: str = "semantic"
    kind: str | None = None


@dataclass(frozen=True)
class BandStats:
    name: str
    lower: float | None  # inclusive; None: no lower bound
    upper: float | None  # exclusive; None: no upper bound
    same: int
    different: int
    precision: float | None  # share of "same" among the pairs in the band; None when it is empty
    recall: float  # share of all "same" pairs that fall in the band
    f1: float
    kinds: dict[str, int] = field(default_factory=dict)  # "different" pairs in the band, by kind


@dataclass(frozen=True)
class TypeFit:
    type: str
    pairs: int
    auto: float
    low: float
    floor: float | None
    exact: dict[str, float]  # unrounded thresholds (pair scores)
    precision_reached: bool
    bands: list[BandStats]
    scores_by_kind: dict[str, tuple[float, float, float]]  # min, median, max


@dataclass(frozen=True)
class Calibration:
    embedder: str
    model: str
    precision_target: float
    ignore_updates: bool
    fits: list[TypeFit]

    def env(self) -> dict[str, str]:
        """The settings that apply the fitted bands, by environment variable name."""
        out: dict[str, str] = {}
        for fit in self.fits:
            auto_name, low_name = ENV_NAMES[fit.type]
            out[auto_name], out[low_name] = f"{fit.auto:.2f}", f"{fit.low:.2f}"
        return out


# --- input ----------------------------------------------------------------------------------------
def default_pairs_path() -> Path:
    return Path(str(resources.files("memlane.formation").joinpath("calibration_pairs.jsonl")))


def parse_pair(row: object, where: str) -> Pair:
    if not isinstance(row, dict):
        raise ValidationError(f"{where}: expected a JSON object")
    a, b, label = row.get("text_a"), row.get("text_b"), row.get("label")
    if not isinstance(a, str) or not a.strip() or not isinstance(b, str) or not b.strip():
        raise ValidationError(f"{where}: text_a and text_b must be non-empty strings")
    if label not in ("same", "different"):
        raise ValidationError(f"{where}: label must be 'same' or 'different', not {label!r}")
    mem_type = row.get("type") or "semantic"
    if mem_type not in TYPES:
        raise ValidationError(f"{where}: type must be one of {', '.join(TYPES)}, not {mem_type!r}")
    kind = row.get("kind")
    if kind is not None and kind not in KINDS:
        raise ValidationError(f"{where}: kind must be one of {', '.join(KINDS)}, not {kind!r}")
    return Pair(a.strip(), b.strip(), label, mem_type, kind)


def load_pairs(path: Path | None = None) -> list[Pair]:
    """Pairs from a JSONL file (the shipped set by default); blank lines are skipped."""
    path = path or default_pairs_path()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ValidationError(f"cannot read pairs file {path}: {exc.strerror or exc}") from None
    pairs: list[Pair] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValidationError(f"{path}:{number}: not JSON ({exc.msg})") from None
        pairs.append(parse_pair(row, f"{path}:{number}"))
    if not pairs:
        raise ValidationError(f"{path}: no pairs")
    return pairs


# --- fitting --------------------------------------------------------------------------------------
def score_pairs(embedder: Embedder, pairs: Sequence[Pair]) -> np.ndarray:
    """Cosine similarity of each pair (texts embedded once, in one batch)."""
    texts = list(dict.fromkeys(t for p in pairs for t in (p.text_a, p.text_b)))
    matrix = np.asarray(embedder.embed(texts), dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix = matrix / np.where(norms == 0, 1.0, norms)
    index = {t: i for i, t in enumerate(texts)}
    a = matrix[[index[p.text_a] for p in pairs]]
    b = matrix[[index[p.text_b] for p in pairs]]
    return np.clip(np.sum(a * b, axis=1), -1.0, 1.0)


def _precision(scores: np.ndarray, same: np.ndarray, t: float) -> float | None:
    above = scores >= t
    return float(same[above].mean()) if above.any() else None


def _recall_threshold(scores: np.ndarray, wanted: np.ndarray, target: float) -> float:
    """The highest threshold with recall of ``wanted`` >= target (a score of a wanted pair)."""
    ordered = np.sort(scores[wanted])[::-1]
    k = max(1, math.ceil(target * len(ordered) - 1e-9))
    return float(ordered[k - 1])


def _down(x: float) -> float:
    return math.floor(x * 100 + 1e-9) / 100


def _fit_auto(scores: np.ndarray, same: np.ndarray, target: float) -> tuple[float, float, bool]:
    """(suggested, exact, reached): the lowest threshold with precision >= target, rounded to 0.01
    at or below it when that keeps the target, else the next 0.01 step that does."""
    exact = next(
        (
            float(t)
            for t in np.unique(scores[same])
            if (p := _precision(scores, same, float(t))) is not None and p >= target
        ),
        None,
    )
    reached = exact is not None
    if exact is None:  # not reachable: put auto above every "different" pair
        exact = min(1.0, float(scores[~same].max()) + 1e-6)
    step = _down(exact)
    while step < 1.0:
        p = _precision(scores, same, step)
        if p is None or p >= target:
            break
        step = round(step + 0.01, 2)
    return min(step, 1.0), exact, reached


def _band(
    name: str,
    lower: float | None,
    upper: float | None,
    scores: np.ndarray,
    same: np.ndarray,
    kinds: Sequence[str | None],
) -> BandStats:
    inside = np.ones(len(scores), dtype=bool)
    if lower is not None:
        inside &= scores >= lower
    if upper is not None:
        inside &= scores < upper
    n_same, n_diff = int((inside & same).sum()), int((inside & ~same).sum())
    precision = n_same / (n_same + n_diff) if n_same + n_diff else None
    recall = n_same / max(1, int(same.sum()))
    f1 = 2 * precision * recall / (precision + recall) if precision and recall else 0.0
    by_kind = Counter(k or "different" for k, i, s in zip(kinds, inside, same, strict=True) if i and not s)
    return BandStats(name, lower, upper, n_same, n_diff, precision, recall, f1, dict(by_kind))


def fit_type(
    mem_type: str,
    pairs: Sequence[Pair],
    scores: np.ndarray,
    precision: float,
    recall: float,
    ignore_updates: bool = False,
) -> TypeFit:
    same = np.array([p.label == "same" for p in pairs])
    if same.all() or not same.any():
        raise ValidationError(f"{mem_type}: need both 'same' and 'different' pairs to fit bands")
    updates = np.array([p.kind == "update" for p in pairs])
    pool = ~updates if ignore_updates else np.ones(len(pairs), dtype=bool)
    if same[pool].all():
        raise ValidationError(f"{mem_type}: no 'different' pairs left to fit auto (besides updates)")
    auto, exact_auto, reached = _fit_auto(scores[pool], same[pool], precision)
    exact_low = _recall_threshold(scores, same, recall)
    low = min(_down(exact_low), auto)
    exact = {"auto": exact_auto, "low": exact_low}
    floor = None
    close = same | updates
    if updates.any():
        exact["floor"] = _recall_threshold(scores, close, recall)
        floor = min(_down(exact["floor"]), low)
    kinds = [p.kind for p in pairs]
    bands = [
        _band(">= auto", auto, None, scores, same, kinds),
        _band("[low, auto)", low, auto, scores, same, kinds),
        _band("< low", None, low, scores, same, kinds),
    ]
    by_kind: dict[str, tuple[float, float, float]] = {}
    for kind in sorted({k or p.label for k, p in zip(kinds, pairs, strict=True)}):
        s = scores[[(k or p.label) == kind for k, p in zip(kinds, pairs, strict=True)]]
        by_kind[kind] = (float(s.min()), float(np.median(s)), float(s.max()))
    return TypeFit(mem_type, len(pairs), auto, low, floor, exact, reached, bands, by_kind)


def calibrate(
    embedder: Embedder,
    pairs: Sequence[Pair],
    *,
    precision: float = 0.98,
    recall: float = 0.95,
    ignore_updates: bool = False,
    scores: np.ndarray | None = None,
) -> Calibration:
    """Score every pair with ``embedder`` and fit the bands of each memory type present.

    ``ignore_updates`` leaves "update" pairs out of auto's precision: ``decide`` asks the conflict check
    before merging in every band, so a changed value there is superseded, not merged."""
    for name, value in (("precision", precision), ("recall", recall)):
        if not 0 < value <= 1:
            raise ValidationError(f"{name} target must be in (0, 1], not {value}")
    scores = score_pairs(embedder, pairs) if scores is None else scores
    fits = []
    for mem_type in TYPES:
        chosen = [i for i, p in enumerate(pairs) if p.type == mem_type]
        if chosen:
            fits.append(
                fit_type(
                    mem_type, [pairs[i] for i in chosen], scores[chosen], precision, recall, ignore_updates
                )
            )
    return Calibration(embedder.name, embedder.model, precision, ignore_updates, fits)


# --- replaying the decision ---------------------------------------------------------------------
EXPECTED = {
    "paraphrase": ("merge",),
    "update": ("supersede",),
    "related": ("create",),
    "unrelated": ("create",),
}


@dataclass(frozen=True)
class Replay:
    """What ``decide`` does with each pair under ``bands``: text_a stored, text_b arriving an hour later."""

    name: str
    bands: dict[str, Bands]
    actions: dict[str, dict[str, int]]  # "semantic paraphrase" -> action -> count
    correct: int
    total: int
    scores: dict[str, ActionScore] = field(default_factory=dict)  # merge / supersede / create


@dataclass(frozen=True)
class ActionScore:
    """Precision and recall of one action over the replayed pairs."""

    wanted: int  # pairs whose expected action it is
    taken: int  # pairs decide() gave it
    precision: float | None
    recall: float | None


def action_scores(outcomes: Sequence[tuple[str, str]]) -> dict[str, ActionScore]:
    """Per action, from (wanted, taken) pairs."""
    out = {}
    for action in ("supersede", "merge", "create"):
        wanted = sum(w == action for w, _ in outcomes)
        taken = sum(t == action for _, t in outcomes)
        hits = sum(w == t == action for w, t in outcomes)
        out[action] = ActionScore(
            wanted, taken, hits / taken if taken else None, hits / wanted if wanted else None
        )
    return out


def expected(pair: Pair) -> tuple[str, ...]:
    if pair.kind:
        return EXPECTED[pair.kind]
    return ("merge",) if pair.label == "same" else ("create", "supersede")


def replay(
    name: str,
    pairs: Sequence[Pair],
    scores: np.ndarray,
    bands: Mapping[str, Bands],
    llm: MemoryLLM,
    *,
    merge_window: timedelta = timedelta(hours=72),
    heuristics: bool = True,
) -> Replay:
    """Run ``decide`` on every pair with the real same-fact and conflict checks of ``llm``."""
    stored_at = datetime(2026, 1, 1, 9, tzinfo=UTC)
    actions: dict[str, Counter[str]] = {}
    correct = 0
    outcomes: list[tuple[str, str]] = []
    for i, (pair, score) in enumerate(zip(pairs, scores, strict=True)):
        mem_type = MemoryType(pair.type)
        stored = MemoryRecord(
            id=f"pair-{i}",
            user_id="calibrate",
            type=mem_type,
            summary=pair.text_a,
            valid_from=stored_at,
            created_at=stored_at,
        )
        d = decide(
            Candidate(summary=pair.text_b, type=mem_type),
            at=stored_at + timedelta(hours=1),
            keyed=None,
            neighbours=[ScoredRecord(stored, float(score))],
            llm=llm,
            bands=bands[pair.type],
            merge_window=merge_window,
            heuristics=heuristics,
        )
        actions.setdefault(f"{pair.type} {pair.kind or pair.label}", Counter())[d.action] += 1
        correct += d.action in expected(pair)
        outcomes.append((d.action if d.action in expected(pair) else expected(pair)[0], d.action))
    return Replay(
        name,
        dict(bands),
        {k: dict(v) for k, v in sorted(actions.items())},
        correct,
        len(pairs),
        action_scores(outcomes),
    )
