"""The inspector in Chromium, reading: who you act for, filters, search with its score breakdown, a
memory's history and supersede chain, and keyboard use and accessibility. Every check is on what the
page shows, compared with what the store holds."""

from __future__ import annotations

import re
import tomllib
from fnmatch import fnmatch
from importlib import resources
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import expect

from memlane import Memory
from tests.ui.a11y import low_contrast, unnamed_controls
from tests.ui.conftest import shot
from tests.ui.helpers import (
    ADMIN_KEY,
    BOUND_USER,
    drawn,
    open_as_admin,
    open_as_bound_user,
    row,
    seed,
    shown_summaries,
)


def test_the_package_data_ships_every_file_of_the_page() -> None:
    root = Path(__file__).resolve().parents[2]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"][
        "memlane"
    ]
    assets = resources.files("memlane.server") / "inspector"
    names = sorted(f.name for f in assets.iterdir())
    assert {"index.html", "inspector.js", "api.js", "inspector.css"} <= set(names)
    for name in names:
        assert any(fnmatch(f"server/inspector/{name}", p) for p in patterns), f"{name} is not package data"


def test_the_page_is_served_at_ui(base_url: str) -> None:
    with httpx.Client(base_url=base_url) as http:
        moved = http.get("/ui")
        assert moved.status_code == 308 and moved.headers["location"] == "ui/"
        page = http.get("/ui/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert '<script type="module" src="inspector.js">' in page.text
        script = http.get("/ui/inspector.js")
        assert script.status_code == 200 and "javascript" in script.headers["content-type"]
        assert http.get("/ui/nothing.js").status_code == 404
        assert (
            http.get("/v1/memory", headers={"X-Memlane-User": "x"}).status_code == 401
        )  # the data needs a key


def test_a_bound_key_sees_its_own_memories_only(page: Any, memory: Memory) -> None:
    memory.put("User keeps bees on the roof.", user_id=BOUND_USER, category="Interests")
    memory.put("User owns a sailing boat.", user_id="someone-else")
    open_as_bound_user(page)
    expect(page.locator("#pick-user")).to_be_hidden()  # nobody else to pick
    expect(row(page, "keeps bees")).to_have_count(1)
    assert shown_summaries(page) == sorted(m.summary for m in memory.list(user_id=BOUND_USER))
    expect(page.get_by_text("sailing boat")).to_have_count(0)
    expect(page.locator("#live")).to_have_text("Live updates: on")
    shot(page, "bound-user")

    page.get_by_label("API key").fill("not-a-key")
    page.get_by_role("button", name="Connect").click()
    expect(page.get_by_role("alert")).to_have_text("unknown API key (HTTP 401)")
    expect(page.locator("#main")).to_be_hidden()


def test_a_memory_shared_with_the_user_is_listed_with_its_owner(page: Any, memory: Memory) -> None:
    memory.put("User keeps bees on the roof.", user_id=BOUND_USER, category="Interests")
    shared = memory.put("User's favourite band is Zqvelorin.", user_id="someone-else")
    memory.sharing.share(shared.id, user_id="someone-else", with_users=[BOUND_USER])
    open_as_bound_user(page)
    expect(row(page, "Zqvelorin").locator(".badge.shared")).to_have_text("shared by someone-else")
    expect(row(page, "keeps bees").locator(".badge.shared")).to_have_count(0)  # the user's own: no badge


def test_an_admin_picks_a_user_and_filters_by_type_category_state_and_pinned(
    page: Any, memory: Memory
) -> None:
    seed(memory, "ines")
    memory.put("User owns a sailing boat.", user_id="someone-else")
    open_as_admin(page, "ines")
    active = sorted(m.summary for m in memory.list(user_id="ines"))
    assert shown_summaries(page) == active and "User's dog Luna is 4 years old." in active
    assert "User owns a sailing boat." not in active
    shot(page, "memories")

    cases = [
        ("#f-type", "episodic", {"type": "episodic"}),
        ("#f-pinned", "true", {"pinned": True}),
        ("#f-state", "superseded", {"state": "superseded"}),
    ]
    for select, value, filters in cases:
        page.locator(select).select_option(value)
        drawn(page)
        expected = sorted(m.summary for m in memory.list(user_id="ines", filters=filters))
        assert expected, filters
        expect(page.locator("#memories tbody tr")).to_have_count(len(expected))
        assert shown_summaries(page) == expected
        page.locator(select).select_option(index=0)
        drawn(page)
    expect(row(page, "Luna is 3")).to_have_count(0)  # back to active only

    page.get_by_role("tabpanel", name="Memories").get_by_label("Category").fill("Work")
    page.get_by_role("button", name="Apply filters").click()
    expect(page.locator("#memories tbody tr")).to_have_count(1)
    expect(row(page, "User works as a nurse.")).to_be_visible()
    page.locator("#f-pinned").select_option("true")
    expect(page.locator("#memories-caption")).to_have_text("No memories of ines match these filters.")


def test_search_shows_each_result_with_its_score_breakdown(page: Any, memory: Memory) -> None:
    seed(memory, "jonas")
    open_as_admin(page, "jonas")
    page.get_by_role("tab", name="Search").click()
    page.get_by_label("Query").fill("how old is the dog")
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page.locator("#search-caption")).to_contain_text("for “how old is the dog”")
    best = memory.search("how old is the dog", user_id="jonas", limit=10)
    hits = page.locator("#results > li")
    expect(hits).to_have_count(len(best))
    first = hits.first
    expect(first.locator(".summary")).to_have_text(best[0].memory.summary)
    assert "Luna is 4" in best[0].memory.summary
    table = first.locator("table.breakdown")
    expect(table).to_be_visible()  # the best result's breakdown is open
    b = best[0].breakdown
    for label, value in [
        ("Similarity", b.similarity),
        ("Keyword match", b.keyword),
        ("Importance", b.importance),
    ]:
        cell = table.get_by_role("row", name=re.compile(f"^{label}")).locator("td").first
        expect(cell).to_have_text(f"{value:.3f}")
    weight = table.get_by_role("row", name=re.compile("^Similarity")).locator("td").last
    expect(weight).to_have_text(f"× {b.weights['similarity']:.2f}")
    shown_final = float(
        table.get_by_role("row", name=re.compile("^Final score")).locator("td").first.inner_text()
    )
    assert abs(shown_final - b.final) < 0.005  # recency moves a little between the two searches
    expect(hits.nth(1).locator("table.breakdown")).to_be_hidden()
    hits.nth(1).get_by_text("Score breakdown").click()
    expect(hits.nth(1).locator("table.breakdown")).to_be_visible()
    shot(page, "search")


def test_history_is_a_timeline_with_the_supersede_chain_walkable_both_ways(page: Any, memory: Memory) -> None:
    seed(memory, "kai")
    open_as_admin(page, "kai")
    row(page, "Luna is 4").get_by_role("button", name="History").click()
    detail = page.locator("#detail")
    expect(page.locator("#detail-title")).to_have_text("User's dog Luna is 4 years old.")
    expect(page.locator("#detail-title")).to_be_focused()
    events = detail.locator(".timeline > li")
    expect(events).to_have_count(2)
    expect(events.nth(0).locator(".badge")).to_have_text("ADD")
    supersede = events.nth(1)
    expect(supersede.locator(".badge")).to_have_text("SUPERSEDE")
    expect(supersede.locator("del")).to_have_text("User's dog Luna is 3 years old.")
    expect(supersede.locator("ins")).to_have_text("User's dog Luna is 4 years old.")
    expect(supersede).to_contain_text("value changed from '3' to '4'")
    shot(page, "history")

    expect(detail.get_by_role("heading", name="Earlier versions (1)")).to_be_visible()
    detail.get_by_role("button", name="User's dog Luna is 3 years old.").click()
    expect(page.locator("#detail-title")).to_have_text("User's dog Luna is 3 years old.")
    expect(detail.locator(".facts .badge")).to_have_text("superseded")
    replaced = detail.get_by_role("group", name="Replaced by")
    expect(replaced).to_contain_text("User's dog Luna is 4 years old.")
    old_events = detail.locator(".timeline > li")
    expect(old_events.last).to_contain_text("superseded by")
    replaced.get_by_role("button").click()
    expect(page.locator("#detail-title")).to_have_text("User's dog Luna is 4 years old.")
    page.get_by_role("button", name="Close the memory panel").click()
    expect(detail).to_be_hidden()


def test_keyboard_only_and_accessible(page: Any, memory: Memory) -> None:
    seed(memory, "lior")
    page.goto("/ui")
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to the memories")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_label("API key")).to_be_focused()
    page.keyboard.type(ADMIN_KEY)
    page.keyboard.press("Enter")
    expect(page.get_by_label("User", exact=True)).to_be_focused()
    page.keyboard.type("lior")
    page.keyboard.press("Enter")
    expect(row(page, "Luna is 4")).to_be_visible()

    memories_tab = page.get_by_role("tab", name="Memories")
    memories_tab.focus()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_role("tab", name="Search")).to_be_focused()
    expect(page.get_by_role("tab", name="Search")).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("tabpanel", name="Search")).to_be_visible()
    page.keyboard.press("End")
    expect(page.get_by_role("tab", name=re.compile("^Consent"))).to_be_focused()
    page.keyboard.press("Home")
    expect(memories_tab).to_be_focused()

    drawn(page)  # the list is drawn again when its tab is shown
    delete = row(page, "works as a nurse").get_by_role("button", name="Delete")
    delete.focus()
    outline = delete.evaluate(
        "e => [getComputedStyle(e).outlineStyle, parseFloat(getComputedStyle(e).outlineWidth)]"
    )
    assert outline[0] != "none" and outline[1] >= 2, outline  # focus is visible
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Delete this memory?")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("button", name="Cancel")).to_be_focused()  # the safe choice first
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(delete).to_be_focused()
    assert memory.list(user_id="lior", filters={"key": "profile:occupation"})[0].state.value == "active"

    row(page, "Luna is 4").get_by_role("button", name="History").press("Enter")
    expect(page.locator("#detail-title")).to_be_focused()
    expect(page.get_by_role("status").first).to_have_text("Showing the memories of lior")
    expect(page.locator("#event-log")).to_have_attribute("aria-live", "polite")
    assert unnamed_controls(page) == []
    assert low_contrast(page) == []
