"""History questions: a question about what happened or has happened, not about how things are now.

"When did Caroline go to the support group?", "What has Melanie painted?", "Where was the concert?"
ask about the past: how recent a memory is says nothing about whether it answers them, so recency
only breaks ties (``MEMORY_HISTORY_RECENCY_FACTOR``, default one third of the recency weight).
"Where do I live?" or "What is my job?" ask about the present, where the newest memory is the best
guess, and keep the full weight; so does a history question that asks for the latest ("What did I
do recently?", "When did we last talk?").

The test is on the words only: a past auxiliary (did, was, were, ever) or a perfect (has / have /
had followed within three words by a past participle), and no word asking for the present or the
latest. Recall intent ("what did we talk about") is decided first and keeps its own factor.
"""

from __future__ import annotations

import re

_PAST = re.compile(r"\b(?:did|didn't|was|wasn't|were|weren't|ever)\b", re.I)
_PARTICIPLE = (
    r"(?:\w+ed|been|done|gone|made|taken|seen|won|bought|read|written|met|had|got|gotten|begun|grown|"
    r"known|heard|found|built|given|taught|brought|thought|felt|kept|left|lost|paid|put|said|sent|spent|"
    r"told|worn|eaten|drunk|flown|sung|swum|run|drawn|chosen|driven|ridden|become|come|held|led|"
    r"sold|shown|stood|struck|understood|visited|tried|started|joined)"
)
_PERFECT = re.compile(rf"\b(?:has|have|had|hasn't|haven't)\b(?:\s+\S+){{0,3}}?\s+{_PARTICIPLE}\b", re.I)
_LATEST = re.compile(
    r"\b(?:recent(?:ly)?|latest|lately|last|now|nowadays|current(?:ly)?|still|today|tonight|yet|anymore|"
    r"these\s+days|this\s+(?:week|month|year|morning|evening)|at\s+the\s+moment)\b",
    re.I,
)


def is_history(query: str) -> bool:
    """Whether ``query`` asks about the past rather than the present or the latest."""
    if _LATEST.search(query):
        return False
    return bool(_PAST.search(query) or _PERFECT.search(query))
