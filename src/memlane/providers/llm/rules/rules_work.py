"""Work and study rules that check job words, places and the tool lexicon: occupation, employer, workplace,
languages and skills being learnt, graduation, tools and tech stacks. Job status, work mode, own business,
degrees and fields of study are rows of ``patterns_work.yaml``."""

from __future__ import annotations

import re

from memlane.providers.llm.rules.facts import Clause, Fact
from memlane.providers.llm.rules.helpers import category_for, noun_phrase, place, topic
from memlane.providers.llm.rules.lexicon import (
    NOT_OCCUPATIONS,
    OCCUPATION_SUFFIXES,
    OCCUPATIONS,
    RELATION_ALIASES,
    RELATIONS,
)
from memlane.providers.llm.rules.lexicon_world import LANGUAGES, MONTHS, TECH_SLOTS
from memlane.providers.llm.rules.text import slug

_I = re.IGNORECASE
_ROLE_END = (
    r"(?P<role>[\w' -]+?)(?: (?:at|for|with) (?P<org>[\w&.' -]+?))?(?: in (?P<loc>[A-Z][\w' -]*))?"
    r"(?: (?:in|since|for) [\w ]+)?(?: now| these days| nowadays)?"  # "I am a data scientist now"
)
_WORK_AS = re.compile(
    r"^I (?:currently |now |still |also |mainly |just |recently |finally )*(?:work|am working|have been working|am employed|"
    r"got a job|started working|started a new job|just started working|(?:started|began)(?= as\b)) "
    r"(?P<mid>[\w ]*?)\bas (?:an? )?"  # "started as a nurse at X": a bare "started" only right before "as"
    + _ROLE_END
    + "$",
    _I,
)
_AM_A = re.compile(
    r"^I am (?:now |currently |still |also |actually )*(?:an? )"
    + _ROLE_END
    + "(?: by (?:trade|profession))?$",
    _I,
)
_BECAME = re.compile(
    r"^I (?:just |recently |finally |have |had )*(?:became|become|(?:re-?)?qualified as|(?:re-?)?trained as|"
    r"(?:switched|changed) careers? to (?:become |being )?) (?:an? )" + _ROLE_END + "$",
    _I,
)
_JOB_IS = re.compile(r"^my (?:job|profession|occupation|role|job title) is (?:an? )?" + _ROLE_END + "$", _I)
_WORK_AT = re.compile(
    r"^I (?:currently |now |still |also )*(?:work|am working|have been working|started working|"
    r"just started working|started a new job|got a (?:new )?job|got hired|was hired) (?P<prep>at|for|by) "
    r"(?P<org>.+)$",
    _I,
)
_JOINED = re.compile(r"^I (?:just |recently )*joined (?P<org>[A-Z][\w&.' -]*)$")
_WORK_IN = re.compile(
    r"^I (?:currently |now |still )*work in (?!the office\b)(?P<v>.+)$", _I
)  # (where: work_mode)
_GRADUATED = re.compile(r"^I (?:just |recently )?graduated(?: from (?P<v>.+))?$", _I)
_LEARNING = re.compile(
    r"^I (?:am|have been|started|have started|just started|recently started)(?: also| currently| still| now)* "
    r"(?:learning|taking lessons in|"
    r"practicing|practising|taking (?:a |an )?(?:\w+ )?(?:class|course) in) (?P<v>.+)$",
    _I,
)
_USE = re.compile(
    r"^I (?:mostly |mainly |now |currently |always |still |only |also |exclusively )*(?:use|code in|"
    r"program in|develop in|write code in|work with|run) (?P<v>.+)$",
    _I,
)
_SWITCH = re.compile(
    r"^I (?:have |just |recently |finally )*(?:switched|moved|migrated|changed|went|converted) "
    r"(?:over )?from (?P<a>.+?) to (?P<b>.+)$",
    _I,
)


_NOW = re.compile(r"\b(?:now|these days|nowadays)\b", _I)


def indefinite_article(word: str) -> str:
    """``a`` or ``an`` by sound: an engineer, a UX designer, a university lecturer, an hourly worker."""
    low = word.lower()
    if re.match(r"(?:uni|use|usu|uti|eu|one|ux\b|u\.)", low) or (word[:2].isupper() and word[0] == "U"):
        return "a"
    if re.match(r"(?:hour|honest|honou?r|heir)", low) or low[:1] in "aeiou":
        return "an"
    return "a"


_WHEN_WORDS = frozenset(MONTHS) | {"spring", "summer", "autumn", "fall", "winter"}
# family words, which no role is ("a grandmother now"); a "manager" or a "mentor" may be one
_KIN = frozenset(RELATIONS) - {
    "boss",
    "manager",
    "colleague",
    "coworker",
    "teammate",
    "mentor",
    "roommate",
    "neighbour",
    "friend",
}


def _is_occupation(role: str, strong: bool) -> bool:
    tokens = role.lower().replace("-", " ").split()
    if (
        not tokens
        or tokens[-1] in NOT_OCCUPATIONS
        or (  # "a grandmother" alone (not "a stay-at-home dad")
            len(tokens) == 1 and RELATION_ALIASES.get(tokens[0], tokens[0]) in _KIN
        )
    ):
        return False
    if role.lower() in OCCUPATIONS or " ".join(role.lower().split()[-1:]) in OCCUPATIONS:
        return True
    head = tokens[-1]
    if head in OCCUPATIONS or " ".join(tokens[-2:]) in OCCUPATIONS:
        return True
    if head.endswith(OCCUPATION_SUFFIXES) or head.endswith(("man", "woman")) and head not in ("human",):
        return True
    return strong and head.endswith(("er", "or", "ian", "ant", "ent"))


def _role_fact(c: Clause, m: re.Match[str], strong: bool) -> Fact | None:
    role, org, loc = m.group("role"), m.group("org"), m.group("loc")
    role = role.strip()
    if loc and loc.strip().lower() in _WHEN_WORDS:  # "became a team lead in March": a time, not a place
        loc = None
    if not role or not _is_occupation(role, strong):
        return None
    org_name = place(org) if org else None
    if org and not org_name and re.match(r"(?:an?|the|my) ", org, _I):
        org_name = noun_phrase(org)  # "at a solar energy startup"
    article = indefinite_article(role)
    # "works as a student" / "works as a stay-at-home dad" read badly: those are states
    verb = (
        "am" if re.search(r"student|stay-at-home|homemaker|housewife|househusband", role, _I) else "work as"
    )
    text = f"I {'now ' if c.career_change else ''}{verb} {article} {role}" + (
        f" at {org_name}" if org_name else ""
    )
    text += f" in {loc.strip()}" if loc else ""
    if c.career_change:
        text += " after a career change"
    category = "Education" if role.lower().endswith("student") else "Work"
    return Fact(
        "profile:occupation",
        role.lower(),
        text,
        category,
        4,
        entities=[org_name] if org_name and org_name[0].isupper() else [],
    )


def occupation(c: Clause) -> Fact | None:
    if m := _WORK_AS.match(c.text):
        fact = _role_fact(c, m, strong=True)
        mid = m.group("mid").strip()
        if fact and mid and not c.career_change:
            fact.text = fact.text.replace("I work as", f"I work {mid} as", 1)
        return fact
    # "I am a dog groomer now": a role announced as a change is a job even when its word is not listed
    # and so is one said with where it is done ("I'm a crane operator at the port")
    announced = bool(_NOW.search(c.text))
    for pattern, strong in ((_JOB_IS, True), (_BECAME, True), (_AM_A, announced)):
        if m := pattern.match(c.text):
            return _role_fact(c, m, strong or m.group("org") is not None)
    if m := _TEACH.match(c.text):
        subject = noun_phrase(m.group("v"))
        return Fact("profile:occupation", f"{subject.lower()} teacher", c.text, "Work", 4)
    return None


def employer(c: Clause) -> Fact | None:
    m = _WORK_AT.match(c.text) or _JOINED.match(c.text)
    if m:
        org = place(m.group("org"))
        if org:
            return Fact("profile:employer", org, f"I work at {org}", "Work", 4, entities=[org])
        where = noun_phrase(m.group("org"))
        return Fact("profile:workplace", where.lower(), f"I work at {where}", "Work", 3)
    if m := _WORK_IN.match(c.text):
        raw = m.group("v")
        if raw[:1].isupper() and (p := place(raw)):
            return Fact("profile:work:city", p, f"I work in {p}", "Work", 3, entities=[p])
        field = noun_phrase(raw)
        return Fact("profile:work:field", field.lower(), f"I work in {field}", "Work", 3)
    return None


def education(c: Clause) -> Fact | None:
    if m := _LEARNING.match(c.text):
        what = noun_phrase(m.group("v"))
        first = what.split()[0].lower() if what.split() else ""
        if first in LANGUAGES:
            return Fact(
                f"education:language:{first}", first, c.text, "Education", 3, entities=[first.capitalize()]
            )
        return Fact(
            f"education:learning:{topic(what)}", what.lower(), c.text, category_for(what, "Education"), 3
        )
    if m := _GRADUATED.match(c.text):
        where = place(m.group("v")) if m.group("v") else None
        return Fact(
            "education:graduated",
            (where or "yes").lower(),
            c.text,
            "Education",
            3,
            entities=[where] if where else [],
        )
    return None


MULTI_TOOL_SLOTS = frozenset(
    {
        "programming_language",
        "database",
        "cloud",
        "containers",
        "frontend_framework",
        "web_framework",
        "notes_app",
        "streaming",
    }
)


def _tool(raw: str) -> tuple[str, str] | None:
    np = noun_phrase(re.sub(r"^(?:the |a |an )", "", raw.strip(), flags=_I))
    low = np.lower()
    for size in (3, 2, 1):
        cand = " ".join(low.split()[:size])
        if cand in TECH_SLOTS:
            return " ".join(np.split()[:size]), TECH_SLOTS[cand]
    first = np.split()[0] if np.split() else ""
    if first[:1].isupper() or any(ch.isdigit() for ch in first[1:]):
        return first, slug(first)
    return None


_TEACH = re.compile(r"^I (?:currently |also )?teach (?P<v>[\w' -]+?)(?: (?:at|in) (?P<where>.+))?$", _I)
_VEHICLE = re.compile(
    r"^I (?:drive|ride|have|own) (?:an? |my )?(?:(?:19|20)\d\d )?(?P<v>(?:[A-Z][\w-]*(?: [A-Z0-9][\w-]*)?|(?:electric |new |old |used )?"
    r"(?:car|motorbike|motorcycle|scooter|van|truck|pickup|e-bike|bike|bicycle)))\b",
)
# a tool of a known slot only (TECH_SLOTS): "I'm on Android", "got an iPhone 15 Pro", "my password manager is X"
_OWN = re.compile(
    r"^I (?:am on|am using|got|bought|have|own|ended up (?:with|getting|buying)) (?:an? |my )?(?:new )?"
    r"(?P<v>.+)$",
    _I,
)
_MY_TOOL = re.compile(r"^my (?:[a-z-]+ ){1,2}(?:is|app is) (?:an? |the )?(?P<v>(?-i:[A-Z])[\w.+ -]*)$", _I)
_SWITCH_TO = re.compile(
    r"^I (?:have |just |recently |finally )*(?:switched|moved|migrated|changed|converted) (?:over )?to (?P<b>.+)$",
    _I,
)


def tech(c: Clause) -> Fact | None:
    if m := _SWITCH.match(c.text):
        new, old = _tool(m.group("b")), _tool(m.group("a"))
        known = new or old
        if known is None:
            value = noun_phrase(m.group("b")).lower()
            return Fact(f"pref:{topic(m.group('a'))}", value, c.text, "Preferences", 3)
        value = new[0] if new else noun_phrase(m.group("b"))
        entities = [t[0] for t in (old, new) if t]
        return Fact(_tech_key(known[1], value), value.lower(), c.text, "Work", 3, entities=entities)
    if (m := _VEHICLE.match(c.text)) and not re.match(r"I (?:have|own) [A-Z]", c.text):
        v = m.group("v")
        if not (v[:1].isupper() and re.match(r"I (?:have|own)", c.text)):
            return Fact(
                "profile:vehicle", v.lower(), c.text, "Personal", 2, entities=[v] if v[:1].isupper() else []
            )
    if (m := _SWITCH_TO.match(c.text)) and (found := _tool(m.group("b"))):
        return Fact(_tech_key(found[1], found[0]), found[0].lower(), c.text, "Work", 3, entities=[found[0]])
    if m := _USE.match(c.text) or _OWN.match(c.text) or _MY_TOOL.match(c.text):
        found = _tool(m.group("v"))
        if found and (m.re is _USE or found[1] in _KNOWN_SLOTS):
            return Fact(
                _tech_key(found[1], found[0]), found[0].lower(), c.text, "Work", 3, entities=[found[0]]
            )
    return None


_KNOWN_SLOTS = frozenset(TECH_SLOTS.values())


def _tech_key(slot: str, tool: str) -> str:
    """One tool at a time for an editor or runtime; several at once for languages, databases, clouds."""
    return f"tech:{slot}:{slug(tool)}" if slot in MULTI_TOOL_SLOTS or slot == slug(tool) else f"tech:{slot}"


RULES = (occupation, employer, education, tech)
