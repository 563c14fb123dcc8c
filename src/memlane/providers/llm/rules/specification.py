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
    r"(?P<what>[\w'£$€ -]+?)(?:\s+(?:that )?(?:i am|i'm) into|\s+(?:that )?i (?:do|play|like|love|listen to))?(?=\s*(?:[,.;!?]|$))"
    # the marker last: "well, fly fishing for trout, to be specific"
    r"|^\W*(?:(?:ok|well|so|oh|and)\W+)*(?P<last>[\w'£$€ -]+?),?\s+(?:to be (?:more )?(?:specific|precise|exact)|"
    r"specifically|more specifically|in particular)\W*$",
    re.IGNORECASE,
)
# what follows the thing: "fly fishing for trout" names fly fishing
# (an amount first says where it goes instead: "£300 a month into the Vanguard fund", _PLACING)
_COMPLEMENT = re.compile(r"\s+(?:for|with|in|on|at|from|near|around)\s+.*$", re.IGNORECASE)
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
_NOT_HEADS = frozenset(
    ["one", "ones", "thing", "things", "stuff", "kind", "type", "sort", "place", "time", "bit"]
)


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


def _said(text: str) -> str | None:
    """The specific thing a specification names, without what follows it ("fly fishing for trout")."""
    m = _SPECIFIED.match(text.strip())
    if not m:
        return None
    what = m.group("what") or m.group("last")
    thing = _COMPLEMENT.sub("", what)
    return what if re.match(r"[\d£$€]", what) or not thing.strip() else thing


def specify(
    text: str, earlier_user_turns: Sequence[str], find: Finder, existing: Sequence[str] = ()
) -> list[tuple[Fact, Subject]]:
    """The most recent earlier fact (of this conversation, else of the stored memories related to the
    turn) with the general word that ``text`` specifies, rebuilt with the specific thing; empty when
    ``text`` specifies nothing or no earlier fact has the word."""
    said = _said(text)
    if said is None:
        return []
    what = re.sub(r"^(?:the|a|an)\s+", "", _thing(said), flags=re.IGNORECASE)
    generals: list[tuple[str, re.Pattern[str]]] = []
    if (kind := _kind(said)) is not None:
        generals.append(
            (kind, re.compile(rf"\b(?:(?:an?|some|the) (?:[\w-]+ )?)?{kind.replace('_', ' ')}s?\b", re.I))
        )
    if (head := _head(said)) is not None:  # the shared head noun: "index funds" / "the All Cap fund"
        generals.append(
            (
                head,
                re.compile(
                    rf"\b(?:(?:an?|some|the|my) )?(?:(?!(?:of|into|in|on|to|for|at|with)\b)[\w-]+ )?{re.escape(head)}s?\b",
                    re.I,
                ),
            )
        )
    for (
        kind,
        general,
    ) in generals:  # the kind the model places it in, else the head noun ("fly fishing": fishing)
        if rebuilt := _rebuilt(what, kind, general, earlier_user_turns, find, existing):
            return rebuilt
    return []


def _rebuilt(
    what: str,
    kind: str,
    general: re.Pattern[str],
    earlier_user_turns: Sequence[str],
    find: Finder,
    existing: Sequence[str],
) -> list[tuple[Fact, Subject]]:
    stored = [summary_to_first_person(s) for s in existing if general.search(s)]
    for turn in [*stored, *earlier_user_turns[-_LOOKBACK:]][::-1]:
        for fact, subject in reversed(find(turn)):
            found = general.search(fact.text)
            if found is None:
                continue
            head = found.group(0).split()[0].lower()
            article = "the " if head in ("a", "an", "the", "some") and kind == "instrument" else ""
            rebuilt = fact.text[: found.start()] + article + what + fact.text[found.end() :]
            return [
                (
                    replace(
                        fact,
                        value=what,
                        text=rebuilt,
                        tags=[*fact.tags, "specification"],
                        entities=[what, *fact.entities],
                    ),
                    subject,
                )
            ]
    return []


def lookup_terms(text: str) -> list[str]:
    """The general word a specification narrows ("martial arts" for "to be specific it's jiu-jitsu"), so the
    hot path finds the stored fact it specifies."""
    said = _said(text)
    kinds = [k for k in (_kind(said), _head(said)) if k] if said else []
    return [term for k in kinds for term in (k.replace("_", " "), k.replace("_", " ") + "s")]
