"""Related memories in the context block: up to two indented ``related:`` bullets under the memory they
are linked to, never a memory already in the block, within the budget (retrieved memories first),
within the agent's allowlist, and off with ``MEMORY_CONTEXT_RELATED=false``. Over SQLite and
PostgreSQL with the real local embedder."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from memlane import Memory
from memlane.model.config import Settings
from memlane.retrieval.tokens import estimate_tokens
from tests.formation_helpers import local_embedder

U = "maya"
QUERY = "what does the user's dog eat?"


def open_mem(location: str, **settings: Any) -> Memory:
    """Two semantic memories a block (so a small store has memories the block leaves out)."""
    chosen = {"memory_context_topn": 2, **settings}
    return Memory(location, embedder=local_embedder(), settings=Settings(db=location, **chosen))


@pytest.fixture
def mem(location: str) -> Iterator[Memory]:
    m = open_mem(location)
    yield m
    m.close()


def seed(mem: Memory) -> dict[str, str]:
    """A dog memory the query finds, and memories about other things linked to it."""
    ids = {}
    for name, summary, category in [
        ("food", "User's dog Luna eats grain-free kibble.", "Relationships"),
        ("treats", "User's dog Luna gets carrots as treats.", "Relationships"),
        ("vet", "User's vet is Dr. Silva in Alfama.", "Health"),
        ("walker", "User pays a walker 15 euros a week.", "Finance"),
        ("sister", "User's sister lives in Madrid.", "Relationships"),
    ]:
        ids[name] = mem.put(summary, user_id=U, category=category).id
    mem.link(ids["food"], ids["vet"], user_id=U, strength=0.9)
    mem.link(ids["walker"], ids["food"], user_id=U, strength=0.6)  # either end of an edge counts
    mem.link(ids["food"], ids["sister"], user_id=U, strength=0.3)
    return ids


def lines(text: str) -> list[str]:
    return text.splitlines()


def test_linked_memories_appear_as_related_bullets_under_their_memory(mem: Memory) -> None:
    ids = seed(mem)
    block = mem.context(QUERY, user_id=U, budget_tokens=2000)
    shown = [h.memory.id for h in block.semantic]
    assert ids["food"] in shown
    text = lines(block.text)
    at = text.index("- [Relationships] User's dog Luna eats grain-free kibble.")
    related_shown = [r.memory.id for r in block.related]
    assert len(block.related) <= 2 and related_shown
    # the strongest edges first, each right under the dog memory, never a memory shown above or below
    expected = [i for i in (ids["vet"], ids["walker"], ids["sister"]) if i not in shown][:2]
    assert related_shown == expected
    bullets = {
        ids["vet"]: "  - related: [Health] User's vet is Dr. Silva in Alfama.",
        ids["walker"]: "  - related: [Finance] User pays a walker 15 euros a week.",
        ids["sister"]: "  - related: [Relationships] User's sister lives in Madrid.",
    }
    assert text[at + 1 : at + 1 + len(expected)] == [bullets[i] for i in expected]
    assert all(r.to == ids["food"] for r in block.related)
    assert len(set(shown) | set(related_shown)) == len(shown) + len(related_shown)
    assert block.tokens <= 2000 and block.tokens == estimate_tokens(block.text)


def test_a_memory_already_in_the_block_is_not_repeated_as_related(mem: Memory) -> None:
    ids = seed(mem)
    mem.link(ids["food"], ids["treats"], user_id=U, strength=1.0)  # the strongest edge, but shown already
    block = mem.context(QUERY, user_id=U, budget_tokens=2000)
    assert {ids["food"], ids["treats"]} == {h.memory.id for h in block.semantic}
    assert ids["treats"] not in [r.memory.id for r in block.related]
    assert block.text.count("User's dog Luna gets carrots as treats.") == 1


def test_related_bullets_never_push_a_retrieved_memory_out_of_the_budget(mem: Memory) -> None:
    ids = seed(mem)
    full = mem.context(QUERY, user_id=U, budget_tokens=2000)
    main = [ln for ln in lines(full.text) if not ln.startswith("  - related:")]
    budget = -(-sum(estimate_tokens(ln + "\n") for ln in main) // 1)  # the retrieved lines exactly
    tight = mem.context(QUERY, user_id=U, budget_tokens=budget)
    assert [h.memory.id for h in tight.semantic] == [h.memory.id for h in full.semantic]
    assert tight.related == [] and tight.dropped == 0
    assert ids["food"] in [h.memory.id for h in tight.semantic]


def test_the_setting_turns_them_off(location: str) -> None:
    with open_mem(location, memory_context_related=False) as off:
        seed(off)
        block = off.context(QUERY, user_id=U, budget_tokens=2000)
        assert block.related == [] and "related:" not in block.text
        assert "User's dog Luna eats grain-free kibble." in block.text


def test_deleted_memories_and_categories_outside_the_agents_allowlist_are_not_shown(location: str) -> None:
    mem = open_mem(location, memory_context_topn=1)
    ids = seed(mem)
    mem.delete(ids["vet"], user_id=U)
    block = mem.context(QUERY, user_id=U, budget_tokens=2000)
    assert ids["vet"] not in [r.memory.id for r in block.related] and "Dr. Silva" not in block.text
    # the stylist agent reads preferences and interests only
    food = mem.put("User prefers organic food for the dog Luna.", user_id=U, category="Preferences").id
    hobby = mem.put("User enjoys baking dog biscuits.", user_id=U, category="Interests").id
    for one in (food, hobby):
        mem.link(one, ids["walker"], user_id=U, strength=1.0)  # Finance: not the stylist's
    mem.link(food, hobby, user_id=U, strength=0.5)
    styled = mem.context(QUERY, user_id=U, budget_tokens=2000, agent="stylist")
    [shown] = [h.memory.id for h in styled.semantic]
    other = hobby if shown == food else food
    assert [(r.memory.id, r.to) for r in styled.related] == [(other, shown)]
    assert "walker" not in styled.text and styled.text.count("  - related: ") == 1
    mem.close()


def test_another_users_links_never_show(mem: Memory) -> None:
    seed(mem)
    lena_food = mem.put("Lena's dog eats raw food.", user_id="lena").id
    lena_secret = mem.put("Lena's salary is 90k.", user_id="lena").id
    mem.link(lena_food, lena_secret, user_id="lena")
    block = mem.context(QUERY, user_id=U, budget_tokens=2000)
    assert all(r.memory.user_id == U for r in block.related)
    assert "salary" not in block.text
