"""Extraction by the extraction model: the last user message (and the assistant's before it) -> candidates.

The model finds the spans worth keeping and says what each is; the memory's text is the span rewritten in
the third person (:mod:`rewrite`). A way to answer is kept as a preference of the user's (memlane's
procedural memories are titled procedures, written through their own API).
"""

from __future__ import annotations

from collections.abc import Sequence

from memlane.model.candidate import MAX_CANDIDATES, Candidate, ChatMessage, Extraction
from memlane.model.category import title_case
from memlane.model.enums import MemoryType
from memlane.providers.llm.learned.extraction_model import ExtractionModel
from memlane.providers.llm.learned.rewrite import known_names, summary_of
from memlane.storage.keywords import query_words

TYPES = {
    "fact": MemoryType.SEMANTIC,
    "event": MemoryType.EPISODIC,
    "answer_style": MemoryType.SEMANTIC,
    "other_person": MemoryType.SEMANTIC,
}


def last_exchange(messages: Sequence[ChatMessage]) -> tuple[str, str]:
    """(the assistant's message just before the last user message, the last user message)."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "user":
            before = messages[index - 1] if index else None
            return (before.content if before and before.role == "assistant" else ""), messages[index].content
    return "", ""


def extract_with(
    model: ExtractionModel, messages: Sequence[ChatMessage], existing: Sequence[str] = ()
) -> Extraction:
    """``existing``: the user's memories, for the names they give people ("Luna turned 4")."""
    assistant, message = last_exchange(messages)
    if not message.strip():
        return Extraction(should_create=False, reason="no user message")
    candidates: list[Candidate] = []
    names = known_names(existing)
    for span in model.spans([assistant], [message])[0]:
        summary = summary_of(message[span.start : span.end], span.kind, message[: span.start], names)
        if summary and all(c.summary != summary for c in candidates):
            category = "Preferences" if span.kind == "answer_style" else title_case(span.category)
            candidates.append(
                Candidate(
                    summary=summary, type=TYPES[span.kind], category=category, importance=span.importance
                )
            )
    if not candidates:
        return Extraction(should_create=False, reason="the extraction model found nothing to keep")
    return Extraction(should_create=True, candidates=candidates[:MAX_CANDIDATES])


def _content_words(summary: str) -> set[str]:
    return set(query_words(summary, limit=64)) - {"user", "s"}


def combined(rules: Extraction, learned: Extraction) -> Extraction:
    """The rules' candidates, then each of the model's that shares no content word with any of them.

    The rules' rewrites are exact and carry slot keys ("I moved to York" -> "User lives in York." keyed
    profile:residence:city, which makes it replace the old city); the model finds what they miss. A
    model candidate about the same thing as a rules one ("User moved to York last weekend.") is left out.
    Chosen on the development scenarios (chat mode, docs/learned-extraction.md): the model alone, or the
    model's candidates added unless nearly the same words, passed fewer.
    """
    kept = list(rules.candidates) if rules.should_create else []
    taken = [_content_words(c.summary) for c in kept]
    for candidate in learned.candidates if learned.should_create else []:
        words = _content_words(candidate.summary)
        if all(not words & other for other in taken):
            kept.append(candidate)
            taken.append(words)
    if not kept:
        return rules
    return Extraction(should_create=True, candidates=kept[:MAX_CANDIDATES])
