"""Time phrases and recall intent against fixed "now" values, in UTC and another time zone."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memlane.retrieval.history import is_history
from memlane.retrieval.intent import is_recall, plan_query
from memlane.retrieval.timephrases import find_window

# Wednesday 15 April 2026, 10:00 UTC
NOW = datetime(2026, 4, 15, 10, 0, tzinfo=UTC)


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("What did I decide yesterday?", day(2026, 4, 14), day(2026, 4, 15)),
        ("what happened the day before yesterday", day(2026, 4, 13), day(2026, 4, 14)),
        ("anything today?", day(2026, 4, 15), day(2026, 4, 16)),
        ("What did we talk about last week?", day(2026, 4, 6), day(2026, 4, 13)),
        ("plans for this week", day(2026, 4, 13), day(2026, 4, 20)),
        ("what did I do last weekend", day(2026, 4, 11), day(2026, 4, 13)),
        ("what did I buy last month", day(2026, 3, 1), day(2026, 4, 1)),
        ("in March", day(2026, 3, 1), day(2026, 4, 1)),
        ("in May", day(2025, 5, 1), day(2025, 6, 1)),  # the latest May before the day of asking
        ("two days ago", day(2026, 4, 13), day(2026, 4, 14)),
        ("3 days ago", day(2026, 4, 12), day(2026, 4, 13)),
        ("a week ago", day(2026, 4, 6), day(2026, 4, 13)),
        ("two months ago", day(2026, 2, 1), day(2026, 3, 1)),
        ("last year", day(2025, 1, 1), day(2026, 1, 1)),
        ("What did Maria share on 3 June, 2023?", day(2023, 6, 3), day(2023, 6, 4)),
        ("on June 3, 2023", day(2023, 6, 3), day(2023, 6, 4)),
        ("on 8th December, 2023", day(2023, 12, 8), day(2023, 12, 9)),
        ("What did Mel paint in July 2023?", day(2023, 7, 1), day(2023, 8, 1)),
        ("How many times in 2023?", day(2023, 1, 1), day(2024, 1, 1)),
        ("on 2025-12-24", day(2025, 12, 24), day(2025, 12, 25)),
        ("on Monday", day(2026, 4, 13), day(2026, 4, 14)),
        ("last Wednesday", day(2026, 4, 8), day(2026, 4, 9)),
    ],
)
def test_windows_in_utc(text: str, start: datetime, end: datetime) -> None:
    window = find_window(text, NOW)
    assert window is not None, text
    assert (window.start, window.end) == (start, end)


@pytest.mark.parametrize(
    "text", ["What does Caroline do recently?", "where do I live", "Luna may be 4", "on 31 February, 2023"]
)
def test_no_window(text: str) -> None:
    assert find_window(text, NOW) is None


def test_yesterday_in_the_users_time_zone() -> None:
    # 01:30 on 15 April in Tokyo is still 14 April in UTC: "yesterday" is Tokyo's 14 April
    now = datetime(2026, 4, 14, 16, 30, tzinfo=UTC)
    window = find_window("what did I decide yesterday", now, "Asia/Tokyo")
    assert window is not None
    assert window.start == datetime(2026, 4, 13, 15, 0, tzinfo=UTC)
    assert window.end == datetime(2026, 4, 14, 15, 0, tzinfo=UTC)
    assert window.contains(datetime(2026, 4, 14, 2, 0, tzinfo=UTC))
    assert not window.contains(datetime(2026, 4, 14, 15, 0, tzinfo=UTC))


def test_window_distance() -> None:
    window = find_window("last week", NOW)
    assert window is not None
    assert window.distance_days(day(2026, 4, 8)) == 0
    assert window.distance_days(day(2026, 4, 14)) == 1.0
    assert window.days == 7


@pytest.mark.parametrize(
    "text",
    [
        "Remember what we talked about last time?",
        "What did I tell you about my sister?",
        "what did we decide about the budget",
        "Do you remember my dog's name?",
        "did we discuss the trip",
        "remind me what we said about Lisbon",
    ],
)
def test_recall_intent(text: str) -> None:
    assert is_recall(text)


@pytest.mark.parametrize(
    "text", ["Where does the user live?", "What did Caroline research?", "How old is Luna?"]
)
def test_no_recall_intent(text: str) -> None:
    assert not is_recall(text)


def test_plan_overrides() -> None:
    assert plan_query("where do I live", NOW, intent="recall").recall
    assert not plan_query("what did we talk about", NOW, intent="plain").recall
    assert plan_query("yesterday", NOW, time_phrases=False).window is None
    with pytest.raises(ValueError):
        plan_query("x", NOW, intent="sometimes")


@pytest.mark.parametrize(
    "text",
    [
        "When did Caroline go to the support group?",
        "What activities has Melanie done with her family?",
        "Where has Melanie camped?",
        "Which cities has John been to?",
        "Was the concert good?",
    ],
)
def test_history_question(text: str) -> None:
    assert is_history(text)
    assert plan_query(text, NOW).history


@pytest.mark.parametrize(
    "text",
    [
        "Where does the user live?",
        "What is Caroline's job?",
        "How many cats does she have?",
        "What did Melanie paint recently?",
        "When did we last talk about the budget?",
    ],
)
def test_not_history_question(text: str) -> None:
    assert not is_history(text)


def test_recall_intent_is_not_history() -> None:
    plan = plan_query("what did we talk about", NOW)
    assert plan.recall and not plan.history
