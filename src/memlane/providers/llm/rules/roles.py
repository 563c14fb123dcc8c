"""Who else takes part in a statement, and whether it tells of one past occasion.

"User went hiking with Sam" and "User went hiking with Ana" are two hikes; "bought a gift for mom" and
"for dad" are two gifts; "gave Kofi a book" and "gave Tomas a book" two presents. Neither is a paraphrase
of the other, nor a correction: both hold. The verbs and past forms are data (``frames.yaml``).
"""

from __future__ import annotations

import re
from functools import lru_cache

from memlane.providers.llm.rules.frame_data import plain
from memlane.providers.llm.rules.lexicon import RELATION_ALIASES, RELATIONS
from memlane.providers.llm.rules.lexicon_world import TECH_SLOTS
from memlane.providers.llm.rules.render import is_past

_RELATION = "|".join(
    sorted((re.escape(w) for w in set(RELATIONS) | set(RELATION_ALIASES)), key=len, reverse=True)
)
_NAME = r"(?-i:[A-Z][\w'-]+)"
_OWNER = r"(?:(?:my|their|his|her|our|the user's|user's|a|an)\s+)?"  # not "the": "visited the Louvre"
_PERSON = rf"(?P<p>(?:{_RELATION})\b(?:\s+{_NAME})?|{_NAME}(?:\s+{_NAME})?)"


def _verbs(name: str) -> str:
    return "|".join(sorted(plain(name), key=len, reverse=True))


_ROLES = (
    re.compile(rf"\bwith\s+{_OWNER}{_PERSON}", re.I),  # companions
    re.compile(rf"\b(?:{_verbs('giving')})\b.*?\b(?:for|to)\s+{_OWNER}{_PERSON}", re.I),  # "a gift for mom"
    re.compile(rf"\bfor\s+{_OWNER}(?P<p>(?:{_RELATION})\b(?:\s+{_NAME})?)", re.I),  # "a card for grandma"
    re.compile(
        rf"\b(?:{_verbs('giving')})\s+{_OWNER}{_PERSON}\s+(?:a|an|the|some|their|his|her|my|\d+|two|three)\b",
        re.I,
    ),  # "gave Kofi a book"
    re.compile(
        rf"(?<!\bis )(?<!\bwas )(?<!\bare )\b(?:{_verbs('meeting')})\s+{_OWNER}{_PERSON}", re.I
    ),  # "called Ana",
    # not "is called Ana" (a name)
)
_ADVERBS = r"(?:(?:just|also|finally|recently|then|once|first)\s+)*"
_AFTER_USER = re.compile(rf"\buser\s+{_ADVERBS}(?P<verb>[a-z]+)\b", re.I)
_AFTER_NAME = re.compile(rf"^{_NAME}\s+{_ADVERBS}(?P<verb>[a-z]+)\b")  # "Theo turned six"


@lru_cache(maxsize=4096)
def people(text: str) -> frozenset[str]:
    """The companions, recipients and people met in ``text``: ``{"sam"}``, ``{"mother"}``."""
    found = set()
    for pattern in _ROLES:
        for m in pattern.finditer(text):
            who = m.group("p").lower().removesuffix("'s")
            if who.startswith("user") or who.split()[0] in TECH_SLOTS:
                continue
            found.add(RELATION_ALIASES.get(who, who))
    return frozenset(found)


def past_event(text: str) -> bool:
    """The statement is led by a past-tense verb ("User went ...", "User hosted ..."): one occasion."""
    m = _AFTER_USER.search(text) or _AFTER_NAME.match(text.strip())
    if m is None:
        return False
    verb = m.group("verb").lower()
    # after "User" a bare "read" is past (the present is "reads"); "used" is "used to", no occasion
    return (is_past(verb) or verb == "read") and verb != "used"


def other_people(existing: str, candidate: str) -> frozenset[str]:
    """The candidate's people when both statements name people and share none ("with Sam" / "with Ana")."""
    old, new = people(existing), people(candidate)
    return new if old and new and not old & new else frozenset()
