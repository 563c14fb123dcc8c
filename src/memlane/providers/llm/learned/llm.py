"""``learned``: the offline provider whose understanding comes from the trained models.

Extraction is the rules' exact rewrites joined by what the extraction model finds that they miss (when its
weights are there; see :func:`extract.combined`); the same-fact, conflict and judge answers are the decision
model's. A verdict less probable than the card's ``unsure_below`` is "unsure": the
similarity bands decide, as they do for any judge that cannot tell.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memlane.model.candidate import ChatMessage, ConflictVerdict, Extraction, SameFact
from memlane.providers.llm.learned.decision_model import RELATION, DecisionModel, shared_model
from memlane.providers.llm.learned.extract import combined, extract_with
from memlane.providers.llm.learned.extraction_model import ExtractionModel, shared_extractor
from memlane.providers.llm.rules.llm import RulesLLM


class LearnedLLM(RulesLLM):
    name = "learned"

    def __init__(self, weights: str | Path | None = None, threads: int | None = None, **options: Any) -> None:
        super().__init__(**options)
        self.model: DecisionModel = shared_model(Path(weights) if weights else None, threads)
        self.extractor: ExtractionModel = shared_extractor(Path(weights) if weights else None)

    def extract(self, messages: Sequence[ChatMessage], existing: Sequence[str] = ()) -> Extraction:
        rules = super().extract(messages, existing)
        if not self.extractor.available():
            return rules
        return combined(rules, extract_with(self.extractor, messages, existing))

    def _verdict(self, probs: np.ndarray) -> ConflictVerdict:
        labels, best = self.model.card.labels, int(np.argmax(probs))
        reason = "decision model: " + ", ".join(
            f"{name} {p:.2f}" for name, p in zip(labels, probs, strict=True)
        )
        if probs[best] < self.model.card.unsure_below:
            return ConflictVerdict(relation="unsure", reason=reason)
        return ConflictVerdict(relation=RELATION[labels[best]], reason=reason)

    def judge(self, candidate: str, existing: Sequence[str]) -> list[ConflictVerdict]:
        probs = self.model.probabilities([(e, candidate) for e in existing])
        return [self._verdict(p) for p in probs]

    def classify_conflict(self, existing: str, candidate: str) -> ConflictVerdict:
        return self.judge(candidate, [existing])[0]

    def same_fact(self, existing: str, candidate: str, category: str | None = None) -> SameFact:
        verdict = self.classify_conflict(existing, candidate)
        return SameFact(same_fact=verdict.relation == "redundancy", reason=verdict.reason)
