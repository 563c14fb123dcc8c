"""REST under /v1/memory on a real server on loopback (uvicorn), over SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from memlane import Memory
from memlane.model.config import Settings
from memlane.providers.embed.hash import HashEmbedder
from tests.scripted_upstream import running_memlane


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def mem(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Memory]:
    location = (
        str(tmp_path / "s.db") if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    )
    m = Memory(location, embedder=HashEmbedder(64), settings=Settings(db=location))
    yield m
    m.close()


@pytest.fixture
def url(mem: Memory) -> Iterator[str]:
    with running_memlane(mem) as base:
        yield base


@pytest.fixture
def maya(url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=url, headers={"X-Memlane-User": "maya"}, timeout=30) as c:
        yield c


@pytest.fixture
def lena(url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=url, headers={"X-Memlane-User": "lena"}, timeout=30) as c:
        yield c


def error_of(resp: httpx.Response) -> dict[str, str]:
    body = resp.json()
    assert set(body) == {"error"} and {"type", "message"} <= set(body["error"]), body
    return body["error"]


def test_crud_history_and_lifecycle(maya: httpx.Client) -> None:
    r = maya.post(
        "/v1/memory",
        json={
            "summary": "User lives in Lisbon.",
            "key": "profile:residence:city",
            "category": "personal",
            "importance": 4,
            "tags": ["home"],
        },
    )
    assert r.status_code == 200, r.text
    rec = r.json()
    assert rec["user_id"] == "maya" and rec["category"] == "Personal" and rec["state"] == "active"
    mid = rec["id"]
    again = maya.post(
        "/v1/memory", json={"summary": "User lives in Porto.", "key": "profile:residence:city"}
    ).json()
    assert again["id"] == mid and again["summary"] == "User lives in Porto." and again["importance"] == 4
    assert maya.get(f"/v1/memory/{mid}").json()["summary"] == "User lives in Porto."
    up = maya.patch(f"/v1/memory/{mid}", json={"pinned": True, "reason": "user asked"})
    assert up.status_code == 200 and up.json()["pinned"] is True
    hits = maya.post("/v1/memory/search", json={"query": "where does the user live? Porto"}).json()["results"]
    assert hits[0]["memory"]["id"] == mid and set(hits[0]["breakdown"]) >= {"similarity", "final"}
    assert maya.delete(f"/v1/memory/{mid}").json()["state"] == "soft_deleted"
    assert maya.get("/v1/memory").json()["memories"] == []
    assert len(maya.get("/v1/memory", params={"include_inactive": "true"}).json()["memories"]) == 1
    assert maya.post(f"/v1/memory/{mid}/restore").json()["state"] == "active"
    events = [h["event"] for h in maya.get(f"/v1/memory/{mid}/history").json()["history"]]
    assert events == ["ADD", "UPDATE", "UPDATE", "DELETE", "RESTORE"]
    assert maya.post(f"/v1/memory/{mid}/purge", json={"reason": "gdpr"}).json() == {
        "id": mid,
        "state": "purged",
    }
    assert maya.get(f"/v1/memory/{mid}/history").json()["history"][-1]["event"] == "PURGE"


def test_turn_runs_formation_and_candidates_come_back(maya: httpx.Client) -> None:
    r = maya.post(
        "/v1/memory/turns", json={"messages": "I live in Lisbon and my dog Luna is 3.", "wait": True}
    )
    assert r.status_code == 200, r.text
    assert {c["key"] for c in r.json()["candidates"]} >= {"profile:residence:city"}
    assert any("Lisbon" in m["summary"] for m in maya.get("/v1/memory").json()["memories"])
    bg = maya.post(
        "/v1/memory/turns",
        json={"messages": [{"role": "user", "content": "I work as a nurse."}], "thread_id": "t1"},
    )
    assert bg.status_code == 202 and bg.json()["waited"] is False
    facts = maya.post(
        "/v1/memory/facts", json={"facts": [{"summary": "User prefers aisle seats."}], "wait": True}
    )
    assert facts.status_code == 200
    assert maya.get("/v1/memory/jobs").status_code == 200


def test_context_and_query(maya: httpx.Client) -> None:
    maya.post(
        "/v1/memory", json={"summary": "User is training for the Berlin marathon.", "category": "Goals"}
    )
    block = maya.post(
        "/v1/memory/context", json={"query": "what is the user training for?", "thread_id": "c1"}
    )
    assert block.status_code == 200, block.text
    assert "marathon" in block.json()["text"]
    q = maya.post(
        "/v1/memory/query", json={"agent": "supervisor", "query": "marathon training", "return": "bullets"}
    )
    assert q.status_code == 200, q.text
    assert q.json()["agent"] == "supervisor" and any("marathon" in i["text"] for i in q.json()["items"])
    refused = maya.post(
        "/v1/memory/query", json={"agent": "stylist", "query": "x", "categories": ["Finance"]}
    )
    assert refused.status_code == 403 and error_of(refused)["type"] == "forbidden"


def test_users_never_see_each_other(maya: httpx.Client, lena: httpx.Client) -> None:
    mid = maya.post("/v1/memory", json={"summary": "User's PIN hint is the cat."}).json()["id"]
    for resp in (
        lena.get(f"/v1/memory/{mid}"),
        lena.patch(f"/v1/memory/{mid}", json={"pinned": True}),
        lena.delete(f"/v1/memory/{mid}"),
        lena.post(f"/v1/memory/{mid}/purge"),
        lena.get(f"/v1/memory/{mid}/history"),
    ):
        assert resp.status_code == 404, resp.text
    assert lena.post("/v1/memory/search", json={"query": "PIN hint cat"}).json()["results"] == []
    assert lena.get("/v1/memory").json()["memories"] == []
    smuggled = lena.post("/v1/memory/search", json={"query": "PIN", "filters": {"user_id": "maya"}})
    assert smuggled.status_code == 422 and error_of(smuggled)["type"] == "invalid_request"
    assert (
        lena.get("/v1/memory", headers={"X-OpenWebUI-User-Id": "maya"}).status_code == 400
    )  # two users named
    assert maya.get(f"/v1/memory/{mid}").status_code == 200


def test_list_with_the_filter_language(maya: httpx.Client) -> None:
    maya.post(
        "/v1/memory",
        json={"summary": "User saves 200 euros a month.", "category": "Finance", "importance": 4},
    )
    maya.post("/v1/memory", json={"summary": "User likes jazz.", "category": "Personal", "tags": ["music"]})
    rich = maya.post("/v1/memory/list", json={"filters": {"importance": {"$gte": 4}, "type": ["semantic"]}})
    assert [m["category"] for m in rich.json()["memories"]] == ["Finance"]
    tagged = maya.post(
        "/v1/memory/list", json={"filters": {"tags": "music", "updated_after": "2020-01-01T00:00:00Z"}}
    )
    assert [m["summary"] for m in tagged.json()["memories"]] == ["User likes jazz."]
    assert [
        m["category"] for m in maya.get("/v1/memory", params={"category": "Finance"}).json()["memories"]
    ] == ["Finance"]


def test_export_and_delete_everything(maya: httpx.Client) -> None:
    maya.post("/v1/memory", json={"summary": "User likes tea."})
    maya.post("/v1/memory", json={"summary": "User likes jazz."})
    r = maya.get("/v1/memory/export")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
    rows = [json.loads(line) for line in r.text.splitlines()]
    assert sum(1 for row in rows if row["kind"] == "memory") == 2 and {row["kind"] for row in rows} >= {
        "history"
    }
    refused = maya.delete("/v1/memory", params={"confirm": "false"})
    assert refused.status_code == 422 and maya.delete("/v1/memory").status_code == 422
    assert maya.delete("/v1/memory", params={"confirm": "true"}).json() == {"user_id": "maya", "deleted": 2}
    assert maya.get("/v1/memory/export").text == ""


@pytest.mark.parametrize(
    "method,path,body,status,kind",
    [
        ("post", "/v1/memory", {"summary": ""}, 422, "invalid_request"),
        ("post", "/v1/memory", {"summary": "x", "importance": 9}, 422, "invalid_request"),
        ("post", "/v1/memory", {"summary": "x", "surprise": 1}, 422, "invalid_request"),
        ("post", "/v1/memory", {"summary": "a\u0000b"}, 422, "invalid_request"),
        ("post", "/v1/memory", {"summary": "x", "metadata": {"n": ["a\u0000"]}}, 422, "invalid_request"),
        (
            "post",
            "/v1/memory",
            {"summary": "x", "valid_from": "9999-12-31T23:59:59-12:00"},
            422,
            "invalid_request",
        ),
        ("post", "/v1/memory", {"summary": "   "}, 422, "invalid_request"),
        ("post", "/v1/memory", {"summary": "x" * 2001}, 422, "invalid_request"),
        ("post", "/v1/memory", {"summary": "x", "pinned": "yes"}, 422, "invalid_request"),
        ("post", "/v1/memory", {"summary": "x", "at": 1700000000}, 422, "invalid_request"),
        ("post", "/v1/memory/search", {"query": "x", "filters": {"colour": "red"}}, 422, "invalid_request"),
        (
            "post",
            "/v1/memory/search",
            {"query": "x", "filters": {"importance": {"$gte": "high"}}},
            422,
            "invalid_request",
        ),
        (
            "post",
            "/v1/memory/search",
            {"query": "x", "filters": {"tags": {"$gt": "a"}}},
            422,
            "invalid_request",
        ),
        ("post", "/v1/memory/search", {"query": "x", "limit": "5"}, 422, "invalid_request"),
        ("post", "/v1/memory/{mid}/restore", None, 400, "validation_error"),
        ("get", "/v1/memory/no-such-id", None, 404, "not_found"),
        ("get", "/v1/memory?type=bogus", None, 422, "invalid_request"),
        ("put", "/v1/memory/x", None, 405, "method_not_allowed"),
    ],
)
def test_errors_have_one_shape(
    maya: httpx.Client, method: str, path: str, body: object, status: int, kind: str
) -> None:
    mid = maya.post("/v1/memory", json={"summary": "User likes tea."}).json()["id"]  # active: cannot restore
    resp = maya.request(method.upper(), path.format(mid=mid), json=body)
    assert resp.status_code == status, resp.text
    assert error_of(resp)["type"] == kind
    if status == 405:
        assert resp.headers["allow"] == "DELETE, GET, PATCH"


def test_missing_or_conflicting_user(url: str) -> None:
    with httpx.Client(base_url=url) as anon:
        r = anon.get("/v1/memory")
        assert r.status_code == 400 and error_of(r)["type"] == "missing_user"
        both = anon.get("/v1/memory", headers={"X-Memlane-User": "a", "X-OpenWebUI-User-Id": "b"})
        assert both.status_code == 400
        bad = anon.get("/v1/memory", headers={"X-Memlane-User": "no spaces allowed"})
        assert bad.status_code == 422 and error_of(bad)["type"] == "invalid_request"
        owui = anon.get("/v1/memory", headers={"X-OpenWebUI-User-Id": "7f1c"})
        assert owui.status_code == 200


def test_health_and_openapi(url: str) -> None:
    health = httpx.get(f"{url}/healthz").json()
    assert health["status"] == "ok" and health["embedder"].startswith("hash:")
    doc = httpx.get(f"{url}/openapi.json").json()
    assert {
        "/v1/memory",
        "/v1/memory/{memory_id}/history",
        "/v1/memory/events",
        "/v1/chat/completions",
        "/v1/models",
        "/healthz",
        "/metrics",
    } <= set(doc["paths"])
    assert "HTTPValidationError" not in doc["components"]["schemas"]  # 422s use the one error shape


def test_the_served_llm_keeps_the_batched_judge_and_the_implied_terms() -> None:
    """The server times its memory LLM; the timing wrapper passes on the one-call judge and the terms
    of what a candidate retires (else the server would judge pair by pair and miss far memories)."""
    from memlane.providers.llm.rules import RulesLLM
    from memlane.server.metrics import ServerMetrics, TimedLLM

    metrics = ServerMetrics()
    llm = TimedLLM(RulesLLM(), metrics.llm)
    assert "beer" in llm.implied_terms("User is teetotal now.")
    verdicts = llm.judge("User is teetotal now.", ["User has a beer after work.", "User likes jazz."])
    assert [v.relation for v in verdicts][0] == "contradiction" and len(verdicts) == 2
    assert (
        metrics.registry.get_sample_value(
            "memlane_llm_duration_seconds_count", {"llm": "rules", "task": "judge"}
        )
        == 1
    )
