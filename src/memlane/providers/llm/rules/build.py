"""Fact + subject -> :class:`Candidate`: render the summary, namespace the key, set category and importance."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from memlane.model.candidate import Candidate
from memlane.providers.llm.rules import (
    rules_fallback,
    rules_health,
    rules_identity,
    rules_life,
    rules_plans,
    rules_prefs,
    rules_work,
    table,
)
from memlane.providers.llm.rules.facts import Clause, Fact, Subject
from memlane.providers.llm.rules.render import render

Rule = Callable[[Clause], Fact | None]
RULES: tuple[Rule, ...] = (
    *rules_identity.RULES,
    table.rule("identity"),  # rows of patterns_identity.yaml: origin, nationality, status, traits
    *rules_identity.LATE_RULES,
    table.rule("health"),  # rows of patterns_health.yaml: conditions, intolerances, smoking, diets
    *rules_health.RULES,
    *rules_work.RULES,
    table.rule("work"),  # rows of patterns_work.yaml: job status, work mode, business, degrees
    *rules_life.RULES,
    table.rule("life"),  # rows of patterns_life.yaml: no children or pets, parent of, investments
    table.rule("plans"),  # rows of patterns.yaml: decisions, plans, goals
    *rules_plans.RULES,
    table.rule("prefs"),  # rows of patterns.yaml: likes, choices, favourites, hobbies
    *rules_prefs.RULES,
    table.rule("general"),  # the other rows, after the specific rules, before the generic ones
    *rules_plans.LATE_RULES,
    *rules_fallback.RULES,  # a statement no rule read is kept as said
)
_PROPER = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)")
_DIGITS = re.compile(r"\b\d[\d,.:/]*\b")
_ATTR = {"residence:city": "residence"}


def apply(clause: Clause) -> Fact | None:
    """The first rule that recognises the clause wins (rules are ordered specific -> general)."""
    for rule in RULES:
        fact = rule(clause)
        if fact is not None:
            return fact
    return None


def subject_key(key: str | None, subject: Subject) -> str | None:
    prefix = subject.key_prefix()
    if key is None or prefix is None:
        return None
    if not prefix:
        return key
    attr = key.removeprefix("profile:").removeprefix("health:")
    return prefix + _ATTR.get(attr, attr)


def entities(summary: str, extra: Iterable[str | None]) -> list[str]:
    found = [e for e in extra if e]
    found += [m.group(1) for m in _PROPER.finditer(summary) if not m.group(1).startswith("User")]
    found += _DIGITS.findall(summary)
    out: list[str] = []
    for e in found:
        e = e.strip(" .,'")
        e = e[4:] if e.lower().startswith("the ") else e
        if e and not any(re.search(rf"\b{re.escape(e.lower())}\b", x.lower()) for x in out):
            out.append(e)
    return out[:8]


def candidate(fact: Fact, subject: Subject, important: bool = False, tags: Iterable[str] = ()) -> Candidate:
    summary = render(fact.text, subject)
    category, importance = fact.category, fact.importance
    if subject.kind == "relation":
        category = "Relationships"
        importance = 4 if fact.category == "Health" else max(1, importance - 1)
    elif subject.kind == "pet":
        category, importance = "Personal", 3
    elif subject.kind == "entity":  # a bare name: a pet's age ("Pip turned 2") or someone the user knows
        category = "Personal" if fact.key == "profile:age" else "Relationships"
        importance = max(1, importance - 1)
    if important:
        importance = max(4, min(5, importance + 1))  # the user said it matters
    return Candidate(
        summary=summary,
        type=fact.type,
        category=category,
        importance=importance,
        key=subject_key(fact.key, subject),
        tags=list(dict.fromkeys([*fact.tags, *tags])),
        entities=entities(summary, [*fact.entities, subject.name]),
    )
