"""The LLM contract: the memory tasks formation asks of a model, each with a validated output.

``rules`` answers them offline with heuristics; ``openai`` and ``bedrock`` answer them with a model
through :meth:`StructuredLLM.generate` (strict JSON validated against a pydantic model, one retry on
malformed output, then :class:`ProviderError`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TypeVar

from pydantic import BaseModel

from memlane.model.candidate import ChatMessage, ConflictVerdict, Episode, Extraction, Insights, SameFact
from memlane.model.session import SessionDigest

T = TypeVar("T", bound=BaseModel)


class MemoryLLM(ABC):
    name: str
    # A model behind the network (it can be slow or down): the hot path of a turn does not wait for it,
    # the background worker extracts the turn (engine/formation_api.py).
    remote: bool = False

    @abstractmethod
    def extract(self, messages: Sequence[ChatMessage], existing: Sequence[str] = ()) -> Extraction:
        """Decide ``should_create`` from the last user turn(s) and propose up to 5 candidates."""

    @abstractmethod
    def same_fact(self, existing: str, candidate: str, category: str | None = None) -> SameFact:
        """For a similarity in the borderline band: do both texts state the same fact?"""

    @abstractmethod
    def classify_conflict(self, existing: str, candidate: str) -> ConflictVerdict:
        """How the candidate relates to the existing memory: contradiction, refinement, redundancy, new
        (both hold) or unsure (the similarity band decides)."""

    def judge(self, candidate: str, existing: Sequence[str]) -> list[ConflictVerdict]:
        """:meth:`classify_conflict` of the candidate against each stored memory, in order. A model
        answers all of them in one call; the default asks one pair at a time."""
        return [self.classify_conflict(e, candidate) for e in existing]

    def implied_terms(self, candidate: str) -> list[str]:
        """Words of stored memories the candidate may retire though they are not close to it in meaning
        ("is teetotal now" -> beer, wine, ...: "has a cold beer after every shift"). Formation judges the
        memories a keyword search finds for them beside the nearest neighbours. The default is none: a
        model judge is asked about the neighbours only."""
        return []

    def lookup_terms(self, turn: str) -> list[str]:
        """Words to search stored memories by besides the turn's own, so the extractor sees what the turn
        updates ("nan" -> "grandmother", as summaries write it). The default is none."""
        return []

    def insights(self, activity: Sequence[str], new_facts: Sequence[str], snippet: str = "") -> Insights:
        """1-3 theory-of-mind insights about the user from recent events, new facts and a
        conversation snippet. A provider that cannot infer them (the offline rules) proposes none."""
        return Insights()

    def summarize_episode(self, messages: Sequence[ChatMessage]) -> Episode:
        """What a finished turn (user, assistant and tool messages) amounts to as an episode:
        topic and approach when it had an outcome, else ``should_create`` false. The default is
        extractive: this provider's episodic extractions and the turn's tool results."""
        from memlane.providers.llm.episode_rules import summarize

        return summarize(self.extract(messages), messages)

    def summarize_session(self, messages: Sequence[ChatMessage]) -> SessionDigest | None:
        """A closed group-chat session's summary payload. None: this provider does not write
        one (the offline rules), and the caller extracts it from the session's most central messages."""
        return None
