"""Small parsers the rules share: places, noun-phrase topics, money, dates, topic categories."""

from __future__ import annotations

import re

from memlane.providers.llm.rules.lexicon import words
from memlane.providers.llm.rules.lexicon_world import MONTH_ABBR, MONTHS
from memlane.providers.llm.rules.text import singular, slug, workout

_I = re.IGNORECASE
_CONNECTORS = words("de del da do dos das di du la le upon on am of and y sur en")
_WHEN = words("monday tuesday wednesday thursday friday saturday sunday") | frozenset(MONTHS)
_PLACE_STOP = words("""with since for because but and now last this next ago in at near from by when while where which
    who that so as to a an my our their his her since until till right currently today""")
_MONTH = r"(?:" + "|".join(MONTHS + sorted(MONTH_ABBR, key=len, reverse=True)) + r")\.?"
DATE = re.compile(
    rf"\b(?:(?:the )?\d{{1,2}}(?:st|nd|rd|th)?(?: of)? {_MONTH}(?:,? \d{{4}})?|{_MONTH} (?:the )?\d{{1,2}}"
    rf"(?:st|nd|rd|th)?(?:,? \d{{4}})?|\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?)\b",
    _I,
)
DAY_ONLY = re.compile(r"\b(?:the )?(\d{1,2})(?:st|nd|rd|th)\b", _I)
_CURRENCY = (
    r"(?:euros?|eur|dollars?|usd|pounds?|gbp|bucks|quid|francs?|chf|yen|kr|kronor|krona|zloty|reais|rupees?)"
)
MONEY = re.compile(
    rf"(?:[€$£¥] ?\d[\d,.]*(?: ?(?:k|m|million|thousand))?|\d[\d,.]*(?: ?(?:k|m|thousand|million))? ?"
    rf"(?:{_CURRENCY}|[€$£])|\d[\d,.]*k\b)",
    _I,
)
PAST_TIME = re.compile(
    r",?\s*\b(?:last (?:week|weekend|month|year|night|summer|winter|spring|autumn|fall|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday)|yesterday|today|tonight|this (?:morning|afternoon|evening|"
    r"week|weekend)|earlier today|the other day|just now|a (?:few|couple of) (?:days|weeks|months) ago|"
    r"\d+ (?:days|weeks|months|years) ago|(?:a|one|two|three) (?:day|days|week|weeks|month|months) ago)\b",
    _I,
)
_NP_STOP = re.compile(
    r"\s+(?:more than|rather than|as a|as an|as my|because|since|when|whenever|if|but|so|though|although|"
    r"while|especially|than|very much|a lot|so much|too|at all|anymore|any more|every|each|on|in|at|"
    r"for|with|from|during|after|before|whenever|who|which|that|these days|nowadays|pretty much|daily|"
    r"all the time|most days|sometimes|usually|often|completely|entirely|altogether|for good|for now|now|again|"
    r"anymore|any longer)\b.*$|\s*,.*$",  # or at a comma: "Sichuan cooking, the spicier the better"
    _I,
)
_QUANTIFIERS = re.compile(
    r"^(?:(?:a lot of|lots of|loads of|tons of|plenty of|a bit of|a little|some|any|much|many|more|"
    r"most|all|the|a|an|my|our|their|really|very|to|at|in|on|\d+ cups? of|"
    r"cups? of|a cup of|glasses of|a glass of)\s+)+",
    _I,
)
_GENERIC_HEADS = words(
    "music food foods cuisine dishes dish movies films shows series books games genre stuff things"
)
TOPIC_CATEGORIES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (cat, re.compile(pattern, _I))
    for cat, pattern in (
        ("Budget", r"\b(?:budget|budgets|spending|spend|expenses?|eating[- ]out)\b"),
        (
            "Finance",
            r"\b(?:savings?|save|invest\w*|stocks?|shares|crypto|bank|account|loan|debt|mortgage|"
            r"salary|income|rent|tax(?:es)?|pension|retirement|insurance|credit|money|euros?|"
            r"dollars?|pounds?|high[- ]yield|etf|index fund|raise|bonds(?! with)|isas?|portfolio|dividends?)\b",
        ),
        (
            "Travel",
            r"\b(?:trip|travel\w*|flight|fly|flying|visit|vacation|holiday|honeymoon|hotel|passport|"
            r"visa|abroad|cruise|tour|backpack\w*|week in|weekend in|road trip)\b",
        ),
        (
            "Health",
            r"\b(?:gym|doctor|dentist|workout|exercise|diet|medication|therapy|therapist|sleep|weight|"
            r"yoga|surgery|hospital|health|smoking|drinking|allerg\w*|vaccin\w*|check-?up|meditat\w*|"
            r"running|marathon)\b",
        ),
        (
            "Interests",
            r"\b(?:guitar|piano|violin|drums|pottery|painting|hobby|band|concert|novel|chess|"
            r"hiking|climbing|photography|knitting|garden\w*|singing|dance|dancing|ceramics|"
            r"woodworking|baking|cooking class)\b",
        ),
        (
            "Education",
            r"\b(?:class|course|degree|master'?s|phd|university|college|school|study|studying|"
            r"exam|learn\w*|lesson|certificat\w*|bootcamp|thesis|semester)\b",
        ),
        (
            "Work",
            r"\b(?:job|career|boss|promot\w*|company|office|manager|colleague|client|interview|hired|"
            r"resign\w*|work|startup|business|freelanc\w*)\b",
        ),
        (
            "Relationships",
            r"\b(?:wedding|married|girlfriend|boyfriend|wife|husband|partner|family|friend|"
            r"date|divorce|baby|kids?|son|daughter|parents|mom|dad)\b",
        ),
        ("Projects", r"\b(?:repaint|renovat\w*|build|building|project|app|website|remodel\w*|diy)\b"),
    )
)


def place(text: str) -> str | None:
    """The place at the start of ``text``: ``"New York City last year"`` -> ``"New York City"``."""
    tokens = text.replace(",", " , ").split()
    out: list[str] = []
    i = 0
    if len(tokens) > 1 and tokens[0].lower() == "the" and tokens[1][:1].isupper():
        out.append("the")
        i = 1
    while i < len(tokens):
        w = tokens[i]
        if w[:1].isupper() and w.lower() not in ("i",):
            out.append(w)
        elif w == "," and out and i + 1 < len(tokens) and tokens[i + 1][:1].isupper():
            out[-1] += ","
        elif (
            w.lower() in _CONNECTORS
            and out
            and i + 1 < len(tokens)
            and tokens[i + 1][:1].isupper()
            and tokens[i + 1].lower().rstrip(".,!") not in _WHEN
        ):  # "Ikea on Monday" is Ikea
            out.append(w)
        else:
            break
        i += 1
    if out and out[-1] != "the":
        return " ".join(out).replace(" ,", ",")
    if tokens and tokens[0].isalpha() and tokens[0].lower() not in _PLACE_STOP:
        low: list[str] = []
        for w in tokens[:3]:
            if not w.isalpha() or w.lower() in _PLACE_STOP:
                break
            low.append(w.capitalize())
        return " ".join(low) or None
    return None


def noun_phrase(text: str) -> str:
    """Cut an object at the first clause-level word: ``"cashews as a snack"`` -> ``"cashews"``."""
    return _NP_STOP.sub("", text.strip()).strip(" ,.;:!")


def topic(phrase: str, head: bool = False) -> str:
    """Slot topic of a noun phrase. ``head`` keeps only the head noun (``"aisle seats"`` -> ``seat``);
    otherwise the phrase minus quantifiers and generic heads (``"jazz music"`` -> ``jazz``)."""
    np = workout(_QUANTIFIERS.sub("", noun_phrase(phrase).lower()))
    np = re.sub(r"^to\s+", "", np)
    np = re.sub(
        r"^(?:drinking|eating|having|playing|listening to|watching|reading|doing|going to)\s+(?!(?:out|in|up)$)",
        "",
        np,
    )
    tokens = [w for w in re.split(r"[\s/]+", np) if w]
    if not tokens:
        return "x"
    if len(tokens) > 1 and tokens[-1] in _GENERIC_HEADS:
        tokens = tokens[:-1]
    if head:
        tokens = tokens[-1:]
    tokens[-1] = singular(tokens[-1])
    return slug(" ".join(tokens[-3:]))


def money(text: str) -> str | None:
    m = MONEY.search(text)
    return m.group(0).strip() if m else None


def category_for(text: str, default: str = "Personal") -> str:
    for cat, pattern in TOPIC_CATEGORIES:
        if pattern.search(text):
            return cat
    return default


def strip_past_time(text: str) -> str:
    return PAST_TIME.sub("", text).strip()


def split_list(text: str) -> list[str]:
    """``"Salt, Pepper and Miso"`` -> ``["Salt", "Pepper", "Miso"]``."""
    return [p.strip() for p in re.split(r",\s*(?:and\s+)?|\s+and\s+|\s+or\s+|\s*&\s*", text) if p.strip()]
