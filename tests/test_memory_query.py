"""``memory.query`` (seed 001 §6) and the categories/allowlists config (seed 001 §5)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memlane import Memory
from memlane.model.category import DEFAULT_CATEGORIES
from memlane.model.config import Settings
from memlane.model.errors import FilterError, ValidationError
from memlane.providers.embed.hash import HashEmbedder
from memlane.retrieval.allowlist import CategoryConfigError, PermissionDeniedError, load_categories
from memlane.retrieval.tokens import estimate_tokens
from memlane.storage.base import Backend

U = "maya"
SEED_YAML = """
categories:
  system:
    - name: profile
      context: all
    - name: event
      context: rag
      rag_length: 30
    - name: activity
      context: rag
      rag_length: 50
  custom: [knowledge, history, tone, style, recent_activity, constraints]
allowlists:
  supervisor: [profile, goals, preferences, event, activity, relationships, tasks]
  planner:    [goals, tasks, projects]
  stylist:    [preferences, tone, style]
  researcher: [knowledge, interests, history]
  executor:   [tasks, recent_activity, constraints]
"""


def seed(m: Memory, user: str = U) -> None:
    m.put_many(
        [
            {
                "summary": "User must deploy the billing service on Friday.",
                "category": "Tasks",
                "importance": 4,
            },
            {"summary": "User plans the deployment of the new search project.", "category": "Projects"},
            {"summary": "User wants the deployment done before the September launch.", "category": "Goals"},
            {"summary": "User's deployment anxiety is treated by a therapist.", "category": "Health"},
            {"summary": "User's deployment salary bonus is 2000 euros.", "category": "Finance"},
            {
                "summary": "Deploy steps: build, test, tag, push.",
                "category": "Procedural",
                "type": "procedural",
            },
        ],
        user_id=user,
    )


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    db = str(tmp_path / "q.db")
    m = Memory(db, embedder=HashEmbedder(128), settings=Settings(db=db))
    seed(m)
    yield m
    m.close()


def test_bullets_are_id_category_text_within_the_agents_allowlist(mem: Memory) -> None:
    res = mem.query("deployment plan context", user_id=U, agent="planner", top_k=10)
    assert res.agent == "planner" and res.mode == "bullets"
    assert res.categories == ["goals", "tasks", "projects", "procedural"]
    assert res.items and all(set(i) == {"id", "category", "text"} for i in res.items)
    assert {i["category"] for i in res.items} <= {"goals", "tasks", "projects", "procedural"}
    assert all(i["text"].startswith(f"[{i['category']}] ") for i in res.items)
    assert not any("therapist" in i["text"] or "salary" in i["text"] for i in res.items)
    assert res.tokens == sum(estimate_tokens(i["text"]) for i in res.items)


def test_full_items_carry_summary_metadata_and_score_breakdown(mem: Memory) -> None:
    res = mem.query(
        "deploy the billing service",
        user_id=U,
        agent="planner",
        categories=["tasks"],
        return_="full",
        top_k=1,
    )
    [item] = res.items
    assert (
        item["category"] == "tasks" and item["summary"] == "User must deploy the billing service on Friday."
    )
    assert item["metadata"]["importance"] == 4 and item["metadata"]["type"] == "semantic"
    assert "embedding" not in item["metadata"] and "user_id" not in item["metadata"]
    assert item["breakdown"]["final"] == pytest.approx(item["score"]) and item["breakdown"]["similarity"] > 0
    assert res.tokens == estimate_tokens(json.dumps(item, ensure_ascii=False))


@pytest.mark.parametrize("categories", [["health"], ["tasks", "finance"], ["Health"]])
def test_categories_outside_the_allowlist_are_refused(mem: Memory, categories: list[str]) -> None:
    with pytest.raises(PermissionDeniedError) as err:
        mem.query("deployment", user_id=U, agent="planner", categories=categories)
    msg = str(err.value)
    assert (
        "agent 'planner' may not read" in msg and "its allowlist: goals, tasks, projects, procedural" in msg
    )
    assert ("finance" in msg) == ("finance" in categories) and isinstance(err.value, ValidationError)


def test_filters_never_widen_the_allowlist(mem: Memory) -> None:
    with pytest.raises(PermissionDeniedError):  # whatever the filters say
        mem.query(
            "deployment", user_id=U, agent="planner", categories=["health"], filters={"category": "Health"}
        )
    narrowed = mem.query("deployment", user_id=U, agent="planner", filters={"category": "Health"})
    assert narrowed.items == []
    for spec in ({"$in": ["Health", "Finance", "Tasks"]}, {"$ne": "Tasks"}, {"$nin": ["goals"]}):
        res = mem.query("deployment", user_id=U, agent="planner", filters={"category": spec}, top_k=10)
        assert res.items and {i["category"] for i in res.items} <= {
            "goals",
            "tasks",
            "projects",
            "procedural",
        }
    tasks = mem.query("deployment", user_id=U, agent="planner", filters={"category": "tasks"}, top_k=10)
    assert [i["category"] for i in tasks.items] == ["tasks"]


def test_no_categories_searches_the_whole_allowlist_even_when_the_best_match_is_outside(mem: Memory) -> None:
    best = mem.search("deployment anxiety therapist", user_id=U, limit=1)[0].memory
    assert best.category == "Health"
    res = mem.query("deployment anxiety therapist", user_id=U, agent="stylist")
    assert res.items == [] and res.categories == ["preferences", "interests"]
    sup = mem.query("deployment anxiety therapist", user_id=U, agent="Supervisor", top_k=1)
    assert sup.agent == "supervisor" and sup.items[0]["id"] == best.id
    assert "procedural" not in sup.categories  # seed 001 §12: procedures are for planner/executor


def test_requested_categories_are_case_insensitive_and_narrow(mem: Memory) -> None:
    res = mem.query("deployment", user_id=U, agent="planner", categories=["GOALS", "Projects"], top_k=10)
    assert res.categories == ["goals", "projects"]
    assert sorted(i["category"] for i in res.items) == ["goals", "projects"]
    res = mem.query("deployment", user_id=U, agent="planner", categories=[], top_k=10)
    assert len(res.categories) == 4  # an empty list is "no categories"


def test_filters_and_threshold_apply_in_the_query(mem: Memory) -> None:
    res = mem.query(
        "deployment",
        user_id=U,
        agent="planner",
        filters={"importance_min": 4, "updated_before": None, "user_id": U},
        top_k=10,
    )
    assert [i["category"] for i in res.items] == ["tasks"]
    assert mem.query("deployment", user_id=U, agent="planner", threshold=0.99).items == []
    with pytest.raises(FilterError, match="unknown filter field 'colour'"):
        mem.query("deployment", user_id=U, agent="planner", filters={"colour": "red"})
    with pytest.raises(FilterError, match="user scope"):
        mem.query("deployment", user_id=U, agent="planner", filters={"user_id": "lena"})


def test_budget_stops_before_it_would_be_exceeded(mem: Memory) -> None:
    whole = mem.query("deployment", user_id=U, agent="planner", top_k=10)
    first = estimate_tokens(whole.items[0]["text"])
    cut = mem.query("deployment", user_id=U, agent="planner", top_k=10, budget_tokens=first + 1)
    assert cut.items == whole.items[:1] and cut.tokens == first and cut.dropped == len(whole.items) - 1
    none = mem.query("deployment", user_id=U, agent="planner", top_k=10, budget_tokens=1)
    assert none.items == [] and none.tokens == 0
    # a full item is about 205 tokens (its breakdown included): one fits in 250, the next does not
    full = mem.query("deployment", user_id=U, agent="planner", top_k=10, return_="full", budget_tokens=250)
    assert 0 < full.tokens <= 250 and full.dropped > 0


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"top_k": 0}, "top_k must be an integer from 1 to 100"),
        ({"top_k": 101}, "top_k"),
        ({"top_k": "3"}, "top_k"),
        ({"top_k": True}, "top_k"),
        ({"return_": "xml"}, "return must be one of bullets, full"),
        ({"budget_tokens": -1}, "budget_tokens must be an integer from 1"),
        ({"threshold": 1.5}, "threshold must be a cosine similarity from -1 to 1"),
        ({"threshold": "high"}, "threshold"),
        ({"categories": "tasks"}, "categories must be a list of category names"),
        (
            {"agent": "nobody"},
            r"unknown agent 'nobody'; known agents: executor, planner, researcher, stylist, supervisor",
        ),
        ({"agent": ""}, "agent must be a non-empty string"),
    ],
)
def test_invalid_requests_are_refused(mem: Memory, kwargs: dict[str, Any], fragment: str) -> None:
    args: dict[str, Any] = {"agent": "planner", **kwargs}
    with pytest.raises(ValidationError, match=fragment):
        mem.query("deployment", user_id=U, **args)


def test_seed_001_yaml_with_custom_categories(tmp_path: Path) -> None:
    path = tmp_path / "cats.yaml"
    path.write_text(SEED_YAML)
    db = str(tmp_path / "s.db")
    m = Memory(
        db,
        embedder=HashEmbedder(128),
        settings=Settings(
            db=db, categories_file=str(path), categories=[*DEFAULT_CATEGORIES, "Event", "Profile"]
        ),
    )
    m.put(
        "User attended a very long conference about distributed deployment systems in Berlin.",
        user_id=U,
        category="event",
    )
    m.put("User's name is Maya.", user_id=U, category="profile")
    res = m.query("conference deployment", user_id=U, agent="supervisor", categories=["event"])
    assert res.items[0]["category"] == "event" and len(res.items[0]["text"].split("] ", 1)[1]) <= 30
    with pytest.raises(PermissionDeniedError, match="may not read knowledge"):
        m.query("x", user_id=U, agent="executor", categories=["knowledge"])
    assert "[Profile] User's name is Maya." in m.context("conference", user_id=U, agent="supervisor").text
    m.close()


@pytest.mark.parametrize(
    "text, fragment",
    [
        (
            "allowlists:\n  planner: [goals, spaceships]\n",
            "unknown categories spaceships; add them under categories.custom",
        ),
        (
            "categories:\n  system:\n    - {name: goals, context: some}\nallowlists: {planner: [goals]}\n",
            "context must be 'all' or 'rag'",
        ),
        (
            "categories:\n  system:\n    - {name: goals, context: all, rag_length: 9}\nallowlists: {planner: [goals]}\n",
            "rag_length applies to context 'rag' only",
        ),
        (
            "categories:\n  system:\n    - {name: goals, rag_length: -2}\nallowlists: {planner: [goals]}\n",
            "rag_length must be a positive integer",
        ),
        ("allowlist:\n  planner: [goals]\n", "unknown key"),
        ("allowlists:\n  planner: goals\n", "allowlists.planner must be a list"),
        ("allowlists: [\n", "not valid YAML"),
        ("categories: {}\n", "'allowlists' must map each agent"),
    ],
)
def test_bad_config_files_fail_loudly(tmp_path: Path, text: str, fragment: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(CategoryConfigError, match=fragment):
        load_categories(Settings(categories_file=str(path)))


def test_missing_config_file_and_env_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(CategoryConfigError, match="cannot be read"):
        load_categories(Settings(categories_file=str(tmp_path / "nope.yaml")))
    path = tmp_path / "env.yaml"
    path.write_text("allowlists:\n  solo: [goals]\n")
    monkeypatch.setenv("MEMLANE_CATEGORIES_FILE", str(path))
    assert dict(load_categories(Settings()).allowlists) == {"solo": ("Goals",)}
    path.write_text("allowlists:\n  solo: [goals, tasks]\n  duo: [tasks]\n")  # edits are picked up
    assert set(load_categories(Settings()).allowlists) == {"solo", "duo"}


def test_allowlist_and_isolation_on_every_backend(backend: Backend) -> None:
    emb = HashEmbedder(int(backend.get_meta("embed_dims") or 8))
    backend.set_meta("embedder", emb.identity)  # the fixture's empty store, made for this embedder
    m = Memory(backend=backend, embedder=emb)
    seed(m, "maya")
    m.put("User must deploy the billing service on Friday.", user_id="lena", category="Tasks")
    lena = m.query("deployment billing service", user_id="lena", agent="planner", top_k=100)
    assert len(lena.items) == 1 and lena.items[0]["category"] == "tasks"
    maya = m.query("deployment", user_id="maya", agent="planner", top_k=100, return_="full")
    assert {i["category"] for i in maya.items} == {"goals", "tasks", "projects", "procedural"}
    assert lena.items[0]["id"] not in {i["id"] for i in maya.items}
    with pytest.raises(PermissionDeniedError):
        m.query("deployment", user_id="maya", agent="planner", categories=["finance"])


def test_a_category_with_few_memories_in_a_large_store(tmp_path: Path) -> None:
    db = str(tmp_path / "big.db")
    m = Memory(db, embedder=HashEmbedder(16), settings=Settings(db=db))
    m.put_many([{"summary": f"User's goal number {i}.", "category": "Goals"} for i in range(1600)], user_id=U)
    assert m.query("goal", user_id=U, agent="executor", categories=["procedural"]).items == []
    m.close()
