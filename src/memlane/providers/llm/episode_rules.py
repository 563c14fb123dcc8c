"""The extractive episode summary (offline): a finished turn becomes an episode only when it
has an outcome, either an event or decision the extractor found in the user's words ("I've decided to
cancel my gym membership") or a tool result; the approach is that statement as extracted, the topic
its object ("the gym membership"). A decision the extractor could not read as a fact but the user
announced as one ("decision made: for our trip we're taking the night train", "final answer, the
blue one"; or after it: "taking the night train, decided") is the outcome too: the approach is the announced clause, put in the third person. A topic
longer than a few words is cut to its topic phrase (:mod:`memlane.providers.llm.rules.topic_phrase`), and
a tool result's topic is the topic phrase of the user's request ("the 9:40 train to Porto"). Nothing
is invented: a turn without an outcome is skipped."""

from __future__ import annotations

import re
from collections.abc import Sequence

from memlane.model.candidate import ChatMessage, Episode, Extraction
from memlane.model.enums import MemoryType
from memlane.providers.llm.rules.facts import USER
from memlane.providers.llm.rules.render import render
from memlane.providers.llm.rules.text import expand_contractions
from memlane.providers.llm.rules.topic_phrase import MAX_WORDS, topic_phrase

TOPIC_MAX = 80
_LEAD = re.compile(
    r"^(?:the )?user(?:'s)?\s+(?:has |have |had |is |finally |just |also )*"
    r"(?:(?:going with|went with|gone with|cancelling|canceling|unsubscribing from|decided|chose|agreed|planned|promised|started|stopped|began|opted|wanted|signed up|booked|"
    r"accepted|declined|rejected|bought|sold|finished|completed|moved|switched|joined|quit|left|got|went|"
    r"renewed|cancelled|canceled|set up|made|took|tried|said no to|said yes to|turned down|turning down|turned|"
    r"turning|declining|accepting|taking|settled on|settling on|opted for|opting for|passed on|passing on)\b)\s*(?:to\s+(?:\w+\s+)?)?(?:up\s+for\s+|for\s+|on\s+)?",
    re.IGNORECASE,
)
# a decision announced before it is told: what follows the marker (to the sentence's end) is the decision
_ANNOUNCED = re.compile(
    r"\b(?:(?:the )?decision(?:'s| is| has been)? (?:made|taken|final)|(?:my |our |the )?final (?:decision|answer|call)"
    r"(?: is)?|(?:it is|it's|that's|that is) (?:decided|settled|final)|(?:I|we)(?:'ve| have)? (?:decided|made up "
    r"(?:my|our) minds?|made (?:my|our|the) (?:decision|choice)|settled it)|"
    # "ok decided, I'll upgrade the RAM", "decided this morning: I'm donating ...": opening the message, "I" left out
    r"^(?:(?:ok(?:ay)?|so|well|right|alright|yeah)[\s,]+)?decided)"
    r"(?: (?:this morning|this afternoon|this evening|today|tonight|last night|yesterday|in the end|finally))?"
    r"\s*[:,;.!-]+\s*(?P<what>[^.!?\n]{12,})",
    re.IGNORECASE,
)
_CHOSEN = re.compile(
    r"^(?:a|an|the|my|our)\s", re.IGNORECASE
)  # "decided: a murder mystery party at my place"
_VERB = re.compile(r"\b(?:is|are|was|were|will|would|has|have)\b", re.IGNORECASE)
# ... or after it: "going with the ferry instead, decided." / "we're keeping the old sofa - final answer"
_ANNOUNCED_AFTER = re.compile(
    r"^(?P<what>[^.!?\n]{12,}?)\s*[,;:-]+\s*(?:(?:it's |it is |that's |that is )?(?:decided|settled|final)|"
    r"(?:my |our |the )?final (?:decision|answer|call)|decision made|done deal)\s*[.!]*\s*$",
    re.IGNORECASE,
)
_GERUND = re.compile(r"^(?:\w+ing)\b", re.IGNORECASE)  # a decision told without its subject: "going with ..."
_COURTESY = re.compile(
    r"^(?:thanks?|thank you|cheers|great|cool|nice|awesome|perfect|sounds good|appreciate)\b", re.I
)
_SOMEONE = re.compile(r"\b(?:I|we)\b")  # a decision says who does what: "we are booking", "I am keeping"
_STEP = re.compile(r"\b(?:next|i will|i'll|we will|we'll|going to|plan to|tomorrow)\b", re.IGNORECASE)


def topic_of(statement: str) -> str:
    """The object of an extracted statement: "User decided to cancel their gym membership." -> "the
    user's gym membership"; a statement with no recognised verb is its own topic."""
    text = statement.strip().rstrip(".!")
    rest = _LEAD.sub("", text, count=1) or text
    rest = re.sub(r"^(?:to|for|on|up for|that)\s+", "", rest)
    rest = re.sub(
        r"^(?:they|the user) (?:are|is|will|have|has)(?: not)? \w+(?: (?:with|for|on|to))?\s+", "", rest
    )  # "that they are selling X"
    rest = re.sub(r"\s+down$", "", rest)  # "turned the offer down"
    rest = re.sub(r"^(?:their|his|her)\b", "the user's", rest)
    rest = re.sub(r"\b(?:their|his|her)\b", "the user's", rest)
    return rest if len(rest) <= TOPIC_MAX else rest[:TOPIC_MAX].rsplit(" ", 1)[0]


def short_topic(statement: str) -> str:
    """The object of ``statement`` (:func:`topic_of`) when it is a short phrase, else the topic phrase
    of it: "User decided that for the reunion they are hiring the boathouse, not the pub." -> "the reunion"."""
    t = topic_of(statement)
    if len(t.split()) <= MAX_WORDS and not t.lower().startswith("user"):
        return t
    return topic_phrase(t)[:TOPIC_MAX]


def announced(text: str) -> str | None:
    """The decision a user announced ("ok, decision made: we're booking the cabin") in the third person."""
    m = _ANNOUNCED.search(text) or _ANNOUNCED_AFTER.match(text.strip())
    if not m:
        return None
    what = expand_contractions(m.group("what").strip(" ,;:-"))
    what = re.sub(r"^(?:ok(?:ay)?|so|well|right|yes|yeah)\b[\s,]*", "", what, flags=re.IGNORECASE)
    if _GERUND.match(what):
        what = f"I am {what[0].lower()}{what[1:]}"
    if len(what.split()) < 3 or _COURTESY.match(what):
        return None
    if _CHOSEN.match(what) and not _VERB.search(what):  # the option chosen, named
        return render(f"I decided on {what[0].lower()}{what[1:]}", USER)
    if not _SOMEONE.search(what):
        return None
    return render(f"I decided that {what}", USER)


def summarize(extraction: Extraction, messages: Sequence[ChatMessage]) -> Episode:
    """The episode of a turn from the extractor's episodic candidates and the turn's tool results."""
    events = [c for c in extraction.candidates if c.type is MemoryType.EPISODIC]
    tools = [m for m in messages if m.role == "tool" and m.content.strip()]
    if events:
        best = max(events, key=lambda c: c.importance)
        approach = " ".join(dict.fromkeys(c.summary for c in events[:2]))
        user_text = " ".join(m.content for m in messages if m.role == "user")
        return Episode(
            should_create=True,
            topic=short_topic(best.summary),
            approach=approach,
            outcome="next_step" if _STEP.search(user_text) else "decision",
            category=best.category,
            importance=best.importance,
            tags=best.tags[:5],
            reason="an event or decision in the turn",
        )
    said = next((m.content for m in reversed(messages) if m.role == "user"), "")
    decision = announced(said)
    if decision:
        return Episode(
            should_create=True,
            topic=short_topic(decision),
            approach=decision,
            outcome="decision",
            category="Personal",
            importance=3,
            tags=["decision"],
            reason="a decision the user announced",
        )
    if tools:
        asked = next((m.content for m in reversed(messages) if m.role == "user"), "")
        topic = topic_phrase(asked)[:TOPIC_MAX] if asked.strip() else "a tool call"
        result = " ".join(tools[-1].content.split())
        approach = f"A tool returned: {result[:200].rstrip()}" + ("" if result.endswith(".") else ".")
        return Episode(
            should_create=True,
            topic=topic,
            approach=approach,
            outcome="tool_result",
            reason="a tool result in the turn",
        )
    return Episode(should_create=False, reason="routine turn: no event, decision or tool result")
