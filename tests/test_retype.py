"""Moving a memory filed under the wrong type (episodic <-> semantic), on every surface, over SQLite
(vec0 and the in-memory vector copy) and PostgreSQL, with the real local embedder: the type after the
move, its history row, search and the context block finding it under its new type; bad input changes
nothing."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import httpx
import pytest

from memlane import AsyncMemory, Memory
from memlane.model.config import Settings
from memlane.model.errors import ConflictError, ForbiddenError, NotFoundError, ValidationError
from tests.formation_helpers import local_embedder
from tests.scripted_upstream import running_memlane
from tests.test_cli import USER, as_json, cli, ok

AT = "2026-03-05T09:00:00Z"


@pytest.fixture(
    params=["sqlite", "sqlite-vectors-in-memory", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def mem(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Memory]:
    if request.param == "postgres":
        location = str(request.getfixturevalue("postgres_url"))
    else:
        location = os.path.join(tmp_path, "memlane.db")
        if request.param == "sqlite-vectors-in-memory":  # every scan reads the in-memory vector copy
            from memlane.storage.sqlite import vector_cache

            request.getfixturevalue("monkeypatch").setattr(vector_cache, "MIN_VECTORS", 0)
    m = Memory(location, embedder=local_embedder(), settings=Settings(db=location))
    yield m
    m.close()


def types_found(mem: Memory, query: str, mtype: str) -> list[str]:
    return [h.memory.summary for h in mem.search(query, user_id=USER, filters={"type": mtype})]


def everything(mem: Memory, user: str = USER) -> list[dict[str, Any]]:
    rows = list(mem.export_user(user))
    return sorted(rows, key=lambda r: json.dumps(r, sort_keys=True, default=str))


def test_a_fact_filed_as_an_event_moves_to_semantic_with_history(mem: Memory) -> None:
    fact = mem.put("User is allergic to penicillin.", user_id=USER, type="episodic", category="Health", at=AT)
    mem.put("User went hiking in the Alps.", user_id=USER, type="episodic", at=AT)
    assert fact.date_iso == "2026-03-05"
    assert types_found(mem, "which medicine allergy?", "semantic") == []

    moved = mem.retype(fact.id, user_id=USER, type="semantic")

    assert moved.id == fact.id and mem.get(fact.id, user_id=USER).type.value == "semantic"
    assert (moved.date_iso, moved.week, moved.year) == (None, None, None)
    last = mem.history(fact.id, user_id=USER)[-1]
    assert (last.event.value, last.reason) == ("UPDATE", "retyped from episodic to semantic")
    assert last.old_value is not None and last.new_value is not None
    assert (last.old_value["type"], last.new_value["type"]) == ("episodic", "semantic")
    # the vector and keyword indexes follow the type: a typed search finds it under the new type only
    assert types_found(mem, "which medicine allergy?", "semantic") == ["User is allergic to penicillin."]
    assert "User is allergic to penicillin." not in types_found(mem, "which medicine allergy?", "episodic")
    assert types_found(mem, "penicillin", "semantic") == ["User is allergic to penicillin."]
    block = mem.context("is the user allergic to any medicine?", user_id=USER)
    assert "- [Health] User is allergic to penicillin." in block.text.split("Recent events:")[0]
    assert [h.memory.id for h in block.semantic][:1] == [fact.id]


def test_an_event_filed_as_a_fact_moves_to_episodic_and_gets_its_day(mem: Memory) -> None:
    event = mem.put("User went to a concert in Porto yesterday.", user_id=USER, category="Interests", at=AT)
    moved = mem.retype(event.id, user_id=USER, type="episodic", reason="a one-off event")
    assert moved.type.value == "episodic" and moved.date_iso == "2026-03-05" and moved.year == 2026
    assert mem.history(event.id, user_id=USER)[-1].reason == "a one-off event"
    assert types_found(mem, "concert in Porto", "episodic") == ["User went to a concert in Porto yesterday."]
    assert types_found(mem, "concert in Porto", "semantic") == []
    block = mem.context("the concert in Porto", user_id=USER, at="2026-03-06T10:00:00Z")
    assert (
        "Recent events:\n- 2026-03-05: [Interests] User went to a concert in Porto yesterday." in block.text
    )


def test_a_keyed_memory_moves_to_its_keys_id_so_the_next_put_of_the_key_updates_it(mem: Memory) -> None:
    key = "profile:pet:luna:age"
    old = mem.put("User's cat Luna is 3 years old.", user_id=USER, type="episodic", key=key)
    other = mem.put("User's cat Luna likes tuna.", user_id=USER)
    mem.link(other.id, old.id, user_id=USER)

    moved = mem.retype(old.id, user_id=USER, type="semantic")

    assert moved.id != old.id and moved.type.value == "semantic" and moved.key == key
    closed = mem.get(old.id, user_id=USER)
    assert closed.state.value == "superseded" and closed.superseded_by == moved.id
    assert mem.history(moved.id, user_id=USER)[-1].reason == (
        f"supersedes {old.id}: retyped from episodic to semantic"
    )
    assert types_found(mem, "how old is Luna?", "semantic")[0] == "User's cat Luna is 3 years old."
    assert [(r.from_id, r.to_id) for r in mem.backend.memories.relations(USER, [moved.id])] == [
        (other.id, moved.id)
    ]
    again = mem.put("User's cat Luna is 4 years old.", user_id=USER, type="semantic", key=key)
    assert again.id == moved.id
    live = mem.list(user_id=USER, filters={"key": key})
    assert [r.summary for r in live] == ["User's cat Luna is 4 years old."]


def test_bad_input_is_refused_and_changes_nothing(mem: Memory) -> None:
    rec = mem.put("User likes green tea.", user_id=USER)
    theirs = mem.put("Lena likes coffee.", user_id="lena")
    shared = mem.put("Lena's office is in Braga.", user_id="lena")
    mem.sharing.share(shared.id, user_id="lena", with_users=[USER])
    proc = mem.procedures.add("Deploy", ["Run the tests", "Tag the release"], user_id=USER)
    gone = mem.put("User likes black tea.", user_id=USER, type="episodic")
    mem.delete(gone.id, user_id=USER)
    before = everything(mem), everything(mem, "lena")
    cases: list[tuple[type[Exception], str, dict[str, Any], str]] = [
        (ValidationError, rec.id, {"type": "semantic"}, "already semantic"),
        (ValidationError, rec.id, {"type": "opinion"}, "unknown memory type 'opinion'"),
        (ValidationError, rec.id, {"type": "procedural"}, "between semantic and episodic"),
        (ValidationError, proc.id, {"type": "semantic"}, "it is a procedural memory"),
        (ValidationError, gone.id, {"type": "semantic"}, "it is soft_deleted"),
        (NotFoundError, "0190aaaa-0000-7000-8000-000000000000", {"type": "episodic"}, "no memory"),
        (NotFoundError, theirs.id, {"type": "episodic"}, "no memory"),
        (ForbiddenError, shared.id, {"type": "episodic"}, "may read it but not change it"),
    ]
    for error, mid, kwargs, words in cases:
        with pytest.raises(error, match=words):
            mem.retype(mid, user_id=USER, **kwargs)
    assert (everything(mem), everything(mem, "lena")) == before


def test_a_keyed_move_onto_a_memory_of_that_key_is_a_conflict(mem: Memory) -> None:
    key = "profile:residence:city"
    mem.put("User lives in Lisbon.", user_id=USER, key=key)
    episodic = mem.put("User lives in Porto.", user_id=USER, type="episodic", key=key)
    before = everything(mem)
    with pytest.raises(ConflictError, match="already has a semantic memory of that key"):
        mem.retype(episodic.id, user_id=USER, type="semantic")
    assert everything(mem) == before


def test_misfiled_lists_the_two_signs_and_changes_nothing(tmp_path: Path) -> None:
    with Memory(str(tmp_path / "m.db"), embedder="hash") as mem:
        keyed = mem.put("User's dog Rex turned 5.", user_id=USER, type="episodic", key="profile:pet:rex:age")
        dated = mem.put("User moved house two weeks ago.", user_id=USER)
        mem.put("User's birthday is on 5 March 1990.", user_id=USER)  # a date, not a relative one
        mem.put("User walked the dog yesterday.", user_id=USER, type="episodic")  # rightly filed
        before = everything(mem)
        found = {f.memory.id: (f.suggested.value, f.why) for f in mem.misfiled(user_id=USER)}
        assert found == {
            keyed.id: ("semantic", "has the key 'profile:pet:rex:age' of a lasting fact"),
            dated.id: ("episodic", "dated 'two weeks ago', as a one-off event is"),
        }
        assert everything(mem) == before
        assert len(mem.misfiled(user_id=USER, limit=1)) == 1


def test_the_async_twin_retypes(tmp_path: Path) -> None:
    amem = AsyncMemory(str(tmp_path / "m.db"), embedder="hash")

    async def run() -> None:
        rec = await amem.put("User is vegetarian.", user_id=USER, type="episodic")
        assert [f.memory.id for f in await amem.misfiled(user_id=USER)] == []
        moved = await amem.retype(rec.id, user_id=USER, type="semantic")
        assert moved.type.value == "semantic"
        await amem.aclose()

    asyncio.run(run())


def test_the_cli_retypes_by_prefix_and_suggests(location: str) -> None:
    db = cast(Path, location)
    rec = as_json(cli("put", "User flew to Berlin last week.", "--user", USER, "--json", db=db))
    suggested = ok(cli("retype", "--suggest", "--user", USER, db=db)).stdout
    assert f"{rec['id']}  semantic -> episodic (dated 'last week'" in suggested
    assert f"memlane retype {rec['id']} --type episodic --user {USER}" in suggested
    out = ok(cli("retype", rec["id"][:13], "--type", "episodic", "--user", USER, db=db)).stdout
    assert out == f"retyped {rec['id']} from semantic to episodic: User flew to Berlin last week.\n"
    assert as_json(cli("get", rec["id"], "--user", USER, "--json", db=db))["type"] == "episodic"
    history = as_json(cli("history", rec["id"], "--user", USER, "--json", db=db))
    assert history[-1]["reason"] == "retyped from semantic to episodic" and history[-1]["actor"] == "cli"
    assert ok(cli("retype", "--suggest", "--user", USER, db=db)).stdout.startswith("no misfiled memories")
    for args, code, words in [
        (["retype", rec["id"], "--type", "episodic"], 2, "already episodic"),
        (["retype", rec["id"], "--type", "opinion"], 2, "unknown memory type 'opinion'"),
        (["retype", "zzzzzz", "--type", "semantic"], 1, "no memory 'zzzzzz'"),
        (["retype", rec["id"]], 2, "give the memory's ID and --type"),
        (["retype", rec["id"], "--suggest"], 2, "--suggest lists candidates"),
    ]:
        result = cli(*args, "--user", USER, db=db)
        assert result.exit_code == code and result.stderr.startswith("error: ") and words in result.stderr
    assert as_json(cli("get", rec["id"], "--user", USER, "--json", db=db))["type"] == "episodic"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Memory, str]]:
    location = (
        str(tmp_path / "s.db") if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    )
    with (
        Memory(location, embedder=local_embedder(), settings=Settings(db=location)) as m,
        running_memlane(m) as url,
    ):
        yield m, url


def test_the_http_route_retypes_and_refuses_with_4xx_json(served: tuple[Memory, str]) -> None:
    mem, url = served
    with (
        httpx.Client(base_url=url, headers={"X-Memlane-User": USER}, timeout=30) as maya,
        httpx.Client(base_url=url, headers={"X-Memlane-User": "lena"}, timeout=30) as lena,
    ):
        mid = maya.post("/v1/memory", json={"summary": "User speaks Portuguese.", "type": "episodic"}).json()[
            "id"
        ]
        hers = lena.post("/v1/memory", json={"summary": "Lena speaks Greek."}).json()["id"]
        assert maya.get("/v1/memory/misfiled").json() == {"misfiled": []}
        r = maya.post(f"/v1/memory/{mid}/retype", json={"type": "semantic"})
        assert r.status_code == 200, r.text
        assert r.json()["type"] == "semantic" and r.json()["id"] == mid
        history = maya.get(f"/v1/memory/{mid}/history").json()["history"]
        assert history[-1]["reason"] == "retyped from episodic to semantic" and history[-1]["actor"] == "api"
        hits = maya.post(
            "/v1/memory/search", json={"query": "which languages?", "filters": {"type": "semantic"}}
        )
        assert [h["memory"]["id"] for h in hits.json()["results"]] == [mid]
        before = everything(mem), everything(mem, "lena")
        for client, path, body, status, kind in [
            (maya, f"/v1/memory/{mid}/retype", {"type": "semantic"}, 400, "validation_error"),
            (maya, f"/v1/memory/{mid}/retype", {"type": "procedural"}, 422, "invalid_request"),
            (maya, f"/v1/memory/{hers}/retype", {"type": "episodic"}, 404, "not_found"),
            (lena, f"/v1/memory/{mid}/retype", {"type": "episodic"}, 404, "not_found"),
        ]:
            resp = client.post(path, json=body)
            assert resp.status_code == status, resp.text
            assert resp.json()["error"]["type"] == kind
        assert (everything(mem), everything(mem, "lena")) == before
        dated = maya.post("/v1/memory", json={"summary": "User started a new job last month."}).json()["id"]
        found = maya.get("/v1/memory/misfiled").json()["misfiled"]
        assert [(f["memory"]["id"], f["suggested"]) for f in found] == [(dated, "episodic")]
