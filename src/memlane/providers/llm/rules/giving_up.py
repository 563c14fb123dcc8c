"""What a statement gives up, and what that retires: habits ("quit caffeine"), food groups a diet or a state
rules out ("went vegan", "is teetotal now"), a habit a titled object implies ("plays Elden Ring": gaming), and
the words to look the retired memories up by when they are far in meaning (``implied_terms``)."""

from __future__ import annotations

import re

from memlane.providers.llm.rules.compare import statement, stem
from memlane.providers.llm.rules.frames import (
    EXCLUSIVE,
    FOODS,
    HABIT_WORDS,
    HABITS,
    KIND_MEMBERS,
    NOT_TITLE,
    RETIRED,
    RULES_OUT,
    TITLE_VERBS,
    Frame,
    frame,
)


def _retired(new: Frame) -> tuple[set[str], set[str]]:
    """Habits the statement gives up ("quit caffeine", "does not drink anymore") and food groups it gives
    up or rules out by a state ("went vegan", "is teetotal now", "stopped eating pork")."""
    given_up = {stem(w) for w in new.left} | (new.words if new.negative else set())
    given_up_raw = set(new.left) | (set(new.tokens) if new.negative else set())
    stated = new.words | {stem(n) for n in new.names}  # "vegetarian" is a one-at-a-time value: a name
    ruled_out = set() if new.negative else {g for w in stated for g in RULES_OUT.get(w, ())}
    ruled_out |= {g for g, foods in FOODS.items() if given_up_raw & foods}
    habits = {h for h, habit_words in HABITS.items() if given_up & habit_words}
    # a habit that is a food group gives up the whole group ("stopped drinking alcohol": the Rioja too)
    return habits, ruled_out | (habits & FOODS.keys())


def habit_given_up(old: Frame, new: Frame) -> str | None:
    """``quit smoking`` against ``takes cigarette breaks``: the habit given up is implied by the old fact;
    ``is teetotal now`` against ``drinks wine with dinner``: a state that rules out what the old one eats
    or drinks. "Does not drink alcohol" leaves "drinks tea": the old shares only the verb the new says.
    A past event ("failed the driving test") is no habit to give up."""
    if old.negative or old.past:
        return None
    held = old.words | {stem(n) for n in old.names}  # "plays Xbox most nights"
    given_up, ruled_out = _retired(new)
    for habit in sorted(given_up):
        shared = held & HABITS[habit]
        if shared and not (shared <= new.words and (new.words & HABITS[habit]) - held):
            return habit
    if titled := sorted(given_up & _titled(old)):  # "quit gaming" / "plays Elden Ring most nights"
        return titled[0]
    held_raw = old.tokens | {n for name in old.names for n in name.split()}
    return next((g for g in sorted(ruled_out) if held_raw & FOODS[g]), None)


def _titled(f: Frame) -> set[str]:
    """Habits a verb with a title for its object implies ("plays Elden Ring": gaming); none when the
    statement names a listed kind ("plays tennis with Sam on Fridays")."""
    if not f.names or f.words & KIND_MEMBERS:
        return set()
    return {
        habit
        for habit, verbs in TITLE_VERBS.items()
        if re.search(rf"\b(?:{'|'.join(verbs)})\s+(?:(?!(?:{NOT_TITLE})\b)[a-z-]+\s+){{0,2}}[A-Z]", f.text)
    }


def implied_terms(candidate: str) -> list[str]:
    """Words of what the candidate retires, to find stored memories that are not near it in meaning."""
    new = frame(statement(candidate))
    given_up, ruled_out = _retired(new)
    # a one-at-a-time value retires the others of its list ("got engaged" finds "is single")
    others = (
        set() if new.negative else {w for k in new.kinds & EXCLUSIVE.keys() for w in EXCLUSIVE[k]} - new.names
    )
    titles = {w for h in given_up & TITLE_VERBS.keys() for w in TITLE_VERBS[h]}
    work = {"works", "work", "job", "living", "employed"} if RETIRED.match(new.text) else set()  # "retired"
    return sorted(
        {w for h in given_up for w in HABIT_WORDS[h]}
        | {w for g in ruled_out for w in FOODS[g]}
        | others
        | titles
        | new.left_head
        | work
    )  # "left Arup": what is given up, by name
