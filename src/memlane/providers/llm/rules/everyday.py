"""Everyday slots the frames compare by what the world is like, not by shared words (``frames.py`` reads them).

- **Providers and teams** held one at a time: "main bank is Barclays" / "moved my main account to Monzo";
  "Octopus Energy" is an energy supplier by its name's last word; "supports River Plate" / "a Racing Club fan".
- **A trip made another way**: "takes the train to work" / "switched to driving to work"; "daily commute is by
  train" says the first again.
- **Liking turned** to its opposite, of one named thing: "enjoys watching Formula 1" / "finds Formula 1 boring now".
- **A tool for work** ("has to use 1Password on the work laptop") does not replace the user's own ("uses Bitwarden").
- **A name opening a statement** about the user: "Azul has become the user's favourite board game".
- **A job at another place, said as a change**: "a part-time job stacking shelves at Aldi" / "part-time job is
  now at a garden centre".
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memlane.providers.llm.rules.compare import content_words
from memlane.providers.llm.rules.frame_data import DATA, plain, stems
from memlane.providers.llm.rules.lexicon_world import provider_kind

if TYPE_CHECKING:
    from memlane.providers.llm.rules.frames import Frame

PROVIDERS = {k: frozenset(w.replace("_", " ") for w in v.split()) for k, v in DATA["providers"].items()}
HELD_ONE_AT_A_TIME = {f"provider:{k}" for k in PROVIDERS} | {
    "team"
}  # kinds the frames add to their tool slots
_SUPPORTS = frozenset(["supports", "supporter", "support", "supporting"])
_TEAM_WORDS = frozenset(
    [
        "club",
        "fc",
        "united",
        "city",
        "rovers",
        "athletic",
        "athletico",
        "atletico",
        "wanderers",
        "juniors",
        "rangers",
        "albion",
        "county",
        "town",
        "sporting",
        "real",
        "inter",
    ]
)
_LEADS = re.compile(r"^([A-Z][a-z][\w'-]*) (?:has|is|was|became|have|are)\b(?=.*\bthe user)")
_LIKING, _DISLIKING = plain("liking"), plain("disliking")
_FEELING_WORDS = stems(f"{DATA['liking']} {DATA['disliking']} find finds found watch watches watching back")
TRAVEL: dict[str, frozenset[str]] = {way: frozenset(ws.split()) for way, ws in DATA["travel"].items()}
_DESTINATION = re.compile(
    r"\bto (?:work|the office|school|uni|university|college|campus|class|the gym)\b", re.IGNORECASE
)
_COMMUTE = frozenset(["commute", "commutes", "commuting"])
_SCHOOL_RUN = re.compile(r"\bschool runs?\b", re.IGNORECASE)
_SOMETIMES = re.compile(r"\b(?:sometimes|occasionally|some days|when it rains|if it rains)\b", re.IGNORECASE)
# a tool used for work, which the employer may choose: it does not replace the user's own
_FOR_WORK = frozenset(
    [
        "work",
        "job",
        "team",
        "colleagues",
        "coworkers",
        "employer",
        "company",
        "office",
        "boss",
        "client",
        "clients",
        "workplace",
    ]
)


def leading_name(text: str) -> set[str]:
    """A name opening a statement about the user ("Azul has become the user's favourite board game"): names()
    leaves out a sentence's first word, which is a name here since the user is named later."""
    m = _LEADS.match(text)
    return {m.group(1).lower()} if m and content_words(m.group(1)) else set()  # not "This has become ..."


def held_kinds(named: set[str], words: set[str]) -> set[str]:
    """Kinds of provider or a team a statement names one of: "main bank is Barclays" -> {"provider:bank"}."""
    if not named:
        return set()
    said = {f"provider:{k}" for k, kind_words in PROVIDERS.items() if kind_words & words}
    said |= {f"provider:{k}" for n in named if (k := provider_kind(n))}
    team = any(set(n.split()) & _TEAM_WORDS for n in named)
    return said | ({"team"} if words & _SUPPORTS or "fan" in words and team else set())


def _feeling(f: Frame) -> int:
    """+1 for liking, -1 for its opposite, 0 for neither or both ("loves it but hates the crowds")."""
    return bool(f.tokens & _LIKING) - bool(f.tokens & _DISLIKING)


def turned(old: Frame, new: Frame) -> str | None:
    """The same named thing liked in one statement and disliked in the other, neither negated."""
    shared = old.names & new.names
    if not shared or old.negative or new.negative or _feeling(old) * _feeling(new) != -1 or new.additive:
        return None
    # nothing else named: "is bored of Taylor Swift's new album" is about the album
    return None if new.words - old.words - _FEELING_WORDS else min(shared)


def trip(f: Frame) -> tuple[frozenset[str], str] | None:
    """The ways of travel a statement names and where to ("cycles to work": {"bike"}, "to work")."""
    to = _DESTINATION.search(f.text)
    ways = frozenset(way for way, ways_words in TRAVEL.items() if f.tokens & ways_words)
    # a commute is to work, a school run to school
    where = (
        to.group(0).lower()
        if to
        else "to work"
        if f.tokens & _COMMUTE
        else "to school"
        if _SCHOOL_RUN.search(f.text)
        else None
    )
    return (ways, where) if where and ways else None


def other_way(old: Frame, new: Frame) -> tuple[str, str, str] | None:
    """The same trip made another way: (the old way, the new way, where to); not an addition ("sometimes"),
    a negation, one occasion or another time ("on Fridays")."""
    was, now = trip(old), trip(new)
    if (
        was is None
        or now is None
        or was[1] != now[1]
        or was[0] & now[0]
        or new.additive
        or old.negative
        or new.negative
    ):
        return None
    if any(
        f.past and not f.markers for f in (old, new)
    ):  # "drove to work today"; "switched to driving" is no occasion
        return None
    if old.once or new.once or old.when != new.when or _SOMETIMES.search(new.text):
        return None
    return ", ".join(sorted(was[0])), ", ".join(sorted(now[0])), now[1]


def for_work(f: Frame) -> bool:
    """The statement is about the user's work ("on the work laptop", "the team moved to Linear"); an issue
    tracker always is."""
    return bool(f.tokens & _FOR_WORK or "issue_tracker" in f.kinds)


_JOB_AT = re.compile(
    r"\b(?:job|jobs|works?|working)\b(?:\s+(?!at\b)[\w'-]+){0,4}?\s+at\s+(?:the\s+|a\s+|an\s+)?"
    r"(?P<place>[\w'-]+(?:\s+(?!on\b|in\b|for\b|every\b|since\b)[\w'-]+){0,3})",
    re.IGNORECASE,
)


def job_elsewhere(old: Frame, new: Frame) -> tuple[str, str] | None:
    """(the old place, the new place) when both say where the user's job is, the places share no word and the
    new statement says it changed ("now"); not an addition ("also", "a second job")."""
    was, now = _JOB_AT.search(old.text), _JOB_AT.search(new.text)
    if was is None or now is None or not new.markers or new.additive or old.negative or new.negative:
        return None
    a, b = was.group("place").lower().strip(". "), now.group("place").lower().strip(". ")
    return None if set(content_words(a)) & set(content_words(b)) else (a, b)
