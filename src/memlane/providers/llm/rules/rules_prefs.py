"""Habits: "I <do something> every morning" and "I used to ...".

Likes, dislikes, choices, favourites and hobbies are rows of ``patterns.yaml`` (group ``prefs``).
"""

from __future__ import annotations

import re

from memlane.providers.llm.rules.facts import Clause, Fact
from memlane.providers.llm.rules.helpers import category_for, noun_phrase, topic
from memlane.providers.llm.rules.text import slug

_I = re.IGNORECASE
_HABIT = re.compile(
    r"^I (?:usually |always |normally |often |sometimes |typically |try to )?(?P<verb>[a-z]+) (?P<v>.+?) "
    r"(?P<freq>every (?:single )?(?:day|morning|evening|night|week|weekend|month|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday)|(?:once|twice|\w+ times) (?:a|per) (?:day|week|month|year)|daily|"
    r"weekly|on weekends|on weekdays)\b",
    _I,
)
_USED_TO = re.compile(r"^I used to (?P<v>.+)$", _I)


def habit(c: Clause) -> Fact | None:
    if m := _HABIT.match(c.text):
        what = noun_phrase(m.group("v")) or m.group("v")
        t = topic(what) if re.search(r"[a-z]{3}", what.split()[-1]) else slug(m.group("verb"))
        return Fact(f"habit:{t}", m.group("freq").lower(), c.text, category_for(c.text, "Personal"), 2)
    if m := _USED_TO.match(c.text):
        return Fact(None, m.group("v").lower(), c.text, category_for(c.text, "Personal"), 2)
    return None


RULES = (habit,)
