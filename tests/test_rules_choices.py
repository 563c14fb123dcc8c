"""Choices, announced decisions and workouts told in chat become episodes (rules_plans.choice and
event, episode_rules.announced). Phrasings of our own, apart from every scenario set."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from memlane.model.candidate import ChatMessage
from memlane.model.enums import MemoryType
from memlane.providers.llm.episode_rules import announced, topic_of
from memlane.providers.llm.rules.llm import RulesLLM
from tests.formation_helpers import open_memory

EPI = MemoryType.EPISODIC
T0 = datetime(2026, 9, 14, 18, 0, tzinfo=UTC)


def extracted(text: str) -> list[tuple[str, MemoryType]]:
    ex = RulesLLM().extract([ChatMessage(role="user", content=text)])
    return [(c.summary, c.type) for c in ex.candidates]


@pytest.mark.parametrize(
    ("text", "summary"),
    [
        ("I said yes to the secondment in Oslo", "User said yes to the secondment in Oslo."),
        (
            "we said no to the second quote from the builders",
            "User said no to the second quote from the builders.",
        ),
        ("I'm turning their counter-offer down", "User is turning their counter-offer down."),
        ("I turned the Madrid posting down in the end", "User turned the Madrid posting down in the end."),
        ("I'm declining the invitation to the gala", "User is declining the invitation to the gala."),
        (
            "I'm accepting the research fellowship at Uppsala",
            "User is accepting the research fellowship at Uppsala.",
        ),
        ("I'm taking the flat on Dock Street", "User is taking the flat on Dock Street."),
        ("we're settling on the walnut dining table", "User is settling on the walnut dining table."),
        (
            "decided we're keeping the old estate car",
            "User decided that they are keeping the old estate car.",
        ),
        ("I've made up my mind, I will stay at the bakery", None),  # a second clause: the rows' business
        ("I swam 30 lengths at lunch", "User swam 30 lengths at lunch."),
        ("I did a 10k race in the rain", "User did a 10k race in the rain."),
    ],
)
def test_choices_and_workouts_are_episodes(text: str, summary: str | None) -> None:
    found = extracted(text)
    if summary is None:
        assert all(not s.startswith("User decided that") for s, _ in found)
        return
    assert (summary, EPI) in found, found


@pytest.mark.parametrize(
    "text",
    [
        "I took the bus",
        "I'm taking a nap",
        "I did my homework",
        "I ran the numbers",
        "I'm taking it easy this week",
        "I turned the heating down",
    ],
)
def test_no_choice_without_an_offer_or_a_distance(text: str) -> None:
    assert not [s for s, t in extracted(text) if t is EPI], extracted(text)


@pytest.mark.parametrize(
    ("text", "approach", "topic"),
    [
        (
            "right, decision made: for the reunion we're hiring the boathouse, not the pub",
            "User decided that for the reunion they are hiring the boathouse, not the pub.",
            "for the reunion",
        ),
        (
            "final answer - we are going with the sage green tiles",
            "User decided that they are going with the sage green tiles.",
            "the sage green tiles",
        ),
        (
            "ok it's settled: I'm doing the night course in Welsh",
            "User decided that they are doing the night course in Welsh.",
            "the night course in Welsh",
        ),
    ],
)
def test_an_announced_decision_is_put_in_the_third_person(text: str, approach: str, topic: str) -> None:
    assert announced(text) == approach
    assert topic in topic_of(approach)


@pytest.mark.parametrize(
    "text",
    [
        "decision made. thanks",
        "have you decided yet?",
        "I like the final answer",
        "the decision was hard",
        "I've decided. Thank you, I really appreciate it",
        "it's settled then, sounds lovely to me",
    ],
)
def test_no_decision_is_read_where_none_is_told(text: str) -> None:
    assert announced(text) is None


@pytest.mark.parametrize(
    ("text", "topic"),
    [
        ("User said no to the transfer to Leeds.", "the transfer to Leeds"),
        ("User is turning the scholarship down.", "the scholarship"),
        ("User decided that they are selling their kayak.", "the user's kayak"),
    ],
)
def test_the_topic_of_a_choice_is_its_object(text: str, topic: str) -> None:
    assert topic_of(text) == topic


def test_a_turn_with_an_announced_decision_becomes_an_episode_recalled_later(location: str) -> None:
    mem = open_memory(location, RulesLLM(), worker=False)
    turn = [
        {
            "role": "user",
            "content": "okay, decision made: for the reunion we're hiring the boathouse, not the pub",
        },
        {"role": "assistant", "content": "The boathouse sounds lovely."},
    ]
    mem.capture_turn(turn, user_id="ines", at=T0, wait=True)
    [episode] = mem.list(user_id="ines", filters={"type": "episodic"})
    assert re.search(
        r"Approach: User decided that for the reunion they are hiring the boathouse", episode.summary
    )
    hits = mem.search("what did I decide for the reunion?", user_id="ines", at=T0)
    assert hits[0].memory.id == episode.id
    mem.close()


@pytest.mark.parametrize(
    ("text", "summary"),
    [
        ("fine, we're going with the oak flooring", "User is going with the oak flooring."),
        (
            "I went with the cheaper of the two quotes in the end",
            "User went with the cheaper of the two quotes in the end.",
        ),
        ("I'm cancelling my Audible plan", "User is cancelling their Audible plan."),
        ("we're unsubscribing from the veg box", "User is unsubscribing from the veg box."),
    ],
)
def test_a_pick_or_a_cancellation_is_an_episode(text: str, summary: str) -> None:
    assert (summary, EPI) in extracted(text), extracted(text)


@pytest.mark.parametrize(
    "text",
    [
        "I'm going with my cousins to Cork",
        "I'm going with the kids to the zoo",
        "we went with a friend from work",
        "I'm just going with the flow",
    ],
)
def test_going_with_people_is_no_choice(text: str) -> None:
    assert not [s for s, t in extracted(text) if t is EPI], extracted(text)


@pytest.mark.parametrize(
    ("text", "approach"),
    [
        (
            "keeping the old hatchback another year, decided.",
            "User decided that they are keeping the old hatchback another year.",
        ),
        (
            "we're painting the hall sage green - final answer",
            "User decided that they are painting the hall sage green.",
        ),
        (
            "ok, booking the sleeper train to Inverness, done deal!",
            "User decided that they are booking the sleeper train to Inverness.",
        ),
    ],
)
def test_a_decision_announced_after_it_is_told(text: str, approach: str) -> None:
    assert announced(text) == approach


@pytest.mark.parametrize(
    "text", ["nothing is decided", "is it settled?", "thanks, decided.", "it was close, final"]
)
def test_no_trailing_decision_where_none_is_told(text: str) -> None:
    assert announced(text) is None


def test_the_topic_of_a_pick_is_what_was_picked() -> None:
    assert topic_of("User is going with the oak flooring.") == "the oak flooring"
    assert topic_of("User is cancelling their Audible plan.") == "the user's Audible plan"
