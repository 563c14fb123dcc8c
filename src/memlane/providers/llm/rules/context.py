"""Who earlier turns and stored memories named: ``"my dog Luna"`` lets a later ``"Luna turned 4"`` resolve.

Only the user's own turns and the stored summaries are read; assistant turns never define entities.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from memlane.providers.llm.rules.facts import Subject
from memlane.providers.llm.rules.lexicon import NOT_NAMES
from memlane.providers.llm.rules.subject import pet_or_relation

_NAME = r"([A-Z][\w'-]+)"
_MENTIONS = (
    # my dog Luna / User's sister Marta / our cat, Miso
    re.compile(r"\b(?:[Mm]y|[Oo]ur|User's)\s+((?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*),?\s+" + _NAME),
    # a dog named Luna / cat called Miso
    re.compile(r"\b((?:[a-z][\w-]*\s+)?[a-z][\w-]*?)(?:'s)?\s+(?:is\s+|was\s+)?(?:named|called)\s+" + _NAME),
    # my dog's name is Luna
    re.compile(r"\b(?:[Mm]y|User's)\s+((?:[a-z][\w-]*\s+)?[a-z][\w-]*)'s name is\s+" + _NAME),
)
_NAME_IS_MY = re.compile(_NAME + r" is (?:my|User's) ((?:[a-z][\w-]*\s+)?[a-z][\w-]*)")


@dataclass
class Registry:
    """Names seen so far -> who they are; ``last`` is the most recent one mentioned."""

    known: dict[str, Subject] = field(default_factory=dict)
    last: Subject | None = None

    def add(self, noun: str, name: str) -> None:
        name = name.removesuffix("'s")  # "User's daughter Elsie's party": Elsie
        found = pet_or_relation(noun) or pet_or_relation(noun.split()[-1])
        if found is None or name.lower() in NOT_NAMES:
            return
        subject = Subject(found[0], found[1], name, False)
        self.known[name.lower()] = subject
        self.last = subject


def build(texts: Iterable[str]) -> Registry:
    """Scan ``texts`` oldest first; later mentions win."""
    registry = Registry()
    for text in texts:
        hits: list[tuple[int, str, str]] = []
        for pattern in _MENTIONS:
            hits += [(m.start(), m.group(1), m.group(2)) for m in pattern.finditer(text)]
        hits += [(m.start(), m.group(2), m.group(1)) for m in _NAME_IS_MY.finditer(text)]
        for _, noun, name in sorted(hits):
            registry.add(noun, name)
    return registry
