"""Corrections phrased against the previous turn: ``"Sorry, I meant 4"``, ``"Actually it's the 14th"``.

The last fact of an earlier user turn is rebuilt with the corrected value, so the candidate carries the
whole fact (``"User's dog Luna is 4 years old."``) and the same slot key as the fact it corrects.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from memlane.providers.llm.rules.facts import Fact, Subject
from memlane.providers.llm.rules.helpers import DATE, DAY_ONLY
from memlane.providers.llm.rules.lexicon import NOT_NAMES
from memlane.providers.llm.rules.lexicon_world import NUMBER_WORDS

Finder = Callable[[str], list[tuple[Fact, Subject]]]

MARKER = re.compile(
    r"^\W*(?:sorry|oops|whoops|no|nope|nah|actually|correction|wait|my bad|typo|i meant|i mean|make that|"
    r"not|rather|scratch that|let me correct)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(
    r"\b(\d+(?:[.,]\d+)?|"
    + "|".join(sorted((w for w in NUMBER_WORDS if " " not in w), key=len, reverse=True))
    + r")(?:\b|(?=(?:mg|mcg|ml|kg|km|lbs?|k|g|m|cm)\b))",  # "25mg": a number glued to its unit
    re.IGNORECASE,
)
_CAPITAL = re.compile(r"(?<!^)(?<![.!?:] )\b([A-Z][\w'-]+(?: [A-Z][\w'-]+)*)")
_LOOKBACK = 3


def _ordinal(n: int) -> str:
    if 11 <= n % 100 <= 13:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def is_correction(text: str) -> bool:
    return bool(MARKER.search(text))


def _replace_number(text: str, old: str | None, new: str) -> str | None:
    if old and re.search(rf"\b{re.escape(old)}(?=\b|[a-z])", text):
        return re.sub(rf"\b{re.escape(old)}(?=\b|[a-z])", new, text, count=1)
    m = _NUMBER.search(text)
    return text[: m.start()] + new + text[m.end() :] if m else None


def _substitute(fact: Fact, body: str) -> Fact | None:
    new_text: str | None = None
    new_value = fact.value
    old_date = DATE.search(fact.text)
    date, day = DATE.search(body), DAY_ONLY.search(body)
    if old_date and date:
        new_text, new_value = fact.text.replace(old_date.group(0), date.group(0)), date.group(0)
    elif old_date and day:
        old_day = re.search(r"\b(\d{1,2})(st|nd|rd|th)?\b", old_date.group(0))
        if old_day:
            suffix = _ordinal(int(day.group(1))) if old_day.group(2) else ""
            start, end = old_day.span()
            rebuilt = old_date.group(0)[:start] + day.group(1) + suffix + old_date.group(0)[end:]
            new_text, new_value = fact.text.replace(old_date.group(0), rebuilt), rebuilt
    elif (num := _NUMBER.search(body)) and _NUMBER.search(fact.text):
        new_text = _replace_number(
            fact.text, fact.value if _NUMBER.fullmatch(fact.value) else None, num.group(1)
        )
        new_value = num.group(1)
    else:
        caps = [c for c in _CAPITAL.findall(body) if c.split()[0].lower() not in NOT_NAMES and c != "I"]
        if caps and fact.value[:1].isupper() and fact.value in fact.text:
            new_text, new_value = fact.text.replace(fact.value, caps[0]), caps[0]
    if not new_text or new_text == fact.text:
        return None
    return replace(
        fact,
        text=new_text,
        value=new_value,
        tags=[*fact.tags, "correction"],
        entities=[new_value, *[e for e in fact.entities if e != fact.value]],
    )


def rebuild(text: str, earlier_user_turns: Sequence[str], find: Finder) -> list[tuple[Fact, Subject]]:
    """The corrected version of the most recent earlier fact the correction's value fits."""
    if not is_correction(text):
        return []
    for turn in reversed(earlier_user_turns[-_LOOKBACK:]):
        for fact, subject in reversed(find(turn)):
            fixed = _substitute(fact, text)
            if fixed is not None:
                return [(fixed, subject)]
    return []
