"""A span the extraction model found -> the memory's text: the user's own words in the third person.

Exact rewrites only (the rules' pronoun and verb rendering): the span is cleaned, contractions expanded and
fillers dropped; a span that starts with its verb ("quit smoking 10 days ago") is the user's; a span that
starts with "he" or "she" is about the last person the message named as the user's ("my son ... he's 9");
a span that starts with a name the user's memories give ("Luna turned 4" with "User's dog Luna" stored)
is about that one; a way to answer is what the user wants from the assistant.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from memlane.providers.llm.rules.facts import USER, Subject
from memlane.providers.llm.rules.render import finish, is_past, render, swap_pronouns
from memlane.providers.llm.rules.text import clean, expand_contractions, strip_fillers

_HAS_SUBJECT = re.compile(r"(?:I|we|my|our|me)\b", re.IGNORECASE)
_TRAILING = re.compile(r"[\s,;:.!?-]+$")
_LONE_PRONOUN = re.compile(r"(?:I|me|we|us|you|it|he|she|they|them)", re.IGNORECASE)  # says nothing alone
_VERBS = frozenset(
    [
        "have",
        "love",
        "like",
        "hate",
        "work",
        "live",
        "go",
        "need",
        "want",
        "play",
        "take",
        "use",
        "eat",
        "drink",
        "run",
        "do",
        "make",
        "get",
        "feel",
        "think",
        "study",
        "teach",
        "prefer",
        "own",
        "drive",
        "ride",
        "coach",
        "volunteer",
        "train",
        "start",
        "quit",
        "teach",
        "speak",
        "write",
        "read",
        "cook",
        "walk",
        "swim",
        "cycle",
        "attend",
        "care",
        "look",
        "keep",
        "rent",
        "share",
        "visit",
    ]
)
# a way to answer named by what is wanted, not by a verb: "short answers pls" -> "User wants short answers"
_WANTED_THING = frozenset(
    ["the", "a", "an", "no", "more", "less", "only", "just", "short", "shorter", "simple"]
)
_LEAD_PRONOUN = re.compile(r"^(?:(?P<nom>he|she|they)|(?P<pos>his|her|their))\b\s*", re.IGNORECASE)
# "my son Finn", "our youngest", "my husband Yusuf": a person of the user's the message named
_NAMED_PERSON = re.compile(
    r"\b(?i:my|our) (?P<noun>(?:(?:little|big|older|younger|elder|best|late|"
    r"baby|step|ex) )?[a-z]+(?:-in-law)?)(?: (?P<name>[A-Z][\w'-]+))?"
)


_KNOWN_PERSON = re.compile(r"\bUser's (?P<noun>(?:[a-z-]+ )?[a-z-]+) (?P<name>[A-Z][\w'-]+)")


def known_names(summaries: Sequence[str]) -> dict[str, str]:
    """Names the stored memories give someone of the user's: ``{"Luna": "dog"}``."""
    return {m.group("name"): m.group("noun") for s in summaries for m in _KNOWN_PERSON.finditer(s)}


def _tidy(text: str) -> str:
    return _TRAILING.sub("", strip_fillers(expand_contractions(clean(text))))


def _about_named(text: str, before: str) -> str | None:
    """``"He is 17"`` after ``"my son"`` -> ``"User's son is 17."``; None when nobody was named."""
    lead = _LEAD_PRONOUN.match(text)
    people = list(_NAMED_PERSON.finditer(before))
    if not lead or not people:
        return None
    person = Subject(kind="relation", noun=people[-1].group("noun"), name=people[-1].group("name"))
    head = person.nominative if lead.group("nom") else person.possessive
    rest = text[lead.end() :]
    if lead.group("nom") and lead.group("nom").lower() == "they":
        rest = re.sub(r"^are\b", "is", rest)
    return finish(f"{head} {swap_pronouns(rest, person)}")


def summary_of(span: str, kind: str, before: str = "", names: Mapping[str, str] | None = None) -> str:
    """The memory's text for a span of ``kind``; ``before`` is the message up to the span, ``names`` the
    people the user's memories name (:func:`known_names`)."""
    text = _tidy(span)
    if not text or _LONE_PRONOUN.fullmatch(text):
        return ""
    name = text.split(" ", 1)[0]
    if names and name in names:
        person = Subject(kind="relation", noun=names[name], name=name)
        return finish(f"{person.nominative} {swap_pronouns(text[len(name) :].strip(), person)}")
    first = text.split(" ", 1)[0].lower()
    if kind == "answer_style" and not _HAS_SUBJECT.match(text):
        wanted = "" if first in _WANTED_THING else "the assistant to "
        return finish(f"User wants {wanted}{swap_pronouns(text[0].lower() + text[1:], USER)}")
    if kind == "other_person" and (named := _about_named(text, _tidy(before))):
        return named
    if not _HAS_SUBJECT.match(text) and kind in ("fact", "event"):
        if first == "been":  # "been vegan since march": the present perfect, its "I have" left out
            text = f"I have {text}"
        elif first in _VERBS or is_past(first):
            text = f"I {text[0].lower()}{text[1:]}"
    return render(text, USER)
