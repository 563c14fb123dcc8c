"""When the user is awake and at their best: late (a night owl) or early (an early bird). One slot, however it
is said: "is a night owl" / "tends to stay up really late, bed at 2am is normal" / "does not do mornings" say
one thing; "has turned into a morning person" changes it (the other end without a word of change is left to
the similarity: someone may be both, at different times). Someone else's habit ("partner is a morning person")
is read by the judge's subject check before this."""

from __future__ import annotations

import re

from memlane.model.candidate import Relation

_I = re.IGNORECASE
_LATE = re.compile(
    r"\bnight[- ]owl\b|\bstay(?:s|ing|ed)? up (?:really |very |quite |pretty )?(?:late|till|until|past)\b|"
    r"\b(?:awake|up) (?:until|till|past) (?:[1-4](?::\d\d)?\s*(?:am)?|midnight)\b|"
    r"\b(?:go|goes|going|get|gets|getting) to bed (?:at |around |after |about )?(?:[1-4](?::\d\d)?\s*am|midnight)\b|"
    r"\b(?:bed|bedtime) (?:at |around |after |about )?[1-4](?::\d\d)?\s*am\b|"
    r"\b(?:best|most productive|most creative|most alert)\b[\w ]{0,20}? (?:late at night|at night|after (?:9|10|11)\s*pm|"
    r"after (?:9|10|11)|after midnight|in the (?:small|wee) hours)\b|"
    r"\b(?:not|n't|never) (?:a |really a )?morning person\b|\b(?:do|does) not do mornings\b|\bhates? mornings\b",
    _I,
)
_EARLY = re.compile(
    r"\bearly (?:bird|riser)\b|(?<!not a )(?<!not really a )\bmorning person\b|"
    r"\b(?:best|most productive|most creative|most alert)\b[\w ]{0,20}? (?:early in the morning|in the (?:early )?mornings?|"
    r"first thing|before (?:7|8|9)\s*am)\b|"
    r"\b(?:go|goes|going|get|gets|getting) to bed (?:at |around |by |before )?(?:8|9|10)(?::\d\d)?\s*pm\b",
    _I,
)


_CHANGED = re.compile(
    r"\b(?:now|these days|nowadays|anymore|any more|no longer|turned into|become|became|becoming|"
    r"since|switched|changed|used to)\b",
    _I,
)


_TIMED = re.compile(r"\d|\bmidnight\b", _I)


def timed(text: str) -> bool:
    """The statement gives a time ("after 10pm", "until 2am", "midnight"): it says more than "a night owl"."""
    return _TIMED.search(text) is not None


def changed(text: str) -> bool:
    """The statement says the user changed ("has turned into a night owl", "an early bird now")."""
    return _CHANGED.search(text) is not None


def chronotype(text: str) -> str | None:
    """ "late" or "early" when ``text`` says which the user is; None when it says neither (or both)."""
    late, early = _LATE.search(text) is not None, _EARLY.search(text) is not None
    return "late" if late and not early else "early" if early and not late else None


# the time the user gets up, however it is said: "gets up at 5:30" / "alarm goes off at 5:30" / "wakes at 5.30"
_WAKE = re.compile(
    r"\b(?:(?:get|gets|getting|got) up|wakes? up|wakes|waking up|(?:is|am|are) up|alarm (?:goes off|is set|rings|"
    r"is)(?: for)?|(?:is|am) always up|(?:set|sets) (?:my |their |the )?alarm for|rise|rises) (?:at |by |around |about )?"
    r"(?P<time>\d{1,2}(?:[:.]\d\d)?\s*(?:am|pm)?)",
    _I,
)


def wake_time(text: str) -> str | None:
    """The clock time the statement says the user gets up at ("5:30" for "alarm goes off at 5.30 am")."""
    m = _WAKE.search(text)
    return re.sub(r"\s*am$", "", m.group("time").strip().replace(".", ":").lower()) if m else None


_BED = re.compile(
    r"\b(?:go|goes|going|get|gets|getting|went) to bed\b|\bbedtime\b|\b(?:asleep|in bed) by\b|\blights out\b",
    _I,
)


def bedtime(text: str) -> bool:
    """The statement says when the user goes to bed: another slot than when they get up."""
    return _BED.search(text) is not None


def compare(existing: str, candidate: str) -> tuple[Relation, str] | None:
    """The judge's verdict when both statements are about when the user is at their best, gets up or goes to
    bed; None when they are not (the rest of the judge decides)."""
    if (
        (was := chronotype(existing))
        and (now := chronotype(candidate))
        and (was == now or changed(candidate))
    ):
        # the other end is a change only when said to be; a time the stored one lacks says it more precisely
        if was != now:
            return "contradiction", f"another time of day at their best ({now})"
        if timed(candidate) and not timed(existing):
            return "refinement", f"the same time of day at their best ({now}), said with a time"
        return "redundancy", f"the same time of day at their best ({now})"
    if (up := wake_time(existing)) and (at := wake_time(candidate)) and (up == at or changed(candidate)):
        return ("redundancy", f"gets up at {at}") if up == at else ("contradiction", f"gets up at {at} now")
    if (wake_time(existing) and bedtime(candidate) or bedtime(existing) and wake_time(candidate)) and not (
        bedtime(existing) and bedtime(candidate)
    ):  # "wakes up at 7" / "goes to bed at 11": both hold
        return "new", "one says when the user gets up, the other when they go to bed"
    return None
