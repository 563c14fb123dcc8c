"""The inspector on a phone's width (420 px) and the words it shows while connecting: every column of a
memory, its state and its action buttons, on screen without sideways scrolling; the live badge and the
user hint in words for people."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from memlane import Memory
from tests.scripted_upstream import running_memlane
from tests.ui.conftest import shot
from tests.ui.helpers import ADMIN_KEY, open_as_admin, row

WIDTH = 420


def test_a_phone_width_shows_every_column_without_sideways_scrolling(
    browser: Any, base_url: str, memory: Memory
) -> None:
    memory.put("User prefers aisle seats on long flights to Singapore.", user_id="nadia", category="Travel")
    context = browser.new_context(viewport={"width": WIDTH, "height": 860}, base_url=base_url)
    page = context.new_page()
    try:
        open_as_admin(page, "nadia")
        assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
        memory_row = row(page, "aisle seats")
        for label in ("Type", "Category", "State", "Importance", "Updated (UTC)", "Actions"):
            box = memory_row.locator(f'td[data-label="{label}"]').bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= WIDTH, (label, box)
        for name in ("Edit", "Pin", "Delete"):
            button = memory_row.get_by_role("button", name=name)
            box = button.bounding_box()
            assert box is not None and box["x"] + box["width"] <= WIDTH, (name, box)
        expect(memory_row.locator('td[data-label="State"]')).to_contain_text("active")
        memory_row.get_by_role("button", name="Pin").click()
        expect(memory_row.get_by_role("button", name="Unpin")).to_be_visible()  # the buttons work there too
        expect(page.locator("#live")).to_have_text("Live updates: on")
        shot(page, "phone-420")
    finally:
        context.close()


def test_connecting_speaks_to_people_not_developers(browser: Any, base_url: str, memory: Memory) -> None:
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    page = context.new_page()
    try:
        page.goto(f"{base_url}/ui")
        page.get_by_label("API key").fill(ADMIN_KEY)
        page.get_by_role("button", name="Connect").click()
        expect(page.locator("#user-help")).to_have_text("Your key is an admin key: name the user to inspect.")
        expect(page.locator("#live")).to_have_text("Live updates: off")  # no error code or header name
        with running_memlane(memory) as keyless:  # no API keys: a loopback server trusts this computer
            page.goto(f"{keyless}/ui")
            page.get_by_role("button", name="Connect").click()  # no key typed
            expect(page.locator("#user-help")).to_contain_text("This server has no API keys")
            expect(page.locator("#live")).to_have_text("Live updates: off")
            page.get_by_label("User", exact=True).fill("nadia")
            page.get_by_role("button", name="Open user").click()
            expect(page.locator("#live")).to_have_text("Live updates: on")
    finally:
        context.close()
