"""Time phrases in a question as a window of time, relative to when it is asked.

"yesterday", "last week", "in March", "two days ago", "on 3 June, 2023", "in 2023", ... become a
half-open window ``[start, end)`` in UTC, computed in the user's time zone: "yesterday" asked at
01:00 in Lisbon is the Lisbon calendar day before. Weeks are ISO weeks (Monday to Sunday). A month
or weekday without a year is the latest one before the day of asking. Vague words ("recently",
"lately") are not windows. The first phrase found wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from memlane.model.time_buckets import zone

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
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "a couple of": 2,
    "couple of": 2,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a few": 3,
    "few": 3,
}

_M = r"(?P<month>" + "|".join(MONTHS) + r"|" + "|".join(m[:3] for m in MONTHS) + r")\.?"
_D = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_Y = r"(?P<year>(?:19|20)\d\d)"
_N = r"(?P<n>\d+|" + "|".join(sorted(NUMBERS, key=len, reverse=True)) + r")"
_WD = r"(?P<weekday>" + "|".join(WEEKDAYS) + r")"
PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("iso", re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<month>\d\d)-(?P<day>\d\d)\b")),
    ("dmy", re.compile(rf"\b{_D}(?:\s+of)?\s+{_M},?\s+{_Y}\b", re.I)),
    ("mdy", re.compile(rf"\b{_M}\s+{_D},?\s+{_Y}\b", re.I)),
    ("my", re.compile(rf"\b{_M},?\s+{_Y}\b", re.I)),
    ("dm", re.compile(rf"\bon\s+(?:the\s+)?{_D}(?:\s+of)?\s+{_M}\b", re.I)),
    ("md", re.compile(rf"\bon\s+{_M}\s+{_D}\b", re.I)),
    ("before_yesterday", re.compile(r"\bthe\s+day\s+before\s+yesterday\b", re.I)),
    ("yesterday", re.compile(r"\byesterday\b", re.I)),
    ("today", re.compile(r"\b(?:today|earlier\s+today|this\s+morning)\b", re.I)),
    ("ago", re.compile(rf"\b{_N}\s+(?P<unit>day|week|month|year)s?\s+ago\b", re.I)),
    ("last_unit", re.compile(r"\b(?:last|previous|past)\s+(?P<unit>week|weekend|month|year)\b", re.I)),
    ("this_unit", re.compile(r"\bthis\s+(?P<unit>week|weekend|month|year)\b", re.I)),
    ("weekday", re.compile(rf"\b(?:on|last|this\s+past)\s+{_WD}\b", re.I)),
    ("month", re.compile(rf"\b(?:in|during|since|last)\s+{_M}\b", re.I)),
    ("year", re.compile(rf"\b(?:in|during|of)\s+{_Y}\b", re.I)),
]


@dataclass(frozen=True)
class TimeWindow:
    """``[start, end)`` in UTC; ``phrase`` is the text it came from."""

    start: datetime
    end: datetime
    phrase: str

    def contains(self, moment: datetime | None) -> bool:
        return moment is not None and self.start <= moment < self.end

    @property
    def days(self) -> float:
        return (self.end - self.start).total_seconds() / 86400.0

    def distance_days(self, moment: datetime) -> float:
        """0 inside the window, else days to its nearest edge."""
        if moment < self.start:
            return (self.start - moment).total_seconds() / 86400.0
        if moment >= self.end:
            return (moment - self.end).total_seconds() / 86400.0
        return 0.0


def _month(text: str) -> int:
    t = text.lower().rstrip(".")
    return next(i + 1 for i, m in enumerate(MONTHS) if m.startswith(t) and len(t) >= 3)


def _count(text: str) -> int:
    t = " ".join(text.lower().split())
    return int(t) if t.isdigit() else NUMBERS[t]


def _add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def _month_span(year: int, month: int) -> tuple[date, date]:
    first = date(year, month, 1)
    return first, _add_months(first, 1)


def _latest_month(today: date, month: int) -> tuple[date, date]:
    year = today.year if month <= today.month else today.year - 1
    return _month_span(year, month)


def _latest_day(today: date, month: int, day: int) -> date:
    this_year = date(today.year, month, day)
    return this_year if this_year <= today else date(today.year - 1, month, day)


def _span(kind: str, m: re.Match[str], today: date) -> tuple[date, date]:
    g = m.groupdict()
    if kind == "ago":
        return _ago(_count(g["n"]), g["unit"].lower(), today)
    if kind in ("last_unit", "this_unit"):
        return _this_or_last(g["unit"].lower(), kind == "last_unit", today)
    return _dated(kind, g, today)


def _dated(kind: str, g: dict[str, str], today: date) -> tuple[date, date]:
    """A phrase that names its day, month or year (or a day relative to today)."""
    one = timedelta(days=1)
    if kind == "iso":
        d = date(int(g["year"]), int(g["month"]), int(g["day"]))
    elif kind in ("dmy", "mdy"):
        d = date(int(g["year"]), _month(g["month"]), int(g["day"]))
    elif kind in ("dm", "md"):
        d = _latest_day(today, _month(g["month"]), int(g["day"]))
    elif kind == "before_yesterday":
        d = today - 2 * one
    elif kind == "yesterday":
        d = today - one
    elif kind == "today":
        d = today
    elif kind == "weekday":
        d = today - timedelta(days=(today.weekday() - WEEKDAYS.index(g["weekday"].lower())) % 7 or 7)
    elif kind == "my":
        return _month_span(int(g["year"]), _month(g["month"]))
    elif kind == "month":
        return _latest_month(today, _month(g["month"]))
    else:
        year = int(g["year"])
        return date(year, 1, 1), date(year + 1, 1, 1)
    return d, d + one


def _ago(n: int, unit: str, today: date) -> tuple[date, date]:
    """``n`` days, weeks, months or years ago: that whole day, week, month or year."""
    if unit == "day":
        d = today - timedelta(days=n)
        return d, d + timedelta(days=1)
    if unit == "week":
        start = today - timedelta(days=today.weekday()) - timedelta(weeks=n)
        return start, start + timedelta(weeks=1)
    if unit == "month":
        start = _add_months(today.replace(day=1), -n)
        return start, _add_months(start, 1)
    return date(today.year - n, 1, 1), date(today.year - n + 1, 1, 1)


def _this_or_last(unit: str, back: bool, today: date) -> tuple[date, date]:
    """This or last week, weekend, month or year."""
    monday = today - timedelta(days=today.weekday())
    if unit == "week":
        start = monday - timedelta(weeks=1) if back else monday
        return start, start + timedelta(weeks=1)
    if unit == "weekend":
        saturday = monday + timedelta(days=5)
        if back or saturday > today:
            saturday -= timedelta(weeks=1)
        return saturday, saturday + timedelta(days=2)
    if unit == "month":
        start = _add_months(today.replace(day=1), -1 if back else 0)
        return start, _add_months(start, 1)
    year = today.year - 1 if back else today.year
    return date(year, 1, 1), date(year + 1, 1, 1)


def find_window(text: str, now: datetime, tz: str = "UTC") -> TimeWindow | None:
    """The window named by the first time phrase in ``text`` as of ``now``, or None."""
    local_zone = zone(tz)
    today = now.astimezone(local_zone).date()
    best: tuple[int, str, re.Match[str]] | None = None
    for kind, pattern in PATTERNS:
        m = pattern.search(text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), kind, m)
            if kind in ("iso", "dmy", "mdy", "my"):
                break  # a full date outranks a vaguer phrase that starts earlier
    if best is None:
        return None
    _, kind, m = best
    try:
        first, last = _span(kind, m, today)
    except (ValueError, KeyError, StopIteration):
        return None  # "31 February", a month name that is not one
    start = datetime.combine(first, time.min, local_zone)
    end = datetime.combine(last, time.min, local_zone)
    return TimeWindow(start=start.astimezone(zone("UTC")), end=end.astimezone(zone("UTC")), phrase=m.group(0))
