"""What the inspector tests do over and over: connect as an admin or as a bound user, find a row."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from memlane import Memory

ADMIN_KEY = "admin-key-for-tests"
BOUND_USER = "lena"
BOUND_KEY = "lena-key-for-tests"

# Said in this order, the rule-based extractor stores Luna's age, supersedes it, stores the city and
# holds the move as a consent proposal; the puts add a pinned and an episodic memory.
TURNS = [
    "My dog Luna is 3 years old.",
    "Luna turned 4 last week.",
    "I live in Porto.",
    "I moved to Lisbon.",
    "I work as a nurse.",
]


def seed(memory: Memory, user: str) -> None:
    for text in TURNS:
        memory.add_turn(text, user_id=user, wait=True)
    memory.put(
        "User prefers aisle seats on flights.", user_id=user, category="Travel", pinned=True, importance=4
    )
    memory.put("User ran a half marathon in Porto.", user_id=user, type="episodic", category="Health")


def open_as_admin(page: Any, user: str) -> None:
    page.goto("/ui")
    page.get_by_label("API key").fill(ADMIN_KEY)
    page.get_by_role("button", name="Connect").click()
    page.get_by_label("User", exact=True).fill(user)
    page.get_by_role("button", name="Open user").click()
    expect(page.locator("#who")).to_have_text(f"Inspecting {user}")
    expect(page.locator("#memories-caption")).to_contain_text(f"of {user}")
    drawn(page)


def open_as_bound_user(page: Any) -> None:
    page.goto("/ui")
    page.get_by_label("API key").fill(BOUND_KEY)
    page.get_by_role("button", name="Connect").click()
    expect(page.locator("#who")).to_have_text(f"Acting for {BOUND_USER} (your key is bound to this user)")
    drawn(page)


def drawn(page: Any) -> None:
    """Wait until the memories table shows the answer to its last request (it is aria-busy meanwhile)."""
    expect(page.locator("#memories")).to_have_attribute("aria-busy", "false")


def row(page: Any, text: str) -> Any:
    """The memories table's row whose summary holds ``text``."""
    return page.locator("#memories tbody tr").filter(has_text=text)


def shown_summaries(page: Any) -> list[str]:
    texts: list[str] = page.locator("#memories tbody th.summary").evaluate_all(
        "cells => cells.map(c => [...c.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join(''))"
    )
    return sorted(texts)
