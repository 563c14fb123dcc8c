"""How well an extractor's memories match the labelled ones of a set of messages.

A written memory is found when a proposed memory says nearly the same words (token F1 of the two
summaries at least ``MATCH``, each proposal matching at most one memory). Any extractor can be scored
this way: the learned model's rewritten spans and the rules' candidates alike.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from memlane.training.extraction_data import LabelledMessage

MATCH = 0.5
_TOKEN = re.compile(r"[a-z0-9]+")
_IGNORED = frozenset({"user", "s", "the", "a", "an", "is", "are", "their", "they", "them"})


@dataclass(frozen=True)
class Proposal:
    summary: str
    kind: str | None = None  # None when the extractor does not say


def _tokens(text: str) -> Counter[str]:
    return Counter(t for t in _TOKEN.findall(text.lower()) if t not in _IGNORED)


def overlap(a: str, b: str) -> float:
    """Token F1 of two summaries (the words "User", articles and "is" left out)."""
    ta, tb = _tokens(a), _tokens(b)
    common = sum((ta & tb).values())
    if not common:
        return 0.0
    precision, recall = common / sum(tb.values()), common / sum(ta.values())
    return 2 * precision * recall / (precision + recall)


@dataclass
class ExtractionScores:
    messages: int = 0
    empty: int = 0  # messages with nothing to keep
    empty_kept_empty: int = 0  # ... for which the extractor proposed nothing
    gold: int = 0
    proposed: int = 0
    found: int = 0  # written memories matched by a proposal
    kind_agrees: int = 0  # matched memories whose kind the extractor named alike
    kind_named: int = 0

    @property
    def recall(self) -> float:
        return self.found / max(1, self.gold)

    @property
    def precision(self) -> float:
        return self.found / max(1, self.proposed)

    def line(self) -> str:
        kinds = f", kind {self.kind_agrees}/{self.kind_named}" if self.kind_named else ""
        return (
            f"recall {self.found}/{self.gold} ({self.recall:.0%}), precision {self.found}/{self.proposed} "
            f"({self.precision:.0%}), nothing-to-keep {self.empty_kept_empty}/{self.empty}{kinds}"
        )


def score(rows: Sequence[LabelledMessage], proposals: Sequence[Sequence[Proposal]]) -> ExtractionScores:
    scores = ExtractionScores()
    for row, proposed in zip(rows, proposals, strict=True):
        scores.messages += 1
        scores.gold += len(row.memories)
        scores.proposed += len(proposed)
        if not row.memories:
            scores.empty += 1
            scores.empty_kept_empty += not proposed
        unused = list(proposed)
        for memory in row.memories:
            best = max(unused, key=lambda p: overlap(memory.summary, p.summary), default=None)
            if best is None or overlap(memory.summary, best.summary) < MATCH:
                continue
            unused.remove(best)
            scores.found += 1
            if best.kind is not None:
                scores.kind_named += 1
                scores.kind_agrees += best.kind == memory.kind
    return scores
