"""The :class:`MemoryLLM` made of rules: deterministic, offline, fast (well under a millisecond a message)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memlane.model.candidate import ChatMessage, ConflictVerdict, Extraction, SameFact
from memlane.providers.llm.base import MemoryLLM
from memlane.providers.llm.rules import relocation, specification
from memlane.providers.llm.rules.conflict import classify
from memlane.providers.llm.rules.extract import extract
from memlane.providers.llm.rules.giving_up import implied_terms
from memlane.providers.llm.rules.lexicon import family_terms
from memlane.providers.llm.rules.same_fact import same_fact


class RulesLLM(MemoryLLM):
    """Heuristic answers to the three memory tasks. Accepts (and ignores) the options other LLMs take."""

    name = "rules"

    def __init__(self, **_options: Any) -> None:
        pass

    def extract(self, messages: Sequence[ChatMessage], existing: Sequence[str] = ()) -> Extraction:
        # a failure propagates: formation keeps the turn as a job (retried, then parked), never "no memory"
        return extract(messages, existing)

    def same_fact(self, existing: str, candidate: str, category: str | None = None) -> SameFact:
        return same_fact(existing, candidate, category)

    def classify_conflict(self, existing: str, candidate: str) -> ConflictVerdict:
        return classify(existing, candidate)

    def implied_terms(self, candidate: str) -> list[str]:
        return implied_terms(candidate)

    def lookup_terms(self, turn: str) -> list[str]:
        return [*family_terms(turn), *specification.lookup_terms(turn), *relocation.lookup_terms(turn)]
