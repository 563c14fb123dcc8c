"""What an answer-style preference is about: one value per aspect ("short" -> "detailed" is a change), while
a new aspect adds ("short answers", then "answers in Spanish": both hold)."""

from __future__ import annotations

import re

from memlane.providers.llm.rules.lexicon import words
from memlane.providers.llm.rules.lexicon_world import LANGUAGES

# The two ends of the scales an answer style leans to: wanting one end says what not wanting the other says
# ("prefers brief answers" / "does not like long walls of text"). Each scale is part of an aspect below.
_POLES: dict[str, frozenset[str]] = {
    "short": words(
        "short shorter brief briefer concise terse succinct compact one-line one-liner one-liners one-sentence"
    ),
    "long": words("long longer lengthy long-winded detailed thorough verbose in-depth walls essay essays"),
    "metric": words(
        "metric celsius kilometres kilometers km kilos kilograms grams metres meters litres liters "
        "millilitres milliliters centimetres centimeters"
    ),
    "imperial": words("imperial fahrenheit miles lbs ounces feet inches cups"),
    "casual": words("casual informal relaxed chatty"),
    "formal": words("formal professional"),
    "recap": words(
        "summary summaries recap recaps tldr tl;dr takeaway takeaways wrap-up"
    ),  # at the end of answers
    "steps": words("step-by-step steps numbered"),
    "prose": words("prose paragraphs"),
    "no_recap": frozenset(),  # only as what "no summary at the end" asks for
}
ASPECTS: dict[str, frozenset[str]] = {
    "length": _POLES["short"] | _POLES["long"] | words("sentence sentences paragraph paragraphs word words"),
    "format": words(
        "bullet bullets bulleted list lists numbered table tables markdown prose headings heading code "
        "snippet snippets step-by-step steps outline"
    ),
    "tone": _POLES["casual"]
    | _POLES["formal"]
    | words("friendly polite blunt direct playful serious warm tone jokes humour humor sarcasm"),
    "emoji": words("emoji emojis emoticons"),
    "level": words(
        "beginner beginners beginner-level novice newbie expert experts expert-level layman layperson "
        "five-year-old child kid technical non-technical techy eli5 basic basics advanced"
    ),
    "examples": words("example examples analogies analogy"),
    "recap": _POLES["recap"],
    "units": _POLES["metric"] | _POLES["imperial"] | words("units"),
    "spelling": words("spelling spellings"),
    "currency": words("euros euro dollars dollar francs franc yen rupees currency sterling gbp usd eur chf"),
    "language": LANGUAGES | {"language"},
}
_WORD = re.compile(r"[a-z][a-z-]*")
# a phrase of a few words that names an aspect ("metric units", "plain English", "bullet points"): a slot of
# the pattern table, so a directive row reads only what is about answers ("use metric", not "use the stairs")
STYLE_SLOT = (
    r"(?:[\w'-]+\s+){0,3}?(?:"
    + "|".join(sorted({re.escape(w) for ws in ASPECTS.values() for w in ws}, key=len, reverse=True))
    + r")\b(?:\s+[\w'-]+){0,3}?"
)


def aspects(style: str) -> frozenset[str]:
    """The aspects a style names: "short, in Spanish" -> {length, language}."""
    said = set(_WORD.findall(style.lower()))
    return frozenset(name for name, listed in ASPECTS.items() if said & listed)


def key_suffix(style: str) -> str:
    """The key's tail for a style: ":length", ":format-length" ("short with bullet points"), "" when unknown; one
    aspect is one memory, so a style of another aspect does not replace it."""
    found = aspects(style)
    return ":" + "-".join(sorted(found)) if found else ""


_OPPOSITE = {
    "short": "long",
    "long": "short",
    "metric": "imperial",
    "imperial": "metric",
    "casual": "formal",
    "formal": "casual",
    "recap": "no_recap",
    "no_recap": "recap",
    "steps": "prose",
    "prose": "steps",
}
_ABOUT_ANSWERS = words(
    "answer answers reply replies response responses explanation explanations text texts "
    "message messages assistant measurements units tone recipes prices distances temperatures weights "
    "amounts quantities"
)
_STANCE = re.compile(
    r"\b(?:wants?|prefers?|likes?|loves?|hates?|dislikes?|would like|can't stand|cannot stand)\b",
    re.IGNORECASE,
)
_NOT = re.compile(
    r"\b(?:not|no|never|hates?|dislikes?|can't stand|cannot stand|without)\b|n't\b", re.IGNORECASE
)
_RATHER = re.compile(r"\b(?:rather than|instead of|over|not)\b", re.IGNORECASE)


def leaning(text: str) -> frozenset[str]:
    """The ends of the scales a statement about answers asks for, not wanting one end read as wanting the
    other: "does not like long walls of text" -> {short}; "metric rather than imperial" -> {metric}. Empty
    when the statement is not a stance about answers."""
    said = set(_WORD.findall(text.lower()))
    asked = "please" in said  # "kilometres and kilograms please": a request to the assistant
    if not (said & _ABOUT_ANSWERS or asked) or not (_STANCE.search(text) or asked):
        return frozenset()
    wanted_part, unwanted_part = text, ""
    if m := _RATHER.search(text):
        wanted_part, unwanted_part = text[: m.start()], text[m.end() :]
    flip = _NOT.search(wanted_part) is not None
    found: set[str] = set()
    for part, against in ((wanted_part, flip), (unwanted_part, True)):
        words_in = set(_WORD.findall(part.lower()))
        for pole, listed in _POLES.items():
            if words_in & listed:
                found.add(_OPPOSITE[pole] if against else pole)
    return frozenset(found)


def same_leaning(existing: str, candidate: str) -> bool | None:
    """True when two statements about answers ask for the same ends of their scales, False when one asks for
    an end the other asks the opposite of, None when either leans nowhere."""
    a, b = leaning(existing), leaning(candidate)
    if not a or not b:
        return None
    if any(_OPPOSITE[p] in b for p in a):
        return False
    return True if a == b else None
