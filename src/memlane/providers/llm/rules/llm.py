"""The :class:`MemoryLLM` made of rules: deterministic, offline, fast (well under a millisecond a message)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from memlane.model.candidate import ChatMessage, ConflictVerdict, Extraction, SameFact
from memlane.providers.llm.base import MemoryLLM
from memlane.providers.llm.rules.conflict import classify
from memlane.providers.llm.rules.extract import extract
from memlane.providers.llm.rules.same_fact import same_fact

log = logging.getLogger(__name__)


class RulesLLM(MemoryLLM):
    """Heuristic answers to the three memory tasks. Accepts (and ignores) the options other LLMs take."""

    name = "rules"

    def __init__(self, **_options: Any) -> None:
        pass

    def extract(self, messages: Sequence[ChatMessage], existing: Sequence[str] = ()) -> Extraction:
        try:
            return extract(messages, existing)
        except Exception as exc:  # noqa: BLE001 - odd input must not stop a chat turn; logged loudly
            log.exception("rules extraction failed; no memory proposed for this turn")
            return Extraction(
                should_create=False, reason=f"rules could not parse the message ({type(exc).__name__})"
            )

    def same_fact(self, existing: str, candidate: str, category: str | None = None) -> SameFact:
        return same_fact(existing, candidate, category)

    def classify_conflict(self, existing: str, candidate: str) -> ConflictVerdict:
        return classify(existing, candidate)
