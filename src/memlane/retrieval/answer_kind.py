"""What kind of answer a question asks for, and whether a memory holds one.

"What is the user's job?" asks for an occupation: "User is a marine biologist." holds one, "User
relocated to Halifax." (newer, so ahead on recency) does not. A question of a known kind ranks a
third-person memory that holds no answer of that kind ``MEMORY_ANSWER_KIND_PENALTY`` lower
(:func:`kind_penalty`). The kinds are few and general: an occupation, where someone lives, an age, a pet, a decision ("What did I
decide about the flat?": a memory telling no decision, choice or cancellation ranks lower). A
question of no known kind, and a memory in another form (a conversation turn, an episode), are left
as they are; when no memory holds an answer of the kind, all lose the same and the order stands.

Occupation words and pet species are the extractor's lexicon (``rules/lexicon.py``: job words and their
suffixes, species and breeds).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from memlane.providers.llm.rules.lexicon import (
    CAT_BREEDS,
    DOG_BREEDS,
    NOT_OCCUPATIONS,
    OCCUPATION_SUFFIXES,
    OCCUPATIONS,
    PET_SPECIES,
)
from memlane.providers.llm.rules.lexicon_world import NUMBER_WORDS
from memlane.retrieval.subject import memory_about, one_sentence

_I = re.IGNORECASE
_NUMBER = rf"(?:\d+|{'|'.join(sorted(NUMBER_WORDS, key=len, reverse=True))})"
_WORKING = re.compile(
    r"\b(?:work(?:s|ed|ing)? (?!out\b)(?:[\w-]+ ){0,3}?(?:as|at|for|in|on)|(?:night|day|late|early|double) shifts?|employed|self-employed|unemployed|freelanc\w*|retired|job|career|"
    r"profession|occupation|teach(?:es|ing)?|trained as|qualified as|runs? (?:a|an|their|his|her) (?:own )?"
    r"(?:business|company|shop|practice|firm|clinic|bakery|cafe|restaurant|studio)|promoted)\b",
    _I,
)
_HOME = re.compile(r"\b(?:live[sd]?|living|moved|relocat\w+|based|resid\w+|home|settled|grew up|from)\b", _I)
_AGE = re.compile(
    rf"\b(?:{_NUMBER}(?:[- ]years?[- ]old| yo\b)|aged? {_NUMBER}|turn(?:s|ed)? {_NUMBER}|born|birthday|"
    rf"{_NUMBER}(?:st|nd|rd|th) birthday)\b",
    _I,
)

_DECISION = re.compile(
    r"\b(?:decid\w*|decision|chose|chosen|choos\w+|choice|opt(?:s|ed|ing)? for|settl(?:ed|ing) on|pick(?:s|ed|ing)|"
    r"go(?:es|ing)? with|went with|gone with|cancel\w*|unsubscrib\w*|said (?:yes|no) to|accept\w*|declin\w*|"
    r"reject\w*|turn(?:s|ed|ing)? (?:down|\w+(?: \w+)? down)|switch\w*|sign(?:ed|ing) up|book(?:ed|ing)|"
    r"made up (?:their|his|her) mind|(?:is|are) (?:keeping|selling|taking|buying|staying|moving|leaving))\b",
    _I,
)


def _holds_occupation(summary: str) -> bool:
    if _WORKING.search(summary):
        return True
    words = re.findall(r"[a-z][a-z-]*", summary.lower())
    return any(
        (w in OCCUPATIONS or w.rstrip("s") in OCCUPATIONS or w.endswith(OCCUPATION_SUFFIXES))
        and w not in NOT_OCCUPATIONS
        for w in words
    )


_ANIMALS = frozenset({"pet", *PET_SPECIES, *DOG_BREEDS, *CAT_BREEDS})


def _holds_pet(summary: str) -> bool:
    words = re.findall(r"[a-z][a-z-]*", summary.lower())
    pairs = {f"{a} {b}" for a, b in zip(words, words[1:], strict=False)}
    return any(w in _ANIMALS or w.rstrip("s") in _ANIMALS for w in words) or bool(pairs & _ANIMALS)


# kind: (the question asks for it, the memory holds one)
KINDS: dict[str, tuple[re.Pattern[str], Callable[[str], bool]]] = {
    "decision": (
        re.compile(
            r"\bwhat (?:did|have|had) (?:I|we|the user)(?: \w+){0,2}? (?:decided?|choose|chosen|choosing|pick(?:ed|ing)?|"
            r"settle(?:d)? on|go(?:ne)? with|opt(?:ed)? for)\b|\b(?:my|our|the user's) (?:decision|choice)\b",
            _I,
        ),
        lambda s: _DECISION.search(s) is not None,
    ),
    "occupation": (
        re.compile(
            r"\b(?:job|occupation|profession|career|(?:do|does|did) for (?:a )?(?:living|work)|work as|"
            r"what (?:do|does|did) (?:I|the user|my \w+|the user's \w+|they|he|she) do)\b",
            _I,
        ),
        _holds_occupation,
    ),
    "home": (
        re.compile(
            r"\bwhere (?:do|does|did|am|is|are) (?:I|we|the user|my \w+|the user's \w+|they|he|she)(?: now| currently)? "
            r"(?:live|living|based|reside|stay|staying)\b|\b(?:home ?town|which city|what city)\b",
            _I,
        ),
        lambda s: _HOME.search(s) is not None,
    ),
    "age": (
        re.compile(r"\bhow old\b|\bwhat age\b|\b(?:my|the user's|their|his|her) age\b", _I),
        lambda s: _AGE.search(s) is not None,
    ),
    "pet": (re.compile(r"\bpets?\b", _I), _holds_pet),
}


@lru_cache(maxsize=1024)
def asked_kind(query: str) -> str | None:
    """The kind of answer ``query`` asks for, or None (also for a message of several sentences)."""
    if not one_sentence(query):
        return None
    return next((kind for kind, (asks, _) in KINDS.items() if asks.search(query)), None)


def kind_penalty(query: str, summary: str, weight: float) -> float:
    """``weight`` when the question asks for a kind of answer a third-person memory does not hold."""
    kind = asked_kind(query) if weight > 0 else None
    if kind is None or memory_about(summary) is None:
        return 0.0
    return 0.0 if KINDS[kind][1](summary) else weight
