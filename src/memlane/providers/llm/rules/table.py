"""Extraction rules as data: each row of ``patterns.yaml`` is a clause pattern and the fact it states.

A pattern is a regular expression over one first-person clause (cleaned, contractions expanded, fillers
and past-time phrases cut) with slots in braces: ``I am (?:now )?with {org}(?: these days)?``. A slot
captures a typed value (``org``, ``place``, ``name``, ``tool``, ``num``, ``money``, ``date``, ``thing``;
a digit suffix names a second one, ``{tool2}``). The row says what the clause states in first person
(``says: I work at {org}``), its key, category, importance and type. Every row carries examples that
the test suite checks, so a new phrasing is a row with its examples, not code.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from memlane.model.enums import MemoryType
from memlane.providers.llm.rules.answer_aspects import STYLE_SLOT, key_suffix
from memlane.providers.llm.rules.facts import Clause, Fact
from memlane.providers.llm.rules.helpers import category_for, noun_phrase, strip_past_time, topic
from memlane.providers.llm.rules.lexicon import CONDITIONS, STATUSES, TRAITS
from memlane.providers.llm.rules.lexicon_world import (
    DEMONYMS,
    DIETS,
    LANGUAGES,
    MONTHS,
    NUMBER_WORDS,
    SUBSCRIPTIONS,
)
from memlane.providers.llm.rules.text import slug

_CAP = r"(?-i:[A-Z\u00C0-\u00DE])"
_NAME_WORD = _CAP + r"[\w&.'+-]*"
_MONTH = "(?:" + "|".join(MONTHS) + r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?"
_NUMBER_WORD = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
SLOTS = {
    "org": rf"{_NAME_WORD}(?:\s+(?:&\s+)?(?:{_NAME_WORD}|\d[\w.]*)){{0,3}}",
    "place": rf"{_NAME_WORD}(?:\s+(?:de\s+|del\s+)?{_NAME_WORD}){{0,2}}",
    "name": rf"{_CAP}[\w'-]+",
    "tool": rf"(?:{_NAME_WORD}|[a-z][\w.+#-]*)(?:\s+{_NAME_WORD}){{0,2}}",
    "num": rf"\d+(?:[.,]\d+)?|{_NUMBER_WORD}",
    "money": r"[€$£]\s?\d[\d,.]*k?|\d[\d,.]*k?\s?(?:euros?|dollars?|pounds|eur|usd|gbp|bucks)",
    "date": rf"{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?|(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}",
    "thing": r"[\w'+-]+(?:\s+[\w'+-]+){0,8}?",
}


def _one_of(vocabulary: frozenset[str]) -> str:
    """A slot that takes one word (or phrase) of a closed list, longest first: ``{language}``."""
    return (
        "(?:"
        + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(vocabulary, key=len, reverse=True))
        + r")\b"
    )


# slots filled from the lexicons: a row reads "I am {demonym}" only for a demonym the lexicon knows
SLOTS |= {
    "language": _one_of(LANGUAGES),
    "demonym": _one_of(DEMONYMS),
    "trait": _one_of(TRAITS),
    "diet": _one_of(DIETS),
    "condition": _one_of(CONDITIONS),
    "status": _one_of(STATUSES),
    "service": _one_of(SUBSCRIPTIONS),
}
ORDINALS = {
    w: i + 1
    for i, w in enumerate(
        [
            "first",
            "second",
            "third",
            "fourth",
            "fifth",
            "sixth",
            "seventh",
            "eighth",
            "ninth",
            "tenth",
            "eleventh",
            "twelfth",
            "thirteenth",
            "fourteenth",
            "fifteenth",
            "sixteenth",
            "seventeenth",
            "eighteenth",
            "nineteenth",
            "twentieth",
        ]
    )
}
SLOTS["style"] = STYLE_SLOT  # a phrase naming an aspect of answers: "metric units", "plain English"
SLOTS["ordinal"] = "(?:" + "|".join(ORDINALS) + r"|\d{1,3}(?:st|nd|rd|th))"
_SLOT = re.compile(r"\{([a-z]+)(\d?)\}")
_FIELD = re.compile(r"\{([a-z]+\d?)((?:\|[a-z_]+)*)\}")  # a template field, with filters: {v|np|lower}
# a life event said as what the user is doing on a date, named as the event: "getting married" -> "wedding"
_EVENT_NOUNS = {
    "getting married": "wedding",
    "married": "wedding",
    "getting engaged": "engagement party",
    "graduating": "graduation",
    "retiring": "retirement",
    "moving house": "move",
    "moving": "move",
    "due": "due date",
    "having surgery": "surgery",
    "having my surgery": "surgery",
    "having an operation": "operation",
    "having my operation": "operation",
    "emigrating": "emigration",
}
FILTERS: dict[str, Callable[[str], str]] = {
    "event": lambda v: _EVENT_NOUNS.get(" ".join(v.lower().split()), v),
    "np": noun_phrase,  # "cashews as a snack" -> "cashews"
    "topic": topic,  # "jazz music" -> "jazz"
    "head": lambda v: topic(v, head=True),  # "aisle seats" -> "seat"
    "lower": str.lower,
    "slug": slug,
    "past": strip_past_time,  # "to sell the car last week" -> "to sell the car"
    "title": lambda v: " ".join(w.capitalize() for w in v.split()),  # "brazilian" -> "Brazilian"
    "aspect": key_suffix,  # "short" -> ":length": one memory per aspect of answers (answer_aspects.py)
    "cardinal": lambda v: str(ORDINALS.get(v.lower(), v.lower().rstrip("stndrh"))),  # "fifth", "5th" -> "5"
    "now": lambda v: "now",  # a move or a switch said: the value holds from now on
}


@dataclass(frozen=True)
class Row:
    id: str
    patterns: tuple[re.Pattern[str], ...]
    says: str
    key: str | None
    value: str
    category: str
    importance: int
    type: MemoryType
    positive: bool
    tags: tuple[str, ...]
    raw: bool  # also read on the clause as written when it is not about the user or reads as a request
    anyone: bool  # about whoever the clause is about (a child's or a pet's age), not only the user
    examples: tuple[tuple[str, str], ...]
    skip: re.Pattern[str] | None  # a captured value that matches makes the row pass ("I love you")
    group: str  # where in the rule order the row is read (build.RULES)


def _compile(pattern: str) -> re.Pattern[str]:
    def slot(m: re.Match[str]) -> str:
        return f"(?P<{m.group(1)}{m.group(2)}>{SLOTS[m.group(1)]})"

    return re.compile(rf"^(?:{_SLOT.sub(slot, pattern)})$", re.IGNORECASE)


def _row(raw: dict[str, Any]) -> Row:
    patterns = raw["match"] if isinstance(raw["match"], list) else [raw["match"]]
    for template in (raw["says"], raw.get("key") or "", raw.get("value") or ""):
        for field in _FIELD.finditer(template):
            unknown = {f for f in field.group(2).split("|") if f} - set(FILTERS)
            if unknown:
                raise ValueError(
                    f"patterns.yaml row {raw['id']}: unknown filter {', '.join(sorted(unknown))}"
                )
    return Row(
        id=raw["id"],
        patterns=tuple(_compile(p) for p in patterns),
        says=raw["says"],
        key=raw.get("key"),
        value=raw.get("value", ""),
        category=raw.get("category", "Personal"),
        importance=int(raw.get("importance", 3)),
        type=MemoryType(raw.get("type", "semantic")),
        positive=bool(raw.get("positive", True)),
        tags=tuple(raw.get("tags", ())),
        raw=bool(raw.get("raw", False)),
        anyone=bool(raw.get("anyone", False)),
        examples=tuple((e[0], e[1]) for e in raw.get("examples", ())),
        skip=re.compile(raw["skip"], re.IGNORECASE) if raw.get("skip") else None,
        group=raw.get("group", "general"),
    )


@lru_cache(maxsize=1)
def rows() -> tuple[Row, ...]:
    files = sorted(Path(__file__).parent.glob("patterns*.yaml"))  # patterns.yaml, patterns_identity.yaml, ...
    return tuple(_row(r) for f in files for r in yaml.safe_load(f.read_text(encoding="utf-8")))


_OPTIONAL = re.compile(r"\[([^\]]*)\]")  # "[ instead of {tool2}]": shown only when its fields are filled


def _fill(template: str, values: dict[str, str], for_key: bool = False) -> str:
    def optional(m: re.Match[str]) -> str:
        filled = all(values.get(f.group(1)) for f in _FIELD.finditer(m.group(1)))
        return m.group(1) if filled else ""

    template = _OPTIONAL.sub(optional, template)

    def one(m: re.Match[str]) -> str:
        value = values.get(m.group(1), "")
        names = [f for f in m.group(2).split("|") if f]
        for name in names:
            value = FILTERS[name](value).strip()
        return slug(value) if for_key and not {"topic", "head", "aspect"} & set(names) else value

    return " ".join(_FIELD.sub(one, template).split())  # an optional slot left empty leaves no gap


def _clean(values: dict[str, str | None]) -> dict[str, str]:
    out = {}
    for name, value in values.items():
        if value is None:
            continue
        value = value.strip(" ,.")
        if name.startswith("tool"):
            value = re.sub(r"^(?:the|a|an|my|our)\s+", "", value, flags=re.IGNORECASE)
        out[name] = value
    return out


_MONTH = "january|february|march|april|may|june|july|august|september|october|november|december"
# What a clause may carry after the fact: cut one at a time until a row matches the rest.
_TAILS = (
    re.compile(
        r",\s(?!.*,\s)(?:that|this|it|which)\b.*$", re.IGNORECASE
    ),  # a comment after the last comma: ", that's how I get it"
    re.compile(
        r",\s(?!.*,\s).*$"
    ),  # from the last comma back: "when you give me recipes, use metric, not cups"
    re.compile(r"(?:,|\s+(?:so|because|which|and then|but|-))\s.*$", re.IGNORECASE),
    re.compile(
        r"\s+(?:(?:a couple(?: of)?|a few|\d+|one|two|three|several) (?:days|weeks|months|years) ago|"
        r"(?:this|last|next) (?:week|month|year|weekend)|on (?:monday|tuesday|wednesday|thursday|friday|"
        r"saturday|sunday)|over the (?:weekend|holidays|summer)|at the weekend|yesterday|today|last night|lately|recently|"
        r"these days|nowadays|now|again|altogether|anyway|(?:at|by|around|towards?|in) the (?:very )?(?:start|beginning|end|"
        r"middle) of(?: (?:the|this|last|next) (?:week|month|year|summer|winter|spring|autumn|term)| "
        rf"(?:{_MONTH}|\d{{4}}))?|(?:early|late|mid)(?: in|-)? ?(?:{_MONTH}|\d{{4}})|"
        r"earlier this (?:week|month|year))$",
        re.IGNORECASE,
    ),
    re.compile(
        rf"\s+(?:since|during|after|until|ever since|in (?:{_MONTH}|\d{{4}})|for (?:a|an|one|two|three|\d+|the past|about|"
        r"almost|over|nearly) ).*$",
        re.IGNORECASE,
    ),
)


def _variants(text: str) -> list[str]:
    out = [text.strip().rstrip(".!")]
    changed = True
    while changed:  # "started at X on Monday after four years at Y": cut "after ...", then "on Monday"
        changed = False
        for tail in _TAILS:
            cut = tail.sub("", out[-1]).strip()
            while cut and cut != out[-1]:
                out.append(cut)
                changed = True
                cut = tail.sub("", cut).strip()
    return out


def match_text(
    text: str, *, raw_only: bool = False, user: bool = True, group: str | None = None
) -> Fact | None:
    """The fact of the first row whose pattern matches the whole text (or the text cut before a
    trailing clause or time phrase)."""
    for variant in _variants(text):
        for row in rows():
            if (raw_only and not row.raw) or (not user and not row.anyone) or (group and row.group != group):
                continue
            for pattern in row.patterns:
                if (m := pattern.match(variant)) is None:
                    continue
                values = _clean(m.groupdict())
                if row.skip and any(row.skip.match(v) for v in values.values()):
                    continue
                return _fact(row, {**values, "clause": variant})
    return None


def _fact(row: Row, values: dict[str, str]) -> Fact:
    key = _fill(row.key, values, for_key=True) if row.key else None
    text = _fill(row.says, values)
    entities = [
        v
        for k, v in values.items()
        if k.startswith(("org", "place", "name", "tool")) or (k == "v" and v[:1].isupper())
    ]
    category = category_for(text, "Personal") if row.category == "auto" else row.category
    positive = row.positive != bool(values.get("neg"))  # a (?P<neg>...) group that matched turns the row over
    return Fact(
        key=key,
        value=_fill(row.value, values) or text,
        text=text,
        category=category,
        importance=row.importance,
        type=row.type,
        positive=positive,
        entities=entities,
        tags=list(row.tags),
    )


def rule(group: str) -> Callable[[Clause], Fact | None]:
    """A rule like the others, reading the rows of one group."""

    def read(clause: Clause) -> Fact | None:
        return match_text(clause.text, user=clause.subject.kind == "user", group=group)

    read.__name__ = f"table_{group}"
    return read
