"""Procedural memory (seed 001 §12): saved on an explicit trigger as numbered imperative steps, replaced
by name with history, never in the default context, read through ``memory.query`` only by agents whose
allowlist has ``procedural``; on SQLite and PostgreSQL with the bundled embedder, and over REST, the
CLI and the LangGraph tool."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from memlane import Memory
from memlane.model.category import UnknownCategoryWarning
from memlane.model.config import Settings
from memlane.model.enums import HistoryEvent, MemoryType
from memlane.model.errors import NotFoundError, ValidationError
from memlane.retrieval.allowlist import PermissionDeniedError
from tests.formation_helpers import local_embedder
from tests.scripted_upstream import running_memlane

U = "maya"
DEPLOY = [
    "run the test suite",
    "then build the site with hugo",
    "you should push the build to the main branch",
]


@pytest.fixture
def mem(location: str) -> Iterator[Memory]:
    m = Memory(location, embedder=local_embedder(), llm="rules", settings=Settings(db=location, worker=False))
    yield m
    m.close()


def test_a_procedure_is_numbered_imperative_steps_in_its_own_type_and_category(mem: Memory) -> None:
    rec = mem.procedures.add("deploy the blog", DEPLOY, user_id=U)
    assert rec.type is MemoryType.PROCEDURAL and rec.category == "Procedural"
    assert rec.metadata["steps"] == [
        "Run the test suite.",
        "Build the site with hugo.",
        "Push the build to the main branch.",
    ]
    assert rec.summary == (
        "How to deploy the blog: 1. Run the test suite. 2. Build the site with hugo. "
        "3. Push the build to the main branch."
    )
    assert mem.procedures.get("Deploy the blog", user_id=U).id == rec.id
    assert [r.id for r in mem.procedures.list(user_id=U)] == [rec.id]


def test_saving_the_same_name_replaces_the_steps_and_keeps_the_old_ones_in_history(mem: Memory) -> None:
    first = mem.procedures.add("deploy the blog", DEPLOY, user_id=U)
    second = mem.procedures.add("Deploy the blog.", "1. Run the tests\n2. Push to main", user_id=U)
    assert second.id == first.id and second.metadata["steps"] == ["Run the tests.", "Push to main."]
    assert len(mem.procedures.list(user_id=U)) == 1
    history = mem.history(first.id, user_id=U)
    assert [h.event for h in history] == [HistoryEvent.ADD, HistoryEvent.UPDATE]
    assert (
        history[1].old_value is not None
        and history[1].old_value["metadata"]["steps"][1] == "Build the site with hugo."
    )


def test_procedures_stay_out_of_the_default_context_and_of_agents_without_procedural(mem: Memory) -> None:
    mem.procedures.add("deploy the blog", DEPLOY, user_id=U)
    mem.put("Maya deploys her blog every Friday.", user_id=U, category="Projects")
    block = mem.context("how do I deploy the blog?", user_id=U)
    assert "Friday" in block.text and "How to deploy" not in block.text
    supervisor = mem.query("how do I deploy the blog?", user_id=U, agent="supervisor", top_k=5)
    assert all("How to deploy" not in item["text"] for item in supervisor.items)
    with pytest.raises(PermissionDeniedError, match="procedural"):
        mem.query("deploy", user_id=U, agent="supervisor", categories=["procedural"])
    executor = mem.query("how do I deploy the blog?", user_id=U, agent="executor", categories=["procedural"])
    assert [i["text"] for i in executor.items] == [
        f"[procedural] {mem.procedures.get('deploy the blog', user_id=U).summary}"
    ]


def test_a_procedure_is_never_a_merge_target_for_facts_from_chat(mem: Memory) -> None:
    proc = mem.procedures.add("water the plants", ["Fill the can", "Water the ferns first"], user_id=U)
    mem.add("I water the ferns first every morning.", user_id=U, wait=True)
    assert mem.procedures.get("water the plants", user_id=U).model_dump() == proc.model_dump()
    assert [h.event for h in mem.history(proc.id, user_id=U)] == [HistoryEvent.ADD]


@pytest.mark.parametrize(
    ("name", "steps", "fragment"),
    [
        ("", ["Run the tests"], "needs a name"),
        ("deploy", [], "at least one step"),
        ("deploy", ["I run the tests"], "statement, not an instruction"),
        ("deploy", ["Run the tests", 3], "list of strings"),
        ("deploy", [f"Step {i}" for i in range(21)], "at most 20 steps"),
        ("deploy", ["x" * 301], "over 300"),
    ],
)
def test_bad_procedures_are_refused_and_nothing_is_stored(
    mem: Memory, name: str, steps: Any, fragment: str
) -> None:
    with pytest.raises(ValidationError, match=fragment):
        mem.procedures.add(name, steps, user_id=U)
    assert mem.procedures.list(user_id=U) == [] and mem.list(user_id=U) == []


def test_a_procedural_memory_is_always_filed_under_procedural(mem: Memory) -> None:
    with pytest.warns(UnknownCategoryWarning, match="filed under Procedural, not 'Tasks'"):
        assert (
            mem.put("How to cook rice: 1. Rinse it.", user_id=U, type="procedural", category="Tasks").category
            == "Procedural"
        )
    assert mem.put("How to bake bread: 1. Knead.", user_id=U, type="procedural").category == "Procedural"
    with pytest.raises(NotFoundError, match="no procedure 'cook rice'"):
        mem.procedures.get("cook rice", user_id=U)  # put by hand, not by name: only add_procedure names one


def test_rest_saves_lists_and_fetches_procedures_for_the_calling_user_only(mem: Memory) -> None:
    with running_memlane(mem) as url, httpx.Client(base_url=url, timeout=30) as http:
        maya, lena = {"X-Memlane-User": U}, {"X-Memlane-User": "lena"}
        saved = http.post(
            "/v1/memory/procedures", headers=maya, json={"name": "deploy the blog", "steps": DEPLOY}
        )
        assert saved.status_code == 200 and saved.json()["metadata"]["steps"][0] == "Run the test suite."
        listed = http.get("/v1/memory/procedures", headers=maya).json()["memories"]
        assert [m["id"] for m in listed] == [saved.json()["id"]]
        assert (
            http.get("/v1/memory/procedures/deploy%20the%20blog", headers=maya).json()["id"]
            == saved.json()["id"]
        )
        assert http.get("/v1/memory/procedures/deploy%20the%20blog", headers=lena).status_code == 404
        assert http.get("/v1/memory/procedures", headers=lena).json()["memories"] == []
        bad = http.post(
            "/v1/memory/procedures", headers=maya, json={"name": "x", "steps": ["We deploy on Fridays"]}
        )
        assert bad.status_code == 400 and "instruction" in bad.json()["error"]["message"]
        extra = http.post(
            "/v1/memory/procedures", headers=maya, json={"name": "x", "steps": ["Go"], "category": "Tasks"}
        )
        assert extra.status_code == 422
    assert len(mem.procedures.list(user_id=U)) == 1


def test_cli_procedure_add_show_and_list(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from memlane.cli.app import app

    db = str(tmp_path / "c.db")

    def run(*args: str) -> Any:
        return CliRunner().invoke(app, [*args, "--db", db, "--embedder", "hash"], env={"COLUMNS": "200"})

    added = run("procedure", "add", "deploy the blog", "run the tests", "push to main", "--user", U)
    assert added.exit_code == 0, added.output
    shown = run("procedure", "show", "deploy the blog", "--user", U)
    assert shown.exit_code == 0 and "1. Run the tests." in shown.stdout and "2. Push to main." in shown.stdout
    assert "1 procedure" in run("procedure", "list", "--user", U).stdout
    bad = run("procedure", "add", "deploy", "I push to main", "--user", U)
    assert bad.exit_code != 0 and "not an instruction" in bad.output


def test_the_langgraph_tool_saves_for_the_configured_user(mem: Memory) -> None:
    from memlane.integrations.langgraph.tools import memory_tools

    tools = {t.name: t for t in memory_tools(mem)}
    out = tools["procedure_save"].invoke(
        {"name": "file expenses", "steps": ["Export the receipts", "Upload them"]},
        {"configurable": {"user_id": U}},
    )
    assert out["steps"] == ["Export the receipts.", "Upload them."]
    assert "user_id" not in tools["procedure_save"].tool_call_schema.model_json_schema()["properties"]
    assert mem.procedures.get("file expenses", user_id=U).id == out["id"]
