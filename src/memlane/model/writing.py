"""Writing constraints, checked the same way whichever extractor wrote a memory.

A semantic memory is a complete, self-contained, third-person statement with no pronouns, 1-2
sentences, at most 280 characters; an episodic one is in the past tense, 1-2 sentences, about what was
discussed, decided or done. :func:`problems` names what a summary breaks (``benchmarks/writing_format.py``
measures how many extracted candidates pass on the first try); the validator in
:func:`memlane.providers.llm.structured.enforce_writing_constraints` trims what can be trimmed (length,
a third sentence) and drops what is empty or cannot be cut.
"""

from __future__ import annotations

import re

from memlane.model.enums import MemoryType

MAX_SENTENCES = 2
# a sentence ends at . ! ? (and a closing quote or bracket) before a space and a capital or digit
SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?(?=\s+[A-Z0-9\"'(])")
_FIRST_SECOND = re.compile(
    r"\b(?:I|I'm|I've|I'd|I'll|me|my|mine|myself|we|us|our|ours|you|your|yours)\b"
    r"|\b(?:assistant)\b",
    re.IGNORECASE,
)
_THIRD = re.compile(r"\b(?:he|she|him|her|his|hers|they|them|their|theirs)\b", re.IGNORECASE)
_PAST = re.compile(
    r"\b(?:\w{2,}ed|was|were|had|did|went|made|took|got|gave|told|said|met|left|bought|began|became|came|"
    r"chose|decided|found|felt|kept|knew|lost|paid|ran|sold|sent|spent|saw|thought|won|wrote|drove|ate|"
    r"flew|grew|held|led|read|brought|caught|taught|fought|built|set|put|cut|quit|hit|let)\b",
    re.IGNORECASE,
)


def sentences(text: str) -> list[str]:
    """``text`` split into sentences (an abbreviation such as "Dr. Smith" splits too: it errs on more)."""
    parts, start = [], 0
    for m in SENTENCE_END.finditer(text):
        parts.append(text[start : m.end()].strip())
        start = m.end()
    tail = text[start:].strip()
    return [p for p in [*parts, tail] if p]


def problems(summary: str, mtype: MemoryType, max_chars: int = 280) -> list[str]:
    """The constraints ``summary`` breaks: ``empty``, ``too_long``, ``too_many_sentences``,
    ``first_or_second_person``, ``pronoun`` (semantic), ``not_past_tense`` (episodic)."""
    text = " ".join(summary.split())
    if not text:
        return ["empty"]
    found = []
    if len(text) > max_chars:
        found.append("too_long")
    if len(sentences(text)) > MAX_SENTENCES:
        found.append("too_many_sentences")
    if _FIRST_SECOND.search(text):
        found.append("first_or_second_person")
    if mtype is MemoryType.SEMANTIC and _THIRD.search(text):
        found.append("pronoun")
    if mtype is MemoryType.EPISODIC and not _PAST.search(text):
        found.append("not_past_tense")
    return found
