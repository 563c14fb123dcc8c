"""Specifications told against an earlier turn: "I do martial arts a few times a week", then "to be
specific it's Brazilian jiu-jitsu". The earlier fact that names a general word (a ``kinds`` row of
``frames.yaml``) of which the specified thing is a kind is rebuilt with it ("I do Brazilian jiu-jitsu a
few times a week"), so the judge sees a refinement of the fact, not a sentence about "it".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from memlane.providers.llm.rules.facts import Fact, Subject
from memlane.providers.llm.rules.render import summary_to_first_person

Finder = Callable[[str], list[tuple[Fact, Subject]]]

_SPECIFIED = re.compile(
    r"^\W*(?:(?:ok|well|so|oh|and)\W+)*(?:to be (?:more )?(?:specific|precise|exact)|more specifically|specifically|"
    r"more precisely|in particular|namely)\W+(?:it is|it's|that is|that's|i mean)\s+"
    r"(?P<what>[\w'£$€ -]+?)(?=\s*(?:[,.;!?]|$))",
    re.IGNORECASE,
)
_LOOKBACK = 3


def _kind(what: str) -> str | None:
    """The general word ``what`` is a kind of: its words from the last, listed or near in the model."""
    # imported here: extract -> kind_of -> compare -> extract would be a cycle at import time
    from memlane.providers.llm.rules.kind_of import MEMBERS, kind_of

    words = what.lower().split()
    for n in (3, 2, 1):
        phrase = " ".join(words[-n:])
        if phrase in MEMBERS:
            return MEMBERS[phrase]
    return kind_of(words[-1]) if words else None


_PLACING = re.compile(r"^.*\b(?:into|in|on|at|with|for)\s+(?=(?:the|a|an|my)\s)", re.IGNORECASE)
_NOT_HEADS = frozenset(["one", "ones", "thing", "things", "stuff", "kind", "type", "sort", "place", "time", "bit"])


def _thing(what: str) -> str:
    """The thing a specification names, after what it says of amounts or places ("£300 a month into the
    Vanguard All Cap fund" -> "the Vanguard All Cap fund")."""
    return _PLACING.sub("", what.strip())


def _head(what: str) -> str | None:
    """The head noun of the thing, for a general fact that names it without the specifics ("fund")."""
    words = _thing(what).lower().split()
    if len(words) < 2 or len(words[-1]) < 4 or words[-1] in _NOT_HEADS:
        return None
    return words[-1].removesuffix("s")


def specify(text: str, earlier_user_turns: Sequence[str], find: Finder,
            existing: Sequence[str] = ()) -> list[tuple[Fact, Subject]]:
    """The most recent earlier fact (of this conversation, else of the stored memories related to the
    turn) with the general word that ``text`` specifies, rebuilt with the specific thing; empty when
    ``text`` specifies nothing or no earlier fact has the word."""
    m = _SPECIFIED.match(text.strip())
    if not m:
        return []
    what = re.sub(r"^(?:the|a|an)\s+", "", _thing(m.group("what")), flags=re.IGNORECASE)
    if (kind := _kind(m.group("what"))) is not None:
        general = re.compile(rf"\b(?:(?:an?|some|the) (?:[\w-]+ )?)?{kind.replace('_', ' ')}s?\b", re.IGNORECASE)
    elif (kind := _head(m.group("what"))) is not None:  # the shared head noun: "index funds" / "the All Cap fund"
        general = re.compile(rf"\b(?:(?:an?|some|the|my) )?(?:[\w-]+ )?{re.escape(kind)}s?\b", re.IGNORECASE)
    else:
        return []
    stored = [summary_to_first_person(s) for s in existing if general.search(s)]
    for turn in [*stored, *earlier_user_turns[-_LOOKBACK:]][::-1]:
        for fact, subject in reversed(find(turn)):
            found = general.search(fact.text)
            if found is None:
                continue
            head = found.group(0).split()[0].lower()
            article = "the " if head in ("a", "an", "the", "some") and kind == "instrument" else ""
            rebuilt = fact.text[:found.start()] + article + what + fact.text[found.end():]
            return [(replace(fact, value=what, text=rebuilt, tags=[*fact.tags, "specification"],
                             entities=[what, *fact.entities]), subject)]
    return []


def lookup_terms(text: str) -> list[str]:
    """The general word a specification narrows ("martial arts" for "to be specific it's jiu-jitsu"), so the
    hot path finds the stored fact it specifies."""
    m = _SPECIFIED.match(text.strip())
    kind = (_kind(m.group("what")) or _head(m.group("what"))) if m else None
    return [kind.replace("_", " "), kind.replace("_", " ") + "s"] if kind else []
