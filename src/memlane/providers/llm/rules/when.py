"""Times a statement holds at, compared: one time said more or less precisely ("Saturday mornings" /
"Saturdays" / "at weekends") is one time; Monday and Thursday are two (``frames._typed`` reads it)."""

from __future__ import annotations

# a day inside a span of days: "on Saturdays" is "at weekends"
SPANS = {
    "weekend": {"saturday", "sunday"},
    "weekday": {"monday", "tuesday", "wednesday", "thursday", "friday"},
}


def within(a: str, b: str) -> bool:
    """``a`` is ``b`` or a part of it: "saturday morning" is on a "saturday", a "saturday" is at the "weekend"."""
    head = a.split()[0]
    return a == b or set(b.split()) < set(a.split()) or head in SPANS.get(b, ())


def times_differ(old: frozenset[str], new: frozenset[str]) -> bool:
    """Both say when, and some time on one side falls in no time of the other ("saturday" and "weekend"
    are one time said more or less precisely; "monday" and "thursday" are two)."""

    def fits(x: str, ys: frozenset[str]) -> bool:
        return any(within(x, y) or within(y, x) for y in ys)

    return bool(old and new) and not (all(fits(x, new) for x in old) and all(fits(y, old) for y in new))
