"""An offline episode's topic is a short phrase naming what the turn was about, taken from the user's
words (providers/llm/rules/topic_phrase.py), not the user's message as typed. Phrasings of our own,
apart from every scenario set."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memlane import Memory
from memlane.model.candidate import ChatMessage
from memlane.model.config import Settings
from memlane.providers.embed import get_embedder
from memlane.providers.llm.episode_rules import summarize
from memlane.providers.llm.rules.llm import RulesLLM
from memlane.providers.llm.rules.topic_phrase import topic_phrase

T0 = datetime(2026, 6, 3, 9, 0, tzinfo=UTC)
_WORD = re.compile(r"[\w'&+#@€$£.:/-]*[\w+#]")

# (what the user said, a word the topic must name)
MESSAGES = [
    ("Book the 9:40 train to Porto", "Porto"),
    ("hey so um can u pls look up flights to Lisbon for next friday thx", "Lisbon"),
    (
        "so yesterday was kind of crazy, my boss called and anyway long story short, I need help with a "
        "cover letter for the Google product manager job, it's due friday and I'm freaking out a bit",
        "Google",
    ),
    ("I am want to know about the knee surgery recovery, my doctor say is 6 week", "knee"),
    ("what's the weather in Tokyo tomorrow?", "Tokyo"),
    (
        "ok so I've been thinking for a while now and honestly I'm not sure, but could you check whether "
        "my passport renewal application went through, I sent it in March and nothing since",
        "passport",
    ),
    ("me and my wife we go to Rome in may, you can find hotel near the Colosseum?", "hotel"),
    ("can u remind me abt dentist appt tmrw 3pm", "dentist"),
    ("Please summarise the quarterly sales report for the Berlin office", "sales"),
    ("how much is a kilo of sourdough flour at the shop near me", "sourdough"),
    ("pls convert 250 usd to eur", "usd"),
]


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


@pytest.mark.parametrize(("text", "subject"), MESSAGES)
def test_the_topic_is_a_few_of_the_users_words_naming_the_subject(text: str, subject: str) -> None:
    t = topic_phrase(text)
    assert t.strip() and len(t.split()) <= 6, t
    assert _words(t) <= _words(text), t  # nothing the user did not say
    assert subject.lower() in t.lower(), t
    assert t != " ".join(text.split())  # a phrase, not the message
    assert topic_phrase(text) == t  # the same words, the same topic


@pytest.mark.parametrize("text", ["thx", "ok", "yes please", "??", "   "])
def test_the_topic_is_never_empty(text: str) -> None:
    t = topic_phrase(text)
    assert t.strip() and len(t.split()) <= 6
    assert _words(t) <= _words(text) or t == "the turn"


def test_a_tool_turns_topic_comes_from_the_user_and_not_the_assistant() -> None:
    turn = [
        ChatMessage(role="user", content="hey can u pls check the opening hours of the Prado museum"),
        ChatMessage(role="tool", content="Prado: 10:00-20:00, Sundays 10:00-19:00"),
        ChatMessage(role="assistant", content="The Prado opens at ten; tickets are cheaper online, Ana."),
    ]
    episode = summarize(RulesLLM().extract(turn), turn)
    assert episode.should_create and episode.outcome == "tool_result"
    assert "Prado" in episode.topic and len(episode.topic.split()) <= 6, episode.topic
    assert _words(episode.topic) <= _words(turn[0].content), episode.topic


def test_a_long_announced_decision_gets_a_short_topic() -> None:
    turn = [
        ChatMessage(
            role="user",
            content="right, decision made: for the reunion we're hiring the boathouse, not the pub",
        )
    ]
    episode = summarize(RulesLLM().extract(turn), turn)
    assert episode.should_create and 0 < len(episode.topic.split()) <= 6, episode.topic
    assert "boathouse" in episode.topic or "reunion" in episode.topic, episode.topic


def test_the_stored_episode_of_a_captured_turn_names_its_topic(tmp_path: Path) -> None:
    """End to end: a real SQLite store, the offline rules and the bundled local embedder."""
    db = os.path.join(tmp_path, "memlane.db")
    mem = Memory(db, embedder=get_embedder("local"), llm="rules", settings=Settings(db=db, worker=False))
    try:
        said = (
            "ugh ok so long week, anyway could u pls look up the ferry times from Split to Hvar "
            "for saturday morning, we have the kids with us"
        )
        mem.capture_turn(
            [
                {"role": "user", "content": said},
                {"role": "tool", "content": "Jadrolinija Split-Hvar: 07:30, 11:00, 14:30"},
                {"role": "assistant", "content": "There are three sailings; the 11:00 suits families best."},
            ],
            user_id="ivo",
            at=T0,
            wait=True,
        )
        [episode] = mem.list(user_id="ivo", filters={"type": "episodic"})
        m = re.search(r"we discussed (.+?)\. Approach: ", episode.summary)
        assert m, episode.summary
        stored = m.group(1)
        assert "ferry" in stored and len(stored.split()) <= 6, stored
        assert _words(stored) <= _words(said), stored
        assert "07:30" in episode.summary  # the approach is the tool result, as before
    finally:
        mem.close()
