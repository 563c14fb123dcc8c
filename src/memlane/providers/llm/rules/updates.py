"""Updates of what is already stored: a terse clause that names a stored memory and gives it a new value.

With ``"User takes 10mg of lisinopril every morning."`` stored, ``"doc bumped my lisinopril up to 20 mg"``
states no fact a rule reads, but it shares the anchor word "lisinopril" with the stored memory and
carries a dose, a kind of value the stored memory holds exactly once. So the stored sentence is proposed
with the dose replaced, ``"User takes 20mg of lisinopril every morning."``, tagged ``update``: the judge
sees the same frame with another value and supersedes the stored memory, with history.

A clause refers to a stored memory by a content word both share (``wedding``, ``gym membership``), by its
subject (``"Ava's six now"`` with ``"User's daughter Ava is 5 years old."``; ``"Nan turned 90"`` with the
user's grandmother), or, for a rate told with the same unit and period and a change word (``"doing 40k a
week these days"`` with ``"runs 25 km a week"``), by that unit, and for a year of study told with a change
word (``"a fifth-year now"`` with ``"a fourth-year med student"``), by that year. It does not fire on a clause about someone
else (``"my sister's rent is 900"`` against the user's rent), on a negated, planned or conditional clause,
on a value the stored memory holds twice or not at all, on a name in another role (``"a blog post about
Lisbon"`` against ``"blog runs on WordPress"``), or when two stored memories fit equally well.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from memlane.model.candidate import Candidate
from memlane.model.enums import MemoryType
from memlane.providers.llm.rules.build import entities
from memlane.providers.llm.rules.compare import Who, read, same_name, stem
from memlane.providers.llm.rules.facts import Subject
from memlane.providers.llm.rules.frames import frame
from memlane.providers.llm.rules.helpers import category_for
from memlane.providers.llm.rules.lexicon import words
from memlane.providers.llm.rules.subject import pet_or_relation
from memlane.providers.llm.rules.values import Value, read_values

TAG = "update"
_STAGES = frozenset({"year", "grade", "form"})  # a stage the user is at, one at a time: "a fourth-year"
_I = re.IGNORECASE
_NOT_YET = re.compile(  # planned, decided, wished or conditional: not true yet
    r"\b(?:will|going to|gonna|wants? to|decided to|intends? to|aims? to|trying to|plans? to|planning to|hope to|"
    r"hoping to|about to|might|(?-i:may)|could|would|should|if|unless|tomorrow|next (?:week|month|year|time)|"
    r"thinking of|considering)\b",
    _I,
)
_NEGATED = re.compile(
    r"\b(?:not|never|no longer|n't|no)\b(?!\s+(?:the\s+)?(?:\d|[a-z]+(?:st|nd|rd|th)\b))", _I
)
# a new name in a stored memory needs a word that says it replaced the old one
_NAME_CHANGE = re.compile(
    r"\b(?:now|these days|nowadays|anymore|any more|switched|moved|moving|migrated|changed|instead|replaced|"
    r"no longer|from now on|finally|over to)\b",
    _I,
)
_CHANGE = re.compile(
    r"\b(?:now|these days|nowadays|lately|upped|bumped|raised|increased|lowered|reduced|cut|dropped|went up|went "
    r"down|put (?:\w+ )*(?:up|down)|moved|changed|switched|new|since)\b",
    _I,
)
_EPISODE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")  # "On 2026-03-25 (W13) we discussed ...": an episode
_POSSESSIVE = re.compile(r"\b([\w-]+)'s\b")
_LEAD = re.compile(
    r"^(?:(?:my|our|the)\s+)?(?:(?:little|baby|older|younger|big|best|old)\s+)?([\w-]+)(?:\s+([\w-]+))?", _I
)
_CLAUSE_END = re.compile(r",|;| - | and | but | because | so |\.?$")
_FIRST_PERSON = re.compile(r"\b(?:I|my|me|mine|we|our|us)\b", _I)
_UNSAID = Who("unsaid")  # "the wedding's june 27th": whose, the clause does not say
_GENERIC = frozenset(
    stem(w)
    for w in words(
        "time thing things stuff people way day days life home work job today "
        "week weekend morning evening night year month lot bit"
    )
)


@dataclass(frozen=True)
class Update:
    summary: str
    anchor: int  # how strongly the clause names the stored memory: more is surer


def _who(clause: str, known: Mapping[str, Subject]) -> Who:
    """Who the clause is about: someone with a possessive (``"my sister's rent"``), someone it starts with
    (``"Nan turned 90"``, ``"Ava is six now"``) unless it then says ``my`` or ``I``, else the user."""

    def person(word: str) -> Who | None:
        low = word.lower().removesuffix("'s")
        if low in known:
            s = known[low]
            return Who(s.kind, s.noun or "", (s.name or "").lower())
        found = pet_or_relation(low)
        return Who(found[0], found[1], "") if found else None

    for m in _POSSESSIVE.finditer(clause):
        if found := person(m.group(1)):
            return found
    if lead := _LEAD.match(clause):
        for word in (lead.group(1), lead.group(2) or ""):
            if word and (found := person(word)):
                named = person(lead.group(2)) if lead.group(2) and word == lead.group(1) else None
                if found.kind != "entity" and named and named.name:
                    found = Who(found.kind, found.noun, named.name)
                rest = clause[lead.end() :]
                return Who() if _FIRST_PERSON.search(rest) else found
            if word.lower() not in ("my", "our"):
                break
    if _FIRST_PERSON.search(clause):  # "upped my mileage", "we moved the wedding"
        return Who()
    return _UNSAID


def _same_subject(clause: Who, stored: Who) -> bool:
    if clause == _UNSAID:
        return True
    if clause.kind == "user" or stored.kind == "user":
        return clause.kind == stored.kind
    if clause.name and stored.name:
        return clause.name == stored.name
    return clause.noun == stored.noun and bool(clause.noun)


def _compatible(new: Value, old: Value) -> bool:
    if new.kind in ("date", "day") and old.kind == "date":
        return old.number is not None or new.kind == "date"
    if new.kind in ("ordinal", "day") and old.kind == "ordinal":
        return new.kind == "day" or new.unit == old.unit
    if new.kind == "weekday" or old.kind == "weekday":
        return new.kind == old.kind
    if new.kind == old.kind == "num":
        units = {new.unit, old.unit}
        if new.period and old.period and new.period != old.period:
            return False
        if new.unit.startswith("count:"):
            return new.unit == old.unit
        return len(units) == 1 or "" in units or units in ({"k", "money"}, {"k", "distance"})
    return new.kind == old.kind == "name" and bool(new.before) and new.before == old.before


def _is_old(new: Value, old: Value) -> bool:
    if new.kind == "name":
        return same_name(new.text.lower(), old.text.lower())
    if new.kind == "date" and old.kind == "date":
        return new.text.lower().replace("the ", "") == old.text.lower().replace("the ", "")
    return new.number == old.number


def _ordinal_suffix(n: int) -> str:
    return "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def _number_text(new: Value, old: Value) -> str:
    n = new.number or 0.0
    text = new.text
    if new.kind == "ordinal" or new.kind == "day":
        return f"{int(n)}{_ordinal_suffix(int(n))}" if old.text[:1].isdigit() else text
    if not text[:1].isdigit():  # "six" where the stored memory wrote "5"
        text = str(int(n)) if n == int(n) else str(n)
    if new.unit == "k" and old.unit == "money":
        text = f"{int(n * 1000):,}"
    return text


def _replacement(old: Value, new: Value, clause: str, summary: str) -> tuple[str, int]:
    """The text that takes the old value's place, and where in ``summary`` the replaced part ends."""
    if old.kind == "date" and new.kind == "day":
        day = re.search(r"\d{1,2}(st|nd|rd|th)?", old.text)
        if day is None:
            return old.text, old.end
        n = int(new.number or 0)
        suffix = _ordinal_suffix(n) if day.group(1) else ""
        return old.text[: day.start()] + str(n) + suffix + old.text[day.end() :], old.end
    if new.kind == "date":
        return " ".join(
            w.capitalize() if w.isalpha() and w.lower() != "the" else w for w in new.text.split()
        ), old.end
    if new.kind == "name":
        return new.text, old.end
    if new.kind == "weekday":  # "tuesdays" where it said "on Thursdays": Tuesdays
        weekday = new.text.lower().removesuffix("s")
        return weekday.capitalize() + ("s" if old.text.lower().endswith("s") else ""), old.end
    text = _number_text(new, old)
    unit = clause[new.end : new.unit_end].strip()
    old_unit = summary[old.end : old.unit_end].strip()
    if (
        unit
        and old_unit
        and new.unit == old.unit
        and unit.lower().rstrip("s") != old_unit.lower().rstrip("s")
    ):
        return f"{text} {unit}", old.unit_end  # "30 miles" where it said "25 km": the unit changes too
    return text, old.end


def _substitute(summary: str, old: Value, new: Value, clause: str) -> str:
    text, end = _replacement(old, new, clause, summary)
    at = old.start + len(text)
    updated = summary[: old.start] + text + summary[end:]
    if new.kind in ("name", "ordinal", "weekday") and not re.search(r"\bnow\b", summary, _I):
        # "now" where the new value's clause ends ("on the 6th floor now and there is no lift"), so the judge
        # reads a change of one value and not a second fact
        stop = _CLAUSE_END.search(updated, at)
        at = stop.start() if stop else len(updated)
        updated = updated[:at] + " now" + updated[at:]
    return updated


def _pairs(clause: str, new_values: list[Value], old_values: list[Value]) -> list[tuple[Value, Value]]:
    """(new, old): each clause value that fits exactly one stored value and differs from it."""
    pairs = []
    for new in new_values:
        targets = [old for old in old_values if _compatible(new, old)]
        if len(targets) != 1 or _is_old(new, targets[0]):
            continue
        if new.kind == "name" and not (
            _NAME_CHANGE.search(clause) or targets[0].text.lower() in clause.lower()
        ):
            continue
        pairs.append((new, targets[0]))
    return pairs


_SWITCH = re.compile(
    r"\b(?:switch|swapp?|migrat|mov|chang|transferr?|port|jump|convert|upgrad)(?:ed|ing|e|es|s)?\b", _I
)


def _from_to(clause: str, values: list[Value], old_values: list[Value]) -> list[tuple[Value, Value]]:
    """``"migrated everything from Evernote to Obsidian"``: the clause names the stored name it replaces, then
    the new one, with a verb of switching (not "flew from Leeds to Rome")."""
    if not _SWITCH.search(clause):
        return []
    return [
        (new, old)
        for before, new in pairwise(values)
        if before.kind == new.kind == "name"
        and before.before == "from"
        and new.before in ("to", "onto", "into")
        and before.end + 4 >= new.start - len(new.before)
        for old in old_values
        if old.kind == "name"
        and same_name(before.text.lower(), old.text.lower())
        and not same_name(new.text.lower(), old.text.lower())
    ]


def _one_update(clause: str, values: list[Value], summary: str, who: Who) -> Update | None:
    stored = read(summary)
    if not _same_subject(who, stored.who):
        return None
    if (
        len(moved := _from_to(clause, values, read_values(summary))) == 1
    ):  # the old name said names the memory
        return Update(_substitute(summary, moved[0][1], moved[0][0], clause), 2)
    names = {n for n in (stored.who.name, who.name) if n}
    old_values = [v for v in read_values(summary) if v.text.lower() not in names]
    pairs = _pairs(clause, [v for v in values if v.text.lower() not in names], old_values)
    if frame(summary).past:  # an event told again is another event; "put 250 a month into" is a habit
        pairs = [(new, old) for new, old in pairs if old.period]
    # a weekday changes a habit only when said to ("went to choir practice on tuesday" is one occasion)
    pairs = [(new, old) for new, old in pairs if new.kind != "weekday" or _CHANGE.search(clause)]
    if not pairs:
        return None
    shared = (frame(summary).words & frame(clause).words) - _GENERIC  # only now: reading the clause costs
    by_subject = who.kind not in ("user", _UNSAID.kind)
    if not (shared or by_subject):  # a rate in the same unit and period, said to have changed, names it too;
        pairs = [
            (new, old)
            for new, old in pairs  # so does a year of study ("a fifth-year now")
            if (
                new.kind == "num"
                and "" not in (new.unit, old.unit)
                and not new.unit.startswith("count:")
                and bool(new.period)
                and new.period == old.period
                or new.kind == old.kind == "ordinal"
                and new.unit == old.unit in _STAGES
                and not re.match(r"[- ]\w+ of\b", clause[new.end :])
            )
            and _CHANGE.search(clause)
        ]  # ("my second year of running")
    if len({(old.start, new.number if new.kind != "name" else new.text.lower()) for new, old in pairs}) != 1:
        return None  # no new value, or two: which one is meant is a guess
    new, old = pairs[0]
    updated = _substitute(summary, old, new, clause)
    return Update(updated, len(shared) + 2 * by_subject) if updated != summary else None


def _segment(clause: str, at: int) -> str:
    """The part of ``clause`` between commas around position ``at``: a negation in a trailing aside ("...
    to Obsidian, not looking back") does not negate the value."""
    return clause[clause.rfind(", ", 0, at) + 1 : (clause.find(", ", at) + 1 or len(clause) + 1) - 1]


def propose(clause: str, existing: Sequence[str], known: Mapping[str, Subject]) -> str | None:
    """The stored summary ``clause`` updates, rewritten with the clause's new value; None when the clause
    names no stored memory, or more than one fits as well."""
    if _NOT_YET.search(clause):
        return None
    values = read_values(clause)
    if not values or any(_NEGATED.search(_segment(clause, v.start)) for v in values):
        return None
    who = _who(clause, known)
    found = [
        u
        for s in dict.fromkeys(existing)
        if s.startswith("User") and not _EPISODE.search(s) and (u := _one_update(clause, values, s, who))
    ]
    if not found:
        return None
    best = max(u.anchor for u in found)
    top = [u for u in found if u.anchor == best]
    return top[0].summary if len(top) == 1 else None


def candidate(summary: str, correction: bool) -> Candidate:
    """The update as a candidate: the stored memory's key and category when the rules read one."""
    reading = read(summary)
    return Candidate(
        summary=summary,
        type=MemoryType.SEMANTIC,
        category=reading.category or category_for(summary, "Personal"),
        importance=3,
        key=reading.key,
        tags=[TAG, *(["correction"] if correction else [])],
        entities=entities(summary, []),
    )


__all__ = ["TAG", "candidate", "propose"]
