"""Typed values in a sentence, with where they are: numbers (with the kind their unit gives them), dates,
days of the month, ordinals and names.

``"User takes 10mg of lisinopril every morning."`` -> ``[Value("num", "dose", "10", 11, 13, 10.0)]``;
``"the wedding's june 27th, not the 20th"`` -> a date (June 27th) and a day (20). ``updates.py`` reads a
stored summary and a new clause with it to tell which value of the stored memory the clause changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memlane.providers.llm.rules.frame_data import DATA
from memlane.providers.llm.rules.helpers import DATE
from memlane.providers.llm.rules.lexicon import NOT_NAMES, words
from memlane.providers.llm.rules.lexicon_world import MONTHS, NUMBER_WORDS, TECH_SLOTS
from memlane.providers.llm.rules.table import ORDINALS

_UNIT_KIND = {w.replace("_", " "): kind for kind, ws in DATA["units"].items() for w in ws.split()}
_UNIT_KIND |= {
    "k": "k",
    "quid": "money",
    "£": "money",
    "$": "money",
    "€": "money",
    "¥": "money",
    "percent": "share",
    "%": "share",
    "mph": "speed",
    "kmh": "speed",
    "bpm": "rate",
}
_NUMBER_WORDS = sorted((w for w in NUMBER_WORDS if w not in ("one", "zero")), key=len, reverse=True)
_NUM = re.compile(
    r"(?P<cur>[€$£¥] ?)?(?<![\w.,])(?P<n>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|"
    + "|".join(_NUMBER_WORDS)
    + r")(?P<glued>mg|mcg|ml|kg|km|k|lbs?|cm|%)?(?![\w.]*\d)\b(?!-)",
    re.IGNORECASE,
)
_ORDINAL = re.compile(r"\b(?:(\d{1,3})(?:st|nd|rd|th)|(" + "|".join(ORDINALS) + r"))\b", re.IGNORECASE)
_PERIOD = re.compile(r"^\s*(?:a|an|per|every|each|/)\s*(day|week|month|year|night|session)\b", re.IGNORECASE)
_YEAR = re.compile(r"^(?:19|20)\d\d$")
# words after a number that are no noun counted by it: "turned 90 on Sunday", "six now"
_FUNCTION = words("""a an the of on in at to for from by with and or but now so then this that these those
    since until ago last next again already just too yet still years year old month months week weeks day days
    a-month a-week per each every is are was were be it its not than more less""")
_TOKEN = re.compile(r"[\w'.+#-]+")
_DAYS = ["mon", "tues", "wednes", "thurs", "fri", "satur", "sun"]
_WEEKDAY = re.compile(r"\b(" + "|".join(_DAYS) + r")days?\b", re.IGNORECASE)
_NAME = re.compile(r"(?<!^)(?<![.!?:] )\b([A-Z][\w'.+#-]*(?: [A-Z][\w'.+#-]*)*)")


@dataclass(frozen=True)
class Value:
    kind: str  # num | date | day | ordinal | weekday | name
    unit: str  # num: age, dose, money, distance, k, count:<noun>, "" (bare); ordinal: the noun after it
    text: str  # as written
    start: int
    end: int
    number: float | None = None
    period: str = ""  # "a week", "per month": what a rate is counted over
    before: str = ""  # the word before it ("on WordPress", "at HubSpot")
    unit_end: int = 0  # where its unit word ends ("25 km": after "km"); ``end`` when it has none


def _next_word(text: str, end: int) -> str:
    m = _TOKEN.search(text, end)
    return m.group(0).lower().rstrip(".") if m and not text[end : m.start()].strip(" ") else ""


def _word_before(text: str, start: int) -> str:
    tokens = _TOKEN.findall(text[:start])
    return tokens[-1].lower() if tokens else ""


def _number_unit(text: str, m: re.Match[str]) -> str:
    if m.group("cur"):
        return "money"
    if m.group("glued"):
        return _UNIT_KIND.get(m.group("glued").lower(), "")
    after = _next_word(text, m.end())
    if after in _UNIT_KIND:
        return _UNIT_KIND[after]
    if after and after.isalpha() and after not in _FUNCTION and after not in _UNIT_KIND:
        return "count:" + after.rstrip("s")  # "3 friends", "120 guests": a count of something
    return ""


def _overlaps(start: int, end: int, taken: list[tuple[int, int]]) -> bool:
    return any(start < b and a < end for a, b in taken)


@lru_cache(maxsize=4096)
def read_values(text: str) -> list[Value]:
    """Every typed value of ``text`` in order (cached: the stored summaries come back turn after turn)."""
    found: list[Value] = []
    taken: list[tuple[int, int]] = []
    for m in DATE.finditer(text):
        if "/" in m.group(0):
            continue
        day = re.search(r"\d{1,2}", m.group(0))
        found.append(Value("date", "", m.group(0), m.start(), m.end(), float(day.group(0)) if day else None))
        taken.append(m.span())
    for m in _ORDINAL.finditer(text):
        if _overlaps(*m.span(), taken):
            continue
        n = float(m.group(1)) if m.group(1) else float(ORDINALS[m.group(2).lower()])
        after = _next_word(text, m.end()).removeprefix("-")  # "a fourth-year": the fourth year
        noun = (
            after
            if after.isalpha() and (after not in _FUNCTION or after == "year") and after not in MONTHS
            else ""
        )
        kind = "ordinal" if noun or m.group(2) else "day"  # "the 20th": a day of the month
        found.append(Value(kind, noun, m.group(0), m.start(), m.end(), n))
        taken.append(m.span())
    for m in _NUM.finditer(text):
        if _overlaps(*m.span(), taken) or _YEAR.match(m.group("n")):
            continue
        raw = m.group("n").lower()
        n = float(NUMBER_WORDS[raw]) if raw in NUMBER_WORDS else float(raw.replace(",", ""))
        if re.match(r"\s*(?:\w+\s+)?ago\b", text[m.end() :], re.IGNORECASE):
            continue  # "ten years ago": when, not how much
        unit_end = m.end()
        if not m.group("glued") and _next_word(text, m.end()) in _UNIT_KIND:  # "25 km a week"
            unit_end = m.end() + len(re.match(r"\s*[\w%]+", text[m.end() :]).group(0))  # type: ignore[union-attr]
        period = _PERIOD.match(text[unit_end:])
        found.append(
            Value(
                "num",
                _number_unit(text, m),
                m.group("n"),
                m.start("n"),
                m.end("n"),
                n,
                period.group(1).lower() if period else "",
                unit_end=unit_end,
            )
        )
        taken.append(m.span())
    for m in _WEEKDAY.finditer(text):  # "on Thursdays": a day of the week, held like a value
        if not _overlaps(*m.span(), taken):
            found.append(
                Value("weekday", "", m.group(0), m.start(), m.end(), float(_DAYS.index(m.group(1).lower())))
            )
            taken.append(m.span())
    for m in _NAME.finditer(text):
        name = m.group(1).rstrip(".").removesuffix("'s")
        low = name.lower()
        if (
            _overlaps(m.start(), m.end(), taken)
            or low.startswith("user")
            or low.split()[0] in NOT_NAMES
            or low in MONTHS
            or name == "I"
        ):
            continue
        found.append(
            Value("name", "", name, m.start(), m.start() + len(name), before=_word_before(text, m.start()))
        )
    tokens = list(_TOKEN.finditer(text))  # a tool written in lowercase: "moving my blog off wordpress"
    for i, m in enumerate(tokens):
        two = [(m.start(), tokens[i + 1].end())] if i + 1 < len(tokens) else []
        for start, end in [*two, m.span()]:  # two words first: "from google sheets into YNAB"
            said = text[start:end]
            if said.lower() in TECH_SLOTS and not said[:1].isupper() and not _overlaps(start, end, taken):
                found.append(Value("name", "", said, start, end, before=_word_before(text, start)))
                taken.append((start, end))
                break
    return sorted(found, key=lambda v: v.start)
