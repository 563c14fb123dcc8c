"""One written form for values before a learned model reads a text: amounts, currencies, dates and clock
times said in several ways become the same words ("$1,850" and "1850 dollars" -> "1850 dollars";
"2026-02-08" and "Feb 8th, 2026" -> "8 february 2026"; "7am" and "07:00" -> "7:00").

These are exact rewrites (no judgement of meaning), so they stay code; the model learns the rest.
"""

from __future__ import annotations

import re

_UNITS = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
)
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
NUMBER_WORDS: dict[str, int] = {w: i for i, w in enumerate(_UNITS)} | _TENS
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTH_OF = {m: m for m in MONTHS} | {m[:3]: m for m in MONTHS} | {"sept": "september"}
# symbol or code before the amount -> the word said after it
_CURRENCY = {
    "$": "dollars",
    "usd": "dollars",
    "us$": "dollars",
    "£": "pounds",
    "gbp": "pounds",
    "€": "euros",
    "eur": "euros",
    "₹": "rupees",
    "inr": "rupees",
    "¥": "yen",
    "jpy": "yen",
    "chf": "francs",
    "cad": "canadian dollars",
    "aud": "australian dollars",
    "₦": "naira",
}
# unit words -> their symbol ("fifty milligrams" / "50 mg")
_UNIT_WORDS = {
    "milligrams": "mg",
    "milligram": "mg",
    "micrograms": "mcg",
    "grams": "g",
    "kilograms": "kg",
    "kilos": "kg",
    "kilometres": "km",
    "kilometers": "km",
    "millilitres": "ml",
    "milliliters": "ml",
    "litres": "l",
    "liters": "l",
    "lbs": "lb",
} | {u: u for u in ("mg", "mcg", "kg", "km", "ml", "lb")}
_CURRENCY_WORDS = {
    "bucks": "dollars",
    "quid": "pounds",
    "dollar": "dollars",
    "euro": "euros",
    "pound": "pounds",
    "rupee": "rupees",
}

# "one" stays a word: it is a pronoun at least as often as a number ("no one", "the blue one")
_WORD_NUMBER = re.compile(
    r"\b("
    + "|".join(_TENS)
    + r")(?:[- ]("
    + "|".join(_UNITS[1:10])
    + r"))?\b|\b("
    + "|".join(_UNITS[2:])
    + r")\b",
    re.IGNORECASE,
)
_UNIT = re.compile(
    r"\b(\d[\d.]*)\s?(" + "|".join(sorted(_UNIT_WORDS, key=len, reverse=True)) + r")\b", re.IGNORECASE
)
_THOUSANDS = re.compile(r"\b(\d{1,3})((?:,\d{3})+)\b")
_AMOUNT_K = re.compile(r"\b(\d+(?:\.\d+)?)k\b", re.IGNORECASE)
_CURRENCY_BEFORE = re.compile(
    r"(?<![\w$£€₹¥₦])(us\$|\$|£|€|₹|¥|₦|usd|gbp|eur|inr|jpy|chf|cad|aud)\s?(\d[\d.,]*)\b", re.IGNORECASE
)
_CURRENCY_AFTER = re.compile(r"\b(\d[\d.]*)\s?(usd|gbp|eur|inr|jpy|chf|cad|aud)\b", re.IGNORECASE)
_MONEY_WORD = re.compile(r"\b(\d[\d.]*)\s+(" + "|".join(_CURRENCY_WORDS) + r")\b", re.IGNORECASE)
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_NAME = r"(" + "|".join(sorted(_MONTH_OF, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_MONTH_DAY = re.compile(rf"\b{_MONTH_NAME}\s+{_DAY}\b(?:,?\s+(\d{{4}}))?", re.IGNORECASE)
_DAY_MONTH = re.compile(rf"\b(?:the\s+)?{_DAY}(?:\s+of)?\s+{_MONTH_NAME}\b(?:,?\s+(\d{{4}}))?", re.IGNORECASE)
_CLOCK = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s?([ap])(?:\.\s?m\.|\s?m\b)", re.IGNORECASE)
_CLOCK_24 = re.compile(r"\b0(\d):(\d{2})\b")
_SPACES = re.compile(r"\s+")


def _word_number(m: re.Match[str]) -> str:
    if m.group(3):
        return str(NUMBER_WORDS[m.group(3).lower()])
    tens = _TENS[m.group(1).lower()]
    return str(tens + (NUMBER_WORDS[m.group(2).lower()] if m.group(2) else 0))


def _date(day: str, month: str, year: str | None) -> str:
    name = _MONTH_OF[month.lower().rstrip(".")]
    return f"{int(day)} {name}" + (f" {year}" if year else "")


def _iso(m: re.Match[str]) -> str:
    year, month, day = m.groups()
    if not 1 <= int(month) <= 12:
        return m.group(0)
    return f"{int(day)} {MONTHS[int(month) - 1]} {year}"


def _clock(m: re.Match[str]) -> str:
    hour, minute, half = int(m.group(1)), m.group(2) or "00", m.group(3).lower()
    if hour > 12:
        return m.group(0)
    hour = hour % 12 + (12 if half == "p" else 0)
    return f"{hour}:{minute}"


def normalise_values(text: str) -> str:
    """``text`` with amounts, currencies, dates and clock times in one written form; the other words stay."""
    out = _WORD_NUMBER.sub(_word_number, text)
    out = _UNIT.sub(lambda m: f"{m.group(1)} {_UNIT_WORDS[m.group(2).lower()]}", out)
    out = _THOUSANDS.sub(lambda m: m.group(1) + m.group(2).replace(",", ""), out)
    out = _AMOUNT_K.sub(lambda m: str(round(float(m.group(1)) * 1000)), out)
    out = _CURRENCY_BEFORE.sub(lambda m: f"{m.group(2).rstrip('.,')} {_CURRENCY[m.group(1).lower()]}", out)
    out = _CURRENCY_AFTER.sub(lambda m: f"{m.group(1)} {_CURRENCY[m.group(2).lower()]}", out)
    out = _MONEY_WORD.sub(lambda m: f"{m.group(1)} {_CURRENCY_WORDS[m.group(2).lower()]}", out)
    out = _ISO_DATE.sub(_iso, out)
    out = _MONTH_DAY.sub(lambda m: _date(m.group(2), m.group(1), m.group(3)), out)
    out = _DAY_MONTH.sub(lambda m: _date(m.group(1), m.group(2), m.group(3)), out)
    out = _CLOCK.sub(_clock, out)
    out = _CLOCK_24.sub(r"\1:\2", out)
    return _SPACES.sub(" ", out).strip().rstrip(".")  # a closing full stop says nothing
