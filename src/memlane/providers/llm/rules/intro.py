"""Introductions: one clause that lists several facts about the user, split into one clause each.

``"I am Tomás, 41, software architect from Valencia, married with a daughter"`` ->
``["I am Tomás", "I am 41", "I am a software architect from Valencia", "I am married with a daughter"]``;
``"I am a 35-year-old accountant living in Dublin"`` -> ``["I am a 35-year-old accountant",
"I live in Dublin"]``. Each part then goes through the rules like any clause.
"""

from __future__ import annotations

import re

from memlane.providers.llm.rules.lexicon import OCCUPATION_SUFFIXES, OCCUPATIONS, STATUSES, TRAITS
from memlane.providers.llm.rules.lexicon_world import DEMONYMS, DIETS

_LIST = re.compile(
    r"^(?:(?:hi|hey|hello|hiya|heya),? )?(?:I am|(?:my )?name is) (?P<rest>.+?,.+)$", re.IGNORECASE
)  # "name's Dmitri, 29, ..."
# items: ", ", ", and ", " - ", and " and " before an item that starts with a gerund ("... and working as ...")
_SEPARATOR = re.compile(
    r"\s*,\s*(?:and\s+)?|\s+-\s+|\s+and\s+(?=(?:living|working|based|studying)\s)"
    r"|\s+(?=(?:living|working|based|studying)\s+(?:in|at|for|as|near|out|from)\b)"
)  # "tester living in"
_GERUND = re.compile(r"\s+(?P<verb>living|working|based)\s+(?=in|at|for|as|near|out|from)\b")
_GERUND_AS = {"living": "I live", "working": "I work", "based": "I am based", "studying": "I study"}
_VERB_LEAD = re.compile(r"^(?:live|work|study|teach|run|own|have|speak|love|like|play)\b")
_STATE_LEAD = re.compile(r"^(?:\d|from\b|originally\b|based\b|in\b(?! case\b)|into\b|a\b|an\b|the\b|[A-Z])")
_NO_ARTICLE = STATUSES | TRAITS | DEMONYMS | DIETS | {"retired", "unemployed", "self-employed", "pregnant"}
_ADJECTIVE = re.compile(r"^[a-z]+(?:-free|-based|-intolerant|ic|ish|ful|ous|ive|able|ible)$")
_PARENT_OF = re.compile(
    r"^(?:a )?(?:proud )?(?:dad|father|mum|mom|mother|parent|grandad|grandma|grandmother|grandfather) "
    r"(?:of|to) (?P<children>(?:\w+ )?(?:boys|girls|kids|children|sons|daughters|grandchildren|"
    r"grandkids|(?:a|one) (?:boy|girl|son|daughter)))$",
    re.IGNORECASE,
)
_MAX_WORDS = 8  # a part longer than this is a sentence of its own, not an item of a list


def _part(text: str) -> str | None:
    """One item of the list as a clause of its own; None when it does not read as one."""
    text = text.strip(" .")
    if not text or len(text.split()) > _MAX_WORDS:
        return None
    if re.match(r"^(?:I|my|we|our)\b", text, re.IGNORECASE):
        return text
    if m := re.match(r"^(living|working|based|studying)\s+(.+)$", text):
        return f"{_GERUND_AS[m.group(1)]} {m.group(2)}"
    if m := _PARENT_OF.match(text):  # "dad of three boys": three sons
        children = m.group("children")
        return "I have " + re.sub(
            r"\b(boy|girl)(s?)$",
            lambda w: ("son" if w.group(1) == "boy" else "daughter") + w.group(2),
            children,
            flags=re.IGNORECASE,
        )
    if _VERB_LEAD.match(text):
        return f"I {text}"
    first = text.split()[0].lower()
    if _STATE_LEAD.match(text) or first in _NO_ARTICLE or first.endswith("ed") or _ADJECTIVE.match(first):
        return f"I am {text}"
    words = text.split()
    job = next(
        (
            w.lower()
            for w in reversed(
                words[
                    : next(
                        (i for i, w in enumerate(words) if w in ("from", "at", "in", "for", "with")),
                        len(words),
                    )
                ]
            )
        ),
        "",
    )
    if job in OCCUPATIONS or job.endswith(OCCUPATION_SUFFIXES + ("er", "or", "ian", "ant", "ect", "ef")):
        return f"I am {'an' if first[0] in 'aeiou' else 'a'} {text}"  # "software architect" -> "a software architect"
    return None


def expand(clause: str) -> list[str]:
    """The clause split into one clause per listed fact, or the clause itself when it lists none."""
    head = _GERUND.split(clause, maxsplit=1)
    if len(head) == 3 and re.fullmatch(r"I am [^,]+", head[0]):  # "I am a nurse living in Leeds"
        return [*expand(head[0]), f"{_GERUND_AS[head[1]]} {head[2]}"]
    m = _LIST.match(clause)
    if m is None:
        return [clause]
    items = [_part(p) for p in _SEPARATOR.split(m.group("rest"))]
    if any(p is None for p in items) or len(items) < 2:
        return [clause]
    return [p for p in items if p]
