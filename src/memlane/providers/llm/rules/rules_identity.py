"""Identity rules that check what a pattern cannot: name, age, birthday, residence, languages spoken.

Origin, nationality, native language, relationship status and traits are rows of
``patterns_identity.yaml``."""

from __future__ import annotations

import re

from memlane.providers.llm.rules.facts import Clause, Fact
from memlane.providers.llm.rules.helpers import DATE, DAY_ONLY, place, split_list, strip_past_time
from memlane.providers.llm.rules.lexicon import NOT_NAMES
from memlane.providers.llm.rules.lexicon_world import (
    COUNTRIES,
    DEMONYMS,
    LANGUAGES,
    NUMBER_WORDS,
    TECH_SLOTS,
    provider_kind,
)
from memlane.providers.llm.rules.text import parse_number, slug

_I = re.IGNORECASE
_NUM = r"(?P<n>\d{1,3}|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")(?:-\w+)?"
_NAME_IS = re.compile(r"^my (?:first |full |real |given )?name is (?P<v>.+)$", _I)
_CALL_ME = re.compile(
    r"^(?:I am called|(?:you can |please |just )?call me|I go by|(?:everyone|people|friends) calls? me|"
    # asked of the assistant: "I'd rather you call me Alexandra", "could you call me Jo from now on"
    r"I would (?:rather|prefer|like|love)(?: it if)? you (?:to )?(?:call|called) me|(?:can|could|would) you (?:please )?call me|"
    r"I would (?:rather|prefer to|like to) be called|I want you to call me|"
    r"my nickname is|I prefer to be called|I like to be called) (?P<v>.+)$",
    _I,
)
_I_AM_NAME = re.compile(r"^I am (?P<v>[A-Z][\w'-]+(?: [A-Z][\w'-]+)?)$")
_AGE = re.compile(
    rf"^I (?:am|have just turned|just turned|turned|recently turned|am now)(?: now| just| almost| "
    rf"nearly)? {_NUM}(?: (?P<unit>years?|months?|weeks?)(?: old| young)?| yo| y/?o)?(?: now| today| this year|"
    rf" old)?(?:,? and .+)?$",
    _I,
)
_AGE_BREED = re.compile(rf"^I am an? {_NUM}[- ](?P<unit>year|month)[- ]old(?P<rest> [\w -]+)?$", _I)
_BIRTHDAY = re.compile(
    r"^(?:my (?:birthday|bday|b-day|date of birth|dob)(?: is)?|I was born)(?: on)? (?P<v>.+)$", _I
)
_LIVE = re.compile(
    r"^I (?:currently |now |still |also |actually )*(?:live|am (?:now |currently |still )?living|reside|am residing|am based|"
    r"am located|have been living|have lived|have been based|stay)(?: (?:right now|now|currently))? "
    r"(?P<prep>in|near|outside|outside of|close to|on) (?P<v>.+)$",
    _I,
)
_LIVE_WITH = re.compile(
    r"^I (?:currently |still |now |have |just |finally )*(?:live|moved in) with (?P<v>.+)$", _I
)
_MOVE = re.compile(
    r"^I (?:have |had |just |recently |finally |officially |also )*(?:moved|relocated|moved back)"
    r"(?: (?:from (?P<from>[A-Z][\w .'-]*?)))? to (?P<v>.+)$",
    _I,
)
_SPEAK = re.compile(
    r"^I (?:also |can |fluently |natively )*(?:speak|am fluent in|am native in|am conversational in)"
    r" (?P<v>.+)$",
    _I,
)


def _name_value(raw: str) -> str | None:
    tokens = raw.strip().split()
    picked = [w.strip(",.") for w in tokens[:3] if w[:1].isupper()]
    if not picked and len(tokens) == 1 and tokens[0].isalpha():
        picked = [tokens[0].capitalize()]
    if not picked or picked[0].lower() in NOT_NAMES | DEMONYMS | LANGUAGES:
        return None
    return " ".join(picked[:2])


def name(c: Clause) -> Fact | None:
    if m := _NAME_IS.match(c.text):
        value = _name_value(m.group("v"))
        if value:
            return Fact("profile:name", value, f"my name is {value}", "Personal", 4, entities=[value])
    if m := _CALL_ME.match(c.text):
        value = _name_value(m.group("v"))
        if value and c.subject.kind == "user":
            text = f"I prefer to be called {value}"
            return Fact("profile:preferred_name", value, text, "Personal", 4, entities=[value])
    if c.subject.kind == "user" and (m := _I_AM_NAME.match(c.text)):
        value = m.group("v")
        low = value.lower()
        if low not in NOT_NAMES and low not in DEMONYMS and low not in LANGUAGES and low not in COUNTRIES:
            return Fact("profile:name", value, f"my name is {value}", "Personal", 4, entities=[value])
    return None


def age(c: Clause) -> Fact | None:
    m = _AGE.match(c.text) or _AGE_BREED.match(c.text)
    if not m:
        return None
    n = parse_number(m.group("n"))
    if n is None or not 0 < n <= 125:
        return None
    unit = (m.group("unit") or "year").rstrip("s")
    unit = unit + ("s" if n != 1 else "")
    text = f"I am {m.group('n')} {unit} old"
    rest = m.groupdict().get("rest")
    if rest:
        text = f"I am a {m.group('n')}-{unit.rstrip('s')}-old{rest}"
    return Fact("profile:age", m.group("n"), text, "Personal", 4, entities=[m.group("n")])


def birthday(c: Clause) -> Fact | None:
    if (m := _BIRTHDAY.match(c.text)) and (d := DATE.search(m.group("v")) or DAY_ONLY.search(m.group("v"))):
        date = d.group(0)
        return Fact("profile:birthday", date, f"my birthday is on {date}", "Personal", 4, entities=[date])
    return None


def residence(c: Clause) -> Fact | None:
    if m := _MOVE.match(c.text):
        p = place(strip_past_time(m.group("v")))
        if not p or p.lower() in TECH_SLOTS:
            return None
        if provider_kind(p):  # "we've moved to British Gas": a supplier, not a home
            return Fact(None, p.lower(), f"I switched to {p}", "Finance", 3, entities=[p])
        origin = m.group("from")
        text = f"I live in {p}, having moved there from {origin.strip()}" if origin else f"I live in {p}"
        return Fact("profile:residence:city", p, text, "Personal", 4, entities=[p], tags=["moved"])
    if m := _LIVE.match(c.text):
        raw = strip_past_time(m.group("v"))
        p = place(raw)
        if p:
            prep = m.group("prep").lower()
            return Fact("profile:residence:city", p, f"I live {prep} {p}", "Personal", 4, entities=[p])
        return Fact("profile:home", raw.lower(), f"I live {m.group('prep').lower()} {raw}", "Personal", 2)
    if m := _LIVE_WITH.match(c.text):  # "moved in with my girlfriend": the user lives with her now
        return Fact("profile:household", m.group("v").lower(), f"I live with {m.group('v')}", "Personal", 2)
    return None


def languages(c: Clause) -> Fact | None:
    m = _SPEAK.match(c.text)
    if not m:
        return None
    found = [w.capitalize() for p in split_list(m.group("v")) for w in p.split() if w.lower() in LANGUAGES]
    if not found:
        return None
    key = f"profile:language:{slug(found[0])}" if len(found) == 1 else None
    return Fact(key, " and ".join(found), c.text, "Personal", 3, entities=found)


RULES = (name, age, birthday, residence)  # then the rows of group "identity" (patterns_identity.yaml)
LATE_RULES = (languages,)
