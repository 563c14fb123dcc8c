"""Health and diet rules that split lists or sort foods: allergies, medication, diets, what the user eats or
drinks. Conditions, intolerances, pregnancy, smoking and stopping a medication are rows of
``patterns_health.yaml``."""

from __future__ import annotations

import re

from memlane.providers.llm.rules.facts import Clause, Fact
from memlane.providers.llm.rules.helpers import noun_phrase, split_list, topic
from memlane.providers.llm.rules.lexicon import words
from memlane.providers.llm.rules.lexicon_world import DIETS, FOOD_GROUPS
from memlane.providers.llm.rules.text import slug

_I = re.IGNORECASE
_DEGREE = (
    r"(?:(?:very|severely|seriously|extremely|deathly|highly|mildly|slightly|quite|a bit|a little|super|"
    r"really|so|also|still|kind of) )*"
)
_ALLERGIC = re.compile(rf"^I am {_DEGREE}allergic to (?P<v>.+)$", _I)
_ALLERGY = re.compile(
    r"^I have (?:an? )?(?:(?:severe|serious|mild|bad|terrible|life-threatening|strong) )*(?:(?P<a>[\w -]+?) "
    r"allergy|allergy to (?P<b>.+)|allergies to (?P<c>.+))$",
    _I,
)
_MEDICATION = re.compile(
    r"^I (?:take|am taking|am on|have been taking|started taking|need to take)"
    r" (?:(?P<dose>\d+(?:\.\d+)? ?(?:mg|mcg|µg|ml|g|units?|iu)) (?:of )?)?(?P<med>[A-Za-z][\w-]+)(?P<rest>.*)$",
    _I,
)
_MED_HINT = re.compile(
    r"\b(?:medication|meds|pills?|tablets?|daily|every (?:morning|day|night|evening)|twice a day|"
    r"once a day|(?:a|per) day|for my|prescription|inhaler|insulin|dose|supplements?|vitamins?)\b",
    _I,
)
# a medicine's name says it is one by how it ends: "warfarin", "metformin", "ramipril", "sertraline"
_DRUG = re.compile(
    r"(?:farin|formin|pril|sartan|olol|statin|prazole|oxetine|traline|cillin|mycin|azepam|triptyline|"
    r"apine|idone|tidine|afil|umab|thyroxine|lithium|prednis\w*|glutide|gliptin|profen|codeine|"
    r"morphine|oxacin|cycline|dronate|setron|lukast)$",
    _I,
)
_NOT_MEDS = words("the a an my our bus train car taxi care time it this that them notes part a break")
_DIET_WORDS = "|".join(sorted((d.replace(" ", r"\s") for d in DIETS), key=len, reverse=True))
_DIET = re.compile(
    r"^I (?P<verb>am|have been|became|went|turned|follow|eat|am now|am still|am no longer|am not)"
    r"(?: (?:a|an|strictly|strict|fully|mostly|now|also|still|completely|lifelong|committed|mainly))*"
    rf" (?P<v>{_DIET_WORDS})"
    r"(?: diet)?(?P<rest>(?: for [\w ]+| since [\w ]+| now| anymore)?)$",
    _I,
)
_EAT = re.compile(
    r"^I (?P<neg>do not|never|no longer|rarely|hardly ever|barely|cannot|try not to|avoid|do not really)?"
    r" ?(?:(?:really|usually|mostly|always|often|still|also|only|definitely|basically|now) )*"
    r"(?P<verb>eat|drink|consume|have|avoid)(?:ing)? (?P<v>.+)$",
    _I,
)
_STOPPED = re.compile(
    r"^I (?:have |just |recently |finally )*(?:stopped|quit|gave up|cut out|cut back on|no longer|"
    r"stopped eating|stopped drinking|quit eating|quit drinking|gave up eating|gave up drinking) "
    r"(?:eating |drinking )?(?P<v>.+)$",
    _I,
)
_FOODS = frozenset().union(*FOOD_GROUPS.values()) | words(
    "sugar carbs bread pasta gluten pork sweets chocolate soda caffeine tea juice water junk processed "
    "fast spicy vegetables veggies fruit meat dairy"
)
_FOOD_TOPICS = frozenset(topic(f) for f in _FOODS)


def _items(text: str) -> list[str]:
    return [noun_phrase(p) for p in split_list(noun_phrase(text.replace(" and ", ", "))) if noun_phrase(p)]


def allergy(c: Clause) -> Fact | None:
    m = _ALLERGIC.match(c.text)
    raw = m.group("v") if m else None
    if raw is None and (m2 := _ALLERGY.match(c.text)):
        raw = m2.group("a") or m2.group("b") or m2.group("c")
    if not raw:
        return None
    items = split_list(re.sub(r"\b(?:and|or)\b", ",", noun_phrase(raw)))
    items = [i for i in items if i]
    if not items:
        return None
    key = "health:allergy:" + "_".join(slug(topic(i)) for i in items[:3])
    return Fact(key, ", ".join(i.lower() for i in items), c.text, "Health", 5, entities=items[:3])


def medication(c: Clause) -> Fact | None:
    m = _MEDICATION.match(c.text)
    if not m or m.group("med").lower() in _NOT_MEDS:
        return None
    if not (
        m.group("dose")
        or _MED_HINT.search(m.group("rest"))
        or _MED_HINT.search(m.group("med"))
        or _DRUG.search(m.group("med"))
    ):
        return None
    med = m.group("med")
    return Fact(
        f"health:medication:{slug(med)}",
        (m.group("dose") or med).lower(),
        c.text,
        "Health",
        5,
        entities=[med],
    )


def diet(c: Clause) -> Fact | None:
    m = _DIET.match(c.text)
    if not m:
        return None
    verb = m.group("verb").lower()
    value = m.group("v").lower()
    positive = "not" not in verb and "no longer" not in verb and "anymore" not in m.group("rest")
    if verb in ("became", "went", "turned"):
        text = f"I became {value}"
    elif verb == "follow" or verb == "eat":
        text = f"I follow a {value} diet"
    elif not positive:
        text = f"I am no longer {value}"
    else:
        text = f"I {'have been' if verb == 'have been' else 'am'} {value}{m.group('rest')}"
    return Fact("profile:diet", value, text, "Preferences", 4, positive=positive)


def consumption(c: Clause) -> Fact | None:
    """``I (don't) eat/drink X`` -> key ``profile:diet:<x>`` with the polarity kept."""
    if m := _STOPPED.match(c.text):
        items = _items(m.group("v"))
        if items and topic(items[0]) in _FOOD_TOPICS:
            return Fact(
                f"profile:diet:{topic(items[0])}", items[0].lower(), c.text, "Preferences", 3, positive=False
            )
        return None
    m = _EAT.match(c.text)
    if not m:
        return None
    items = _items(m.group("v"))
    if not items:
        return None
    what = topic(items[0])
    verb = m.group("verb").lower()
    if verb == "have" and what not in _FOOD_TOPICS:
        return None
    positive = not m.group("neg") and verb != "avoid"
    return Fact(f"profile:diet:{what}", items[0].lower(), c.text, "Preferences", 3, positive=positive)


RULES = (allergy, medication, diet, consumption)  # after the rows of group "health" (patterns_health.yaml)
