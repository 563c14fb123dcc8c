"""The inspector in Chromium, writing: edit, pin, delete (with confirmation), restore and purge; the
consent queue's accept and reject; and live updates from the SSE stream when another client writes.
Each action is checked twice: on the page, and in the store."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from memlane import Memory
from memlane.model.enums import MemoryState
from tests.ui.conftest import shot
from tests.ui.helpers import open_as_admin, row, seed


def state_of(memory: Memory, user: str, memory_id: str) -> MemoryState:
    return memory.get(memory_id, user_id=user).state


def test_edit_pin_delete_restore_and_purge(page: Any, memory: Memory) -> None:
    coffee = memory.put("User drinks coffee every morning.", user_id="omar", category="Preferences").id
    memory.put("User lives near the harbour.", user_id="omar", category="Personal")
    open_as_admin(page, "omar")

    row(page, "drinks coffee").get_by_role("button", name="Edit").click()
    dialog = page.get_by_role("dialog", name="Edit memory")
    expect(dialog.get_by_label("Summary")).to_have_value("User drinks coffee every morning.")
    dialog.get_by_label("Summary").fill("User drinks green tea every morning.")
    dialog.get_by_label("Importance").select_option("5")
    dialog.get_by_label("Reason").fill("changed habit")
    shot(page, "edit-dialog", full_page=False)  # a modal covers the viewport
    dialog.get_by_role("button", name="Save").click()
    expect(dialog).to_be_hidden()
    expect(row(page, "drinks green tea")).to_have_count(1)
    expect(row(page, "drinks coffee")).to_have_count(0)
    expect(page.get_by_role("status").first).to_have_text("Saved: User drinks green tea every morning.")
    stored = memory.get(coffee, user_id="omar")
    assert (stored.summary, stored.importance) == ("User drinks green tea every morning.", 5)
    row(page, "green tea").get_by_role("button", name="History").click()
    update = page.locator("#detail .timeline > li").last
    expect(update.locator(".badge")).to_have_text("UPDATE")
    expect(update).to_contain_text("by api")
    expect(update).to_contain_text("changed habit")
    expect(update.locator("del").first).to_have_text("User drinks coffee every morning.")

    row(page, "green tea").get_by_role("button", name="Pin").click()
    expect(row(page, "green tea").locator(".badge.pinned")).to_have_text("pinned")
    expect(row(page, "green tea").get_by_role("button", name="Unpin")).to_be_visible()
    assert memory.get(coffee, user_id="omar").pinned

    row(page, "green tea").get_by_role("button", name="Delete").click()
    confirm = page.get_by_role("dialog", name="Delete this memory?")
    expect(confirm).to_contain_text("can be restored")
    shot(page, "confirm-delete", full_page=False)
    confirm.get_by_role("button", name="Cancel").click()
    expect(confirm).to_be_hidden()
    assert state_of(memory, "omar", coffee) is MemoryState.ACTIVE  # cancel changes nothing
    row(page, "green tea").get_by_role("button", name="Delete").click()
    confirm.get_by_label("Reason").fill("asked to forget")
    confirm.get_by_role("button", name="Delete").click()
    expect(row(page, "green tea")).to_have_count(0)
    assert state_of(memory, "omar", coffee) is MemoryState.SOFT_DELETED

    page.get_by_label("State").select_option("soft_deleted")
    deleted = row(page, "green tea")
    expect(deleted.locator(".badge")).to_contain_text(["pinned", "deleted"])
    deleted.get_by_role("button", name="Restore").click()
    expect(page.get_by_role("status").first).to_contain_text("Restored")
    expect(row(page, "green tea")).to_have_count(0)  # no longer deleted
    assert state_of(memory, "omar", coffee) is MemoryState.ACTIVE

    page.get_by_label("State").select_option("active")
    row(page, "green tea").get_by_role("button", name="Purge").click()
    purge = page.get_by_role("dialog", name="Purge this memory for good?")
    expect(purge).to_contain_text("cannot be undone")
    purge.get_by_role("button", name="Purge for good").click()
    expect(row(page, "green tea")).to_have_count(0)
    expect(row(page, "near the harbour")).to_have_count(1)
    purged = memory.get(coffee, user_id="omar")
    assert purged.state is MemoryState.PURGED and "tea" not in purged.summary
    expect(page.locator("#detail-title")).to_have_text("[purged]")  # the open panel shows the tombstone
    expect(page.locator("#detail .facts .badge")).to_have_text("purged")
    expect(page.locator("#detail .timeline > li").last.locator(".badge")).to_have_text("PURGE")
    expect(page.locator("#detail")).not_to_contain_text("green tea")  # nor in the history


def test_the_consent_queue_accepts_and_rejects_proposals(page: Any, memory: Memory) -> None:
    for user in ("pia", "quinn"):
        seed(memory, user)
    open_as_admin(page, "pia")
    consent_tab = page.get_by_role("tab", name="Consent 1 pending")
    expect(consent_tab).to_be_visible()
    consent_tab.click()
    card = page.locator("#proposals > li")
    expect(card).to_have_count(1)
    expect(card.get_by_role("heading")).to_have_text("city: User lives in Lisbon.")
    expect(card).to_contain_text("User lives in Porto.")
    shot(page, "consent")
    card.get_by_role("button", name="Accept").click()
    page.get_by_role("dialog", name="Accept the new city?").get_by_role("button", name="Accept").click()
    expect(page.locator("#consent-caption")).to_have_text("No pending proposals.")
    expect(page.get_by_role("tab", name="Consent", exact=True)).to_be_visible()  # no count left
    [city] = memory.list(user_id="pia", filters={"key": "profile:residence:city"})
    assert city.summary == "User lives in Lisbon."
    page.get_by_label("Proposals").select_option("accepted")
    expect(card).to_have_count(1)
    expect(card).to_contain_text("accepted by admin:key#1")

    page.get_by_label("User", exact=True).fill("quinn")
    page.get_by_role("button", name="Open user").click()
    page.get_by_label("Proposals").select_option("pending")
    page.locator("#proposals > li").get_by_role("button", name="Reject").click()
    reject = page.get_by_role("dialog", name="Reject the new city?")
    reject.get_by_label("Reason").fill("not true")
    reject.get_by_role("button", name="Reject").click()
    expect(page.locator("#consent-caption")).to_have_text("No pending proposals.")
    [city] = memory.list(user_id="quinn", filters={"key": "profile:residence:city"})
    assert city.summary == "User lives in Porto."
    [decided] = memory.proposals.list(user_id="quinn", status="rejected")
    assert (decided.note, decided.decided_by) == ("not true", "admin:key#1")


def test_writes_by_another_client_appear_live(page: Any, memory: Memory) -> None:
    open_as_admin(page, "ravi")
    expect(page.locator("#memories-caption")).to_have_text("No memories of ravi match these filters.")
    expect(page.locator("#live")).to_have_text("Live updates: on")

    memory.add_turn("I play the cello.", user_id="ravi", wait=True)  # not through the page
    cello = row(page, "plays the cello")
    expect(cello).to_have_count(1)
    log = page.locator("#event-log > li")
    expect(log.filter(has_text="created")).to_contain_text("User plays the cello.")
    [stored] = memory.list(user_id="ravi")
    memory.put("User has a cat named Miso.", user_id="ravi")
    expect(row(page, "cat named Miso")).to_have_count(1)

    row(page, "plays the cello").get_by_role("button", name="History").click()
    memory.update(stored.id, user_id="ravi", summary="User plays the cello in an orchestra.", actor="someone")
    expect(page.locator("#detail-title")).to_have_text(
        "User plays the cello in an orchestra."
    )  # the open panel too
    expect(page.locator("#detail .timeline > li").last).to_contain_text("by someone")
    memory.delete(stored.id, user_id="ravi")
    expect(row(page, "cello")).to_have_count(0)
    expect(log.first).to_contain_text("deleted")
    memory.put("User is learning Portuguese.", user_id="someone-else")  # another user's write is not shown
    memory.put("User likes jazz.", user_id="ravi")
    expect(row(page, "likes jazz")).to_have_count(1)
    expect(page.locator("#event-log")).not_to_contain_text("Portuguese")
    shot(page, "live-updates")
