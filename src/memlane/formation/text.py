"""Text normalisation for exact-match redundancy checks, and the values a statement names."""

from __future__ import annotations

import re

from memlane.providers.llm.rules.lexicon_world import NUMBER_WORDS

_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)
_TOKEN = re.compile(r"[\w'-]+", re.UNICODE)


def normalise(text: str) -> str:
    """Lower case, punctuation and extra spaces removed: "User likes  tea!" == "user likes tea"."""
    return " ".join(_NON_WORD.sub(" ", text.lower()).split())


def values(text: str) -> frozenset[str]:
    """The numbers (digits or words) and names a statement holds: "User keeps six hens" -> {"6"}."""
    tokens = _TOKEN.findall(text)
    found = {t.lower() for t in tokens[1:] if t[:1].isupper() and not t.startswith("User")}
    found |= {str(NUMBER_WORDS[t.lower()]) for t in tokens if t.lower() in NUMBER_WORDS}
    return frozenset(found | {t for t in tokens if t.isdigit()})


def says_more(existing: str, candidate: str) -> bool:
    """The candidate keeps every number and name of the stored statement and adds one: the same fact
    told more precisely ("keeps chickens" / "keeps six hens"): a merge keeps the candidate's words."""
    old, new = values(existing), values(candidate)
    return old < new
