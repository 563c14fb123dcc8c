"""Consent through the interfaces: REST under /v1/memory/proposals on a real server on loopback (SQLite and
PostgreSQL; a key bound to a user decides that user's proposals, an admin key those of the user it
names) and the ``memlane proposals`` command line on a SQLite file. The engine's behaviour is in
test_consent.py; here: who may decide, who the history names, and the errors each interface gives."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner, Result

from memlane import Memory
from memlane.cli.app import app
from memlane.model.config import Settings
from memlane.model.record import utcnow
from tests.scripted_upstream import running_memlane

ADMIN, MAYA_KEY = "admin-key", "maya-key"


def moved(post: Any, user_headers: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Porto, then the move to Lisbon, as turns; returns the second turn's decisions."""
    t0 = utcnow() - timedelta(minutes=10)
    decisions = []
    for n, text in enumerate(("I live in Porto.", "I moved to Lisbon.")):
        r = post(
            "/v1/memory/turns",
            json={"messages": text, "wait": True, "at": (t0 + n * timedelta(minutes=1)).isoformat()},
            headers=user_headers or {},
        )
        assert r.status_code == 200, r.text
        decisions = r.json()["decisions"]
    return decisions


@pytest.fixture
def url(location: str) -> Iterator[str]:
    mem = Memory(location, embedder="hash", llm="rules", settings=Settings(db=location))
    with running_memlane(mem, api_keys=[ADMIN, f"{MAYA_KEY}:maya"]) as base:
        yield base
    mem.close()


@pytest.fixture
def maya(url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {MAYA_KEY}"}, timeout=60) as c:
        yield c


@pytest.fixture
def admin(url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=60) as c:
        yield c


def error_of(r: httpx.Response, status: int, kind: str) -> str:
    assert r.status_code == status, r.text
    body = r.json()["error"]
    assert body["type"] == kind, body
    return str(body["message"])


def test_rest_the_user_accepts_an_admin_rejects_and_no_one_decides_for_another(
    maya: httpx.Client, admin: httpx.Client
) -> None:
    decisions = moved(maya.post)
    assert [d["action"] for d in decisions] == ["propose"]
    (p,) = maya.get("/v1/memory/proposals").json()["proposals"]
    assert (p["field"], p["status"], p["candidate"]["summary"]) == (
        "city",
        "pending",
        "User lives in Lisbon.",
    )
    assert maya.get(f"/v1/memory/proposals/{p['id']}").json() == p

    lena = {"X-Memlane-User": "lena"}
    moved(admin.post, lena)
    (q,) = admin.get("/v1/memory/proposals", headers=lena).json()["proposals"]
    # a bound key acts for its user only; another user's proposal does not exist for it
    error_of(maya.post(f"/v1/memory/proposals/{q['id']}/accept", headers=lena), 403, "forbidden")
    error_of(maya.post(f"/v1/memory/proposals/{q['id']}/accept"), 404, "not_found")
    assert admin.get(f"/v1/memory/proposals/{q['id']}", headers=lena).json()["status"] == "pending"

    r = maya.post(f"/v1/memory/proposals/{p['id']}/accept", json={"reason": "yes, I moved"})
    assert r.status_code == 200, r.text
    assert (r.json()["status"], r.json()["decided_by"], r.json()["note"]) == (
        "accepted",
        "user:maya",
        "yes, I moved",
    )
    history = maya.get(f"/v1/memory/{p['memory_id']}/history").json()["history"]
    assert [(h["event"], h["actor"]) for h in history][-2:] == [
        ("SUPERSEDE", "user:maya"),
        ("CONSENT", "user:maya"),
    ]
    assert maya.get(f"/v1/memory/{p['memory_id']}").json()["summary"] == "User lives in Lisbon."
    assert "already accepted" in error_of(
        maya.post(f"/v1/memory/proposals/{p['id']}/reject"), 409, "conflict"
    )

    r = admin.post(f"/v1/memory/proposals/{q['id']}/reject", headers=lena, json={"reason": "not true"})
    assert r.status_code == 200 and r.json()["decided_by"] == "admin:key#1", r.text
    assert admin.get(f"/v1/memory/{q['memory_id']}", headers=lena).json()["summary"] == "User lives in Porto."
    assert [
        x["status"] for x in admin.get("/v1/memory/proposals?status=all", headers=lena).json()["proposals"]
    ] == ["rejected"]
    assert maya.get("/v1/memory/proposals").json()["proposals"] == []


def test_rest_bad_input(maya: httpx.Client) -> None:
    assert "no proposal 'nope'" in error_of(maya.post("/v1/memory/proposals/nope/accept"), 404, "not_found")
    error_of(maya.get("/v1/memory/proposals/nope"), 404, "not_found")
    error_of(maya.get("/v1/memory/proposals?status=open"), 422, "invalid_request")
    error_of(
        maya.post("/v1/memory/proposals/nope/reject", json={"reason": "x" * 1001}), 422, "invalid_request"
    )
    error_of(maya.post("/v1/memory/proposals/nope/reject", json={"why": "extra"}), 422, "invalid_request")


# --- the command line ---------------------------------------------------------------------------


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A SQLite store where maya's move to Lisbon waits; no reading of ~/.memlane or MEMLANE_*."""
    monkeypatch.setenv("MEMLANE_CONFIG", str(tmp_path / "no-config.toml"))
    for name in ("MEMLANE_DB", "MEMLANE_EMBEDDER", "MEMLANE_USER"):
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "cli.db"
    with Memory(
        str(path), embedder="hash", llm="rules", settings=Settings(db=str(path), worker=False)
    ) as mem:
        t0 = utcnow() - timedelta(minutes=10)
        mem.add("I live in Porto.", user_id="maya", at=t0, wait=True)
        mem.add("I moved to Lisbon.", user_id="maya", at=t0 + timedelta(minutes=1), wait=True)
    return path


def cli(db: Path, *args: str) -> Result:
    return CliRunner().invoke(app, [*args, "--db", str(db), "--embedder", "hash"], env={"COLUMNS": "200"})


def test_cli_lists_accepts_and_rejects_with_one_error_line(db: Path) -> None:
    listed = cli(db, "proposals", "list", "--user", "maya", "--json")
    assert listed.exit_code == 0, listed.stderr
    (p,) = json.loads(listed.stdout)
    table = cli(db, "proposals", "list", "--user", "maya")
    assert table.exit_code == 0 and "city" in table.stdout and "1 proposal" in table.stdout

    missing = cli(db, "proposals", "accept", "nope", "--user", "maya")
    assert missing.exit_code == 1 and missing.stderr.startswith("error: no proposal 'nope'")
    other = cli(db, "proposals", "accept", p["id"], "--user", "lena")
    assert other.exit_code == 1 and "no proposal" in other.stderr

    done = cli(db, "proposals", "accept", p["id"], "--user", "maya", "--reason", "confirmed by phone")
    assert done.exit_code == 0 and done.stdout.startswith(f"accepted proposal {p['id']} (city)"), done.stderr
    again = cli(db, "proposals", "reject", p["id"], "--user", "maya")
    assert (
        again.exit_code == 2
        and again.stderr.startswith("error: proposal")
        and "already accepted" in again.stderr
    )
    history = json.loads(cli(db, "history", p["memory_id"], "--user", "maya", "--json").stdout)
    assert (history[-1]["event"], history[-1]["actor"]) == ("CONSENT", "admin:cli")
    assert "confirmed by phone" in history[-1]["reason"]
    bad = cli(db, "proposals", "list", "--user", "maya", "--status", "open")
    assert bad.exit_code == 2 and "unknown proposal status 'open'" in bad.stderr


# --- the scenario eval --------------------------------------------------------------------------


def test_scenario_runner_reports_how_it_treats_consent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memlane.evaluation import scenarios
    from memlane.providers.embed.hash import HashEmbedder

    monkeypatch.setenv("MEMLANE_CONFIG", str(tmp_path / "no-config.toml"))
    step = {"user": "lena", "type": "semantic", "category": "Personal", "key": "profile:residence:city"}
    scenario = {
        "id": "moved",
        "mode": "facts",
        "steps": [
            {**step, "at": "2026-01-05T10:00:00Z", "fact": "User lives in Lisbon."},
            {**step, "at": "2026-04-18T09:00:00Z", "fact": "User lives in Berlin."},
        ],
        "expect": {
            "active": [{"matches": "Berlin", "user": "lena"}],
            "superseded": [{"matches": "Lisbon", "user": "lena"}],
        },
    }
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(scenario) + "\n")
    outcomes = {
        mode: scenarios.run(scenarios.load([path]), HashEmbedder(64), llm="rules", consent=mode)[0]
        for mode in scenarios.CONSENT_MODES
    }
    assert (outcomes["accept"].passed, outcomes["accept"].accepted) == (True, 1)
    assert (
        not outcomes["hold"].passed
        and "no active memory of lena matches 'Berlin'" in outcomes["hold"].reasons[0]
    )
    assert (outcomes["off"].passed, outcomes["off"].accepted) == (True, 0)

    printed = CliRunner().invoke(
        app, ["eval", "scenarios", str(path), "--embedder", "hash"], env={"COLUMNS": "200"}
    )
    assert printed.exit_code == 0, printed.stderr
    assert printed.stdout.splitlines()[-2:] == [
        "consent: the runner accepted 1 proposed change(s) as the user in 1 scenario(s): moved "
        "(--consent hold leaves them pending)",
        "1 passed, 0 failed",
    ]
    held = CliRunner().invoke(
        app, ["eval", "scenarios", str(path), "--embedder", "hash", "--consent", "hold"]
    )
    assert held.exit_code == 1 and held.stdout.splitlines()[-1] == "0 passed, 1 failed"
