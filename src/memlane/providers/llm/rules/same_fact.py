"""The same-fact check for the borderline similarity band, as deterministic heuristics.

Same fact when both texts are about the same subject and slot with the same value, or when their
normalised content words overlap by at least 70% with no conflicting numbers, dates, polarity or
names. A different value in the same slot is *not* the same fact: that is a contradiction, which
:func:`memlane.providers.llm.rules.conflict.classify` reports.
"""

from __future__ import annotations

import re

from memlane.model.candidate import SameFact
from memlane.providers.llm.rules import roles
from memlane.providers.llm.rules.answer_aspects import same_leaning
from memlane.providers.llm.rules.compare import (
    content_words,
    negated,
    number_set,
    proper_nouns,
    read,
    same_slot,
    same_subject,
    same_value,
    similarity,
    statement,
    stem,
)
from memlane.providers.llm.rules.frame_data import stems
from memlane.providers.llm.rules.frames import LIGHT, STANCE

THRESHOLD = 0.7
# "prefers A over B" says B is liked less: "hates B" says the same
_OVER = re.compile(r"\bprefer\w*\s+.+?\s+(?:over|to|rather than|instead of)\s+(?P<b>[^.,;]+)", re.IGNORECASE)
# categories specific enough that a mismatch means a different fact; the rest are compatible
_SPECIFIC = frozenset({"Finance", "Budget", "Health", "Education", "Travel", "Work", "Goals"})
_COMPATIBLE = {frozenset({"Finance", "Budget"})}
_ANSWER = stem("answer")  # replies and responses too (compare._SYNONYMS)
# wanting, presenting and the nouns that hold a style ("bullet points", "bulleted lists", "in a short form")
_SHOWING = stems("show shown showing convert converted converting display displayed quote quoted")
_ASKING = (
    stems(
        "like want wants need needs ask asks expect expects format formatted formatting written write writes presented "
        "present laid structured structure delivered deliver kept keep given give style form point points list lists "
        "always please"
    )
    | _SHOWING
)
# values the assistant shows: how the user wants them shown is an answer style too ("prices in Canadian dollars");
# "the gym costs £32 a month" asks for nothing
_SHOWN_VALUES = stems("price prices amount amounts cost costs figure figures")
_WANTED_SHOWN = stems("like want wants") | _SHOWING


_TIMES = stems(
    "morning mornings evening evenings night nights afternoon afternoons weekend weekends weekday weekdays "
    "lunchtime bedtime"
)


def _normal(text: str) -> str:
    return " ".join(text.lower().replace("user's", "user").strip(" .!").split())


def _category_clash(a: str | None, b: str | None) -> bool:
    if not a or not b or a == b or a not in _SPECIFIC or b not in _SPECIFIC:
        return False
    return frozenset({a, b}) not in _COMPATIBLE


def liked_less(existing: str, candidate: str) -> str | None:
    """ "prefers email over phone calls" / "hates phone calls": the negative one is about the thing the
    comparative one likes less."""
    neg, pos = (existing, candidate) if negated(existing) else (candidate, existing)
    m = _OVER.search(pos)
    if m is None:
        return None
    thing = read(neg).words - STANCE - LIGHT
    return m.group("b") if thing and thing <= content_words(m.group("b")) else None


def answer_style(words: frozenset[str]) -> frozenset[str] | None:
    """What a preference about the assistant's answers asks for, with the wanting, the presenting and the
    container nouns masked: "wants answers formatted as bullet points" and "prefers responses written as
    bulleted lists" both ask for {bullet}. None when the statement is not about answers."""
    if _ANSWER not in words and not (words & _SHOWN_VALUES and words & _WANTED_SHOWN):
        return None
    return frozenset(words - _ASKING - _SHOWN_VALUES - {_ANSWER})


def _parts(words: frozenset[str]) -> frozenset[str]:
    """A compound read as its parts: "left-handed" says "left" and "hand" ("writes with their left hand")."""
    return frozenset(stem(p) for w in words for p in w.split("-") if p)


def same_fact(existing: str, candidate: str, category: str | None = None) -> SameFact:
    existing, candidate = statement(existing), statement(candidate)
    if _normal(existing) == _normal(candidate):
        return SameFact(same_fact=True, reason="identical after normalisation")
    old, new = read(existing), read(candidate)
    if _category_clash(old.category, category):
        return SameFact(same_fact=False, reason=f"category mismatch: {old.category} vs {category}")
    if not same_subject(old, new):
        return SameFact(same_fact=False, reason=f"different subjects ({old.who} vs {new.who})")
    if others := roles.other_people(existing, candidate):
        return SameFact(
            same_fact=False, reason=f"the same kind of event with other people ({', '.join(sorted(others))})"
        )
    if (leans := same_leaning(existing, candidate)) is not None:
        return SameFact(
            same_fact=leans, reason="the same style of answers" if leans else "opposite styles of answers"
        )
    if same_slot(old, new):
        if old.positive != new.positive:
            return SameFact(same_fact=False, reason=f"same slot {old.key or old.slot} with opposite polarity")
        if same_value(old, new):
            return SameFact(same_fact=True, reason=f"same slot {old.key or old.slot} and value {old.value!r}")
        if (style := answer_style(old.words)) and style == answer_style(new.words):  # "written in Spanish"
            return SameFact(same_fact=True, reason=f"both ask for {', '.join(sorted(style))} answers")
        return SameFact(
            same_fact=False,
            reason=f"same slot {old.key or old.slot}, different value: {old.value!r} vs {new.value!r}",
        )
    if negated(existing) != negated(candidate):
        if (b := liked_less(existing, candidate)) is not None:
            return SameFact(same_fact=True, reason=f"both like {b} less")
        return SameFact(same_fact=False, reason="one states the negation of the other")
    old_numbers, new_numbers = number_set(existing), number_set(candidate)
    if old_numbers and new_numbers and old_numbers != new_numbers:
        return SameFact(same_fact=False, reason="conflicting numbers or dates")
    old_names, new_names = proper_nouns(existing), proper_nouns(candidate)
    if old_names and new_names and not old_names & new_names:
        return SameFact(same_fact=False, reason="different names or places")
    if (style := answer_style(old.words)) and style == answer_style(new.words):
        return SameFact(same_fact=True, reason=f"both ask for {', '.join(sorted(style))} answers")
    # when something is liked done is when it is done ("prefers working out in the morning" / "always exercises in
    # the morning"); what is liked is not what is done ("likes jazz" / "plays jazz")
    drop = STANCE if old.words & new.words & _TIMES else frozenset()
    score = similarity(_parts(old.words - drop), _parts(new.words - drop))
    if score >= THRESHOLD:
        return SameFact(same_fact=True, reason=f"content-word overlap {score:.0%}")
    return SameFact(same_fact=False, reason=f"content-word overlap {score:.0%} below {THRESHOLD:.0%}")
