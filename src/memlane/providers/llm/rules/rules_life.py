"""Household and money rules that count, join names and normalise amounts: pets, family members the user
has, savings, loans, income, rent, costs, budgets. Having no children or pets, being a parent of N and
investments are rows of ``patterns_life.yaml``."""

from __future__ import annotations

import re

from memlane.providers.llm.rules.facts import USER, Clause, Fact
from memlane.providers.llm.rules.helpers import MONEY, money, noun_phrase, split_list, topic
from memlane.providers.llm.rules.lexicon import NOT_NAMES
from memlane.providers.llm.rules.lexicon_world import NUMBER_WORDS
from memlane.providers.llm.rules.subject import pet_or_relation
from memlane.providers.llm.rules.text import parse_number, slug

_I = re.IGNORECASE
_COUNT = r"(?P<count>a|an|one|another|" + "|".join(w for w in NUMBER_WORDS if " " not in w) + r"|\d+)"
_HAVE = re.compile(
    r"^I (?:also |now |still |just |recently |finally )*(?:have|own|have got|got|adopted|rescued|"
    r"got myself|am the proud owner of|live with) " + _COUNT + r" (?P<rest>.+)$",
    _I,
)
_NAMES = re.compile(
    r"^(?P<noun>[a-z][\w' -]*?)(?:,? (?:named|called|whose names? (?:is|are)) |,? (?:and )?(?:her|his|its|their) "
    r"names? (?:is|are) |, )"
    r"(?P<names>[A-Z][\w'-]*(?:(?:,| and|,? &) [A-Z][\w'-]*)*)(?P<tail>.*)$"
)
_ABOUT = (
    r"(?:about |around |roughly |approximately |nearly |almost |over |just over |under |some |close to |"
    r"more than |up to )?"
)
_AMT = f"(?P<amt>{MONEY.pattern})"
_SAVINGS = re.compile(
    r"^I (?:have|have got|have saved|saved|have put away|have set aside)(?: up)? "
    + _ABOUT
    + _AMT
    + r"(?: (?:in|of|on) (?P<where>(?:my )?(?:savings|a savings account|the bank|my (?:bank )?account|"
    r"(?:an? |my )?(?:emergency|rainy day) fund|cash|investments|stocks|crypto|my pension|retirement)[\w ]*))?$",
    _I,
)
_SAVINGS_ARE = re.compile(
    r"^my (?P<what>savings|emergency fund|net worth|pension pot) (?:is|are) (?P<amt>.+)$", _I
)
_LOAN = re.compile(
    r"^I (?:am paying off|am paying back|have|owe|am repaying|still have|still owe|took out|am still paying off|"
    r"got) (?:an? |my |the )?(?:(?P<amt1>[€$£]?\d[\d,.]*k?(?: euros?| dollars?| pounds?)?) (?:(?:in|of|on|for) (?:my |a |an |the )?)?)?(?P<kind>student|"
    r"car|personal|home|business|credit card|bank)? ?(?P<what>loans?|debt|mortgage)(?: of (?P<amt2>.+))?",
    _I,
)
_INCOME = re.compile(
    r"^(?:I (?:earn|make|take home|get paid|bring in|net|gross) (?:about |around |roughly )?(?P<a>.+?)"
    r"(?: (?:a|per|every|each|an) (?:month|year|week|hour)| monthly| yearly| annually| after tax| before tax)+"
    r"|my (?:monthly |yearly |annual )?(?:salary|income|pay|take-home pay) is (?:about |around )?(?P<b>.+))$",
    _I,
)
_RENT = re.compile(
    r"^(?:I pay (?P<a>.+?) (?:in|for|on|per month (?:in|for)|a month (?:in|for)) (?:my )?(?P<k1>rent|mortgage)"
    r"|my (?:monthly )?(?P<k2>rent|mortgage)(?: payment| instalment| installment)? is (?P<b>.+))",
    _I,
)
_BARE_AMOUNT = re.compile(
    r"^(?:now |currently |about |around |roughly |only |just )?(\d{1,3}(?:,\d{3})+|\d{2,6})"
    r"(?: (?:a|per|each|every) (?:month|week|year)| monthly| now)*$",
    _I,
)
_BUDGET = re.compile(
    r"^my (?:monthly |weekly |yearly |annual |daily |total )?(?P<a>[\w' -]+?)? ?budget(?: for (?P<b>[\w' -]+?))?"
    r" is (?:now |currently |about |around |only |just )?(?P<amt>.+)$",
    _I,
)
_BUDGET_SET = re.compile(
    r"^I (?:have a budget of|budget|set aside|allow myself|allocate) (?P<amt>.+?) (?:a month |a week |per month )?"
    r"for (?P<b>.+)$",
    _I,
)
_SPEND = re.compile(
    r"^I (?:usually |typically |normally )?spend "
    + _ABOUT
    + _AMT
    + r"(?: (?:a|per|each|every) (?:month|week|year|day))? (?:on )?(?P<v>.+)$",
    _I,
)
_COSTS = re.compile(r"^my (?P<what>[\w' -]+?) (?:costs|comes to|runs|is costing) (?:me )?(?P<amt>.+)$", _I)


# "another one, a crested gecko called Fig", "a second dog, a whippet named Ziggy": the thing said again, named
_ONE_THEN = re.compile(
    r"^(?:(?:new |more )?one|(?:[a-z]+ )?(?:dog|cat|pet|puppy|kitten|bird|rabbit)),? (?:an? |this )"
    r"(?=[a-z][\w' -]*?,? (?:named|called) [A-Z])",
    _I,
)
_PET_KIND = re.compile(r"^I am an? (?P<v>[a-z][\w -]+)$", _I)


def pet_kind(c: Clause) -> Fact | None:
    """``"my dog Luna is a beagle"`` -> the pet's species or breed."""
    m = _PET_KIND.match(c.text) if c.subject.kind in ("pet", "entity") else None
    found = pet_or_relation(m.group("v")) if m else None
    if not (m and found and found[0] == "pet"):
        return None
    name = c.subject.name
    if c.subject.kind == "entity" and name:
        # "Rex is a beagle" with Rex unknown: the user has a beagle named Rex
        text = f"I have a {m.group('v')} named {name}"
        return Fact(
            f"profile:pet:{slug(name)}:species", found[1], text, "Personal", 3, entities=[name], subject=USER
        )
    return Fact("profile:species", found[1], f"I am a {m.group('v')}", "Personal", 3)


def _count(word: str) -> int:
    n = parse_number(word)
    return int(n) if n is not None else 1


def pets_and_family(c: Clause) -> Fact | None:
    m = _HAVE.match(c.text)
    if not m:
        return None
    count, rest = m.group("count"), _ONE_THEN.sub("", m.group("rest"))
    named = _NAMES.match(rest)
    noun = named.group("noun") if named else noun_phrase(rest)
    found = pet_or_relation(noun) or pet_or_relation(noun.split()[-1] if noun.split() else noun)
    if found is None:
        return None
    kind, canon, _ = found
    names = split_list(named.group("names")) if named else []
    if " and " in noun and not names:  # "a son and a daughter": several relations, no single slot
        return Fact(None, noun.lower(), f"I have {count} {noun.strip()}", "Relationships", 3)
    names = [n for n in names if n.lower() not in NOT_NAMES]
    n = _count(count)
    noun_text = noun.strip()
    if names:
        tail = named.group("tail") if named else ""
        text = f"I have {count} {noun_text} named {_join(names)}{tail}"
    else:
        text = f"I have {count} {noun_text}"
    key: str | None
    if kind == "pet":
        if len(names) == 1:
            key = f"profile:pet:{slug(names[0])}:species"
        else:
            key = None if names else f"profile:pets:{slug(canon)}"
        return Fact(key, canon, text, "Personal", 3, entities=names)
    if len(names) == 1:
        key = f"family:{slug(canon)}:{slug(names[0])}"
    elif names:
        key = None
    else:
        key = f"family:{slug(canon)}:count" if n > 1 else f"family:{slug(canon)}"
    return Fact(key, str(n) if not names else _join(names), text, "Relationships", 3, entities=names)


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def finance(c: Clause) -> Fact | None:
    if (m := _SAVINGS_ARE.match(c.text)) and MONEY.search(m.group("amt")):
        return Fact(f"finance:{slug(m.group('what'))}", money(m.group("amt")) or "", c.text, "Finance", 4)
    if (m := _SAVINGS.match(c.text)) and (m.group("where") or "saved" in c.text or "put away" in c.text):
        return Fact("finance:savings", money(m.group("amt")) or "", c.text, "Finance", 4)
    if m := _LOAN.match(c.text):
        amt = money(c.text)
        kind = (
            m.group("kind") or ("mortgage" if "mortgage" in m.group("what").lower() else "general")
        ).lower()
        if amt or m.group("kind"):
            return Fact(f"finance:loan:{slug(kind)}", amt or kind, c.text, "Finance", 4)
    if (m := _INCOME.match(c.text)) and MONEY.search(m.group("a") or m.group("b") or ""):
        return Fact("finance:income", money(c.text) or "", c.text, "Finance", 4)
    # rent is money even with no currency named: "my rent is 950 a month"
    if (m := _RENT.match(c.text)) and (amount := money(c.text) or _bare_amount(m.group("a") or m.group("b"))):
        kind = (m.group("k1") or m.group("k2")).lower()
        return Fact(f"finance:{kind}", amount, c.text, "Finance", 4)
    return None


def _bare_amount(text: str) -> str | None:
    m = _BARE_AMOUNT.match(text)
    return m.group(1) if m else None


def budget(c: Clause) -> Fact | None:
    if (m := _BUDGET.match(c.text)) and MONEY.search(m.group("amt")):
        what = m.group("b") or m.group("a") or "monthly"
        return Fact(f"budget:{topic(what)}", money(m.group("amt")) or "", c.text, "Budget", 4)
    if (m := _BUDGET_SET.match(c.text)) and MONEY.search(m.group("amt")):
        return Fact(f"budget:{topic(m.group('b'))}", money(m.group("amt")) or "", c.text, "Budget", 4)
    if m := _SPEND.match(c.text):
        return Fact(f"spending:{topic(m.group('v'))}", money(m.group("amt")) or "", c.text, "Budget", 3)
    if (m := _COSTS.match(c.text)) and MONEY.search(m.group("amt")):
        return Fact(
            f"finance:cost:{topic(m.group('what'))}", money(m.group("amt")) or "", c.text, "Finance", 3
        )
    return None


RULES = (pet_kind, pets_and_family, finance, budget)
