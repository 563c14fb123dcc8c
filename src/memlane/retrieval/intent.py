"""What a question asks for: recall of past conversation, and its time window.

Recall intent ("remember what we talked about", "what did I tell you about", "what did we decide")
raises the share of episodic memories among the candidates and the weight of recency; a time phrase
becomes a window that filters or boosts (see :mod:`memlane.retrieval.timephrases`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from memlane.retrieval.history import is_history
from memlane.retrieval.timephrases import TimeWindow, find_window

RECALL = re.compile(
    r"\b(?:"
    r"(?:do|can|could)\s+you\s+(?:still\s+)?(?:remember|recall)"
    r"|remember\s+(?:when|what|how|that|the\s+time)"
    r"|remind\s+me"
    r"|what\s+(?:did|have|had)\s+(?:we|i)\s+(?:talk(?:ed)?|discuss(?:ed)?|chat(?:ted)?|say|said|tell|told|"
    r"mention(?:ed)?|decide(?:d)?|agree(?:d)?|plan(?:ned)?|cover(?:ed)?)"
    r"|what\s+was\s+(?:it\s+)?(?:that\s+)?(?:we|i)\s+(?:talked|discussed|said|decided)"
    r"|(?:did|have)\s+(?:we|i)\s+(?:ever\s+)?(?:talk|discuss|mention|tell\s+you)"
    r"|(?:we|i)\s+(?:talked|discussed|spoke|chatted)\s+about"
    r"|last\s+time\s+we"
    r"|our\s+(?:last|previous|earlier)\s+(?:chat|conversation|talk|session|discussion)"
    r")\b",
    re.I,
)
INTENTS = ("auto", "recall", "plain")
# a question asking what to be careful about ("what should you keep in mind when suggesting games?"): what
# matters most about the user (an allergy, a condition) answers it better than what is merely on topic
CAUTION = re.compile(
    r"\b(?:keep|bear|have) in mind|\bbe (?:careful|aware|mindful|wary)\b|\bwatch out\b|\btake into account\b|"
    r"\banything (?:i|you|we|they) should (?:know|remember|consider|avoid)\b|\bwhat should (?:you|i|the assistant) "
    r"(?:avoid|watch out for|be careful)",
    re.I,
)


@dataclass(frozen=True)
class QueryPlan:
    """How one question is searched: recall intent, an optional time window, whether it asks
    about the past (:mod:`memlane.retrieval.history`) and whether it asks what to be careful about."""

    recall: bool = False
    window: TimeWindow | None = None
    history: bool = False
    caution: bool = False  # asks what to be careful about: importance counts more (search.rerank)


def is_recall(query: str) -> bool:
    return RECALL.search(query) is not None


def plan_query(
    query: str, now: datetime, *, tz: str = "UTC", intent: str | None = None, time_phrases: bool = True
) -> QueryPlan:
    """``intent``: None or "auto" detects recall intent, "recall" / "plain" force it on / off."""
    if intent not in (None, *INTENTS):
        raise ValueError(f"intent must be one of {', '.join(INTENTS)}, got {intent!r}")
    recall = is_recall(query) if intent in (None, "auto") else intent == "recall"
    window = find_window(query, now, tz) if time_phrases else None
    return QueryPlan(
        recall=recall,
        window=window,
        history=not recall and is_history(query),
        caution=CAUTION.search(query) is not None,
    )
