"""The decision model in front of a model judge: a confident verdict skips the LLM call.

With ``MEMLANE_LLM_FIRST_STAGE`` set (a probability, e.g. 0.98), a provider that calls a model for its
same-fact, conflict and judge answers (``openai``, ``bedrock``) asks the bundled decision model first. A
stored memory whose verdict is at least that probable is decided by it; the others go to the LLM, all in
one call as before. When every pair is decided, no call is made. Extraction is always the LLM's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np

from memlane.model.candidate import ConflictVerdict
from memlane.providers.llm.learned.decision_model import RELATION, DecisionModel

Judge = Callable[[str, Sequence[str]], list[ConflictVerdict]]


class FirstStage:
    """Decides the pairs it is sure of; counts the pairs and calls it answered and the ones it passed on."""

    def __init__(self, model: DecisionModel, confident: float) -> None:
        self.model = model
        self.confident = confident
        self._lock = threading.Lock()
        self.decided_pairs = 0  # pairs answered here
        self.asked_pairs = 0  # pairs passed to the LLM
        self.saved_calls = 0  # judge calls the LLM was not asked, every pair being decided here
        self.calls = 0  # judge calls the LLM was asked

    def verdict(self, probs: np.ndarray) -> ConflictVerdict | None:
        best = int(np.argmax(probs))
        if probs[best] < self.confident:
            return None
        reason = "decision model (first stage): " + ", ".join(
            f"{name} {p:.2f}" for name, p in zip(self.model.card.labels, probs, strict=True)
        )
        return ConflictVerdict(relation=RELATION[self.model.card.labels[best]], reason=reason)

    def _count(self, decided: int, asked: int) -> None:
        with self._lock:
            self.decided_pairs += decided
            self.asked_pairs += asked
            self.calls += asked > 0
            self.saved_calls += asked == 0

    def sure(self, existing: str, candidate: str) -> ConflictVerdict | None:
        """The model's verdict on one pair when it is confident; None: ask the LLM."""
        found = self.verdict(self.model.probabilities([(existing, candidate)])[0])
        self._count(found is not None, found is None)
        return found

    def judge(self, candidate: str, existing: Sequence[str], ask: Judge) -> list[ConflictVerdict]:
        """The verdicts for ``existing``: the model's where it is confident, ``ask``'s (one call) for the rest."""
        if not existing:
            return []
        found = [self.verdict(p) for p in self.model.probabilities([(e, candidate) for e in existing])]
        open_ = [i for i, v in enumerate(found) if v is None]
        self._count(len(existing) - len(open_), len(open_))
        if open_:
            for i, v in zip(open_, ask(candidate, [existing[i] for i in open_]), strict=True):
                found[i] = v
        return [v for v in found if v is not None]
