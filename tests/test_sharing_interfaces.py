"""Shared and global memories through REST (a real server on loopback, SQLite and PostgreSQL, with API
keys) and the CLI (a real SQLite file). The engine's rules are in test_shared_memories.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from memlane import Memory
from memlane.model.config import Settings
from memlane.model.ids import GLOBAL_USER
from tests.formation_helpers import local_embedder
from tests.scripted_upstream import running_memlane
from tests.test_cli import as_json, cli, ok

KEYS = ["admin-secret", "maya-secret:maya", "lena-secret:lena"]
OFFICE = "The team office is in Lisbon."
SUNDAYS = "The help desk is closed on Sundays."


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    location = (
        str(tmp_path / "s.db") if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    )
    mem = Memory(location, embedder=local_embedder(), settings=Settings(db=location))
    with running_memlane(mem, api_keys=KEYS) as base:
        yield base
    mem.close()


def client(url: str, key: str, **headers: str) -> httpx.Client:
    return httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}", **headers}, timeout=30)


def error(resp: httpx.Response, status: int) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    body: dict[str, Any] = resp.json()["error"]
    return body


def test_rest_sharing_acts_for_the_keys_user_and_refusals_change_nothing(url: str) -> None:
    with (
        client(url, "maya-secret") as maya,
        client(url, "lena-secret") as lena,
        client(url, "admin-secret", **{"X-Memlane-User": "sam"}) as sam,
    ):
        mid = maya.post("/v1/memory", json={"summary": OFFICE, "category": "Work"}).json()["id"]
        shared = maya.post(f"/v1/memory/{mid}/share", json={"with_users": ["lena", "sam"]})
        assert shared.status_code == 200, shared.text
        assert [k["user_id"] for k in shared.json()["links"]] == ["lena", "sam"]
        assert lena.get(f"/v1/memory/{mid}").json()["summary"] == OFFICE
        hits = lena.post("/v1/memory/search", json={"query": "where is the team office?"}).json()["results"]
        assert [h["memory"]["id"] for h in hits] == [mid]
        before = maya.get(f"/v1/memory/{mid}").json()

        refused = error(lena.patch(f"/v1/memory/{mid}", json={"summary": "Faro."}), 403)
        assert refused["type"] == "forbidden" and "shared with them by 'maya'" in refused["message"]
        assert error(lena.delete(f"/v1/memory/{mid}"), 403)["type"] == "forbidden"
        assert error(lena.post(f"/v1/memory/{mid}/purge"), 403)["type"] == "forbidden"
        assert (
            error(lena.post(f"/v1/memory/{mid}/share", json={"with_users": ["tom"]}), 403)["type"]
            == "forbidden"
        )
        assert (
            error(maya.post(f"/v1/memory/{mid}/share", json={"with_users": ["maya"]}), 409)["type"]
            == "conflict"
        )
        error(maya.post(f"/v1/memory/{mid}/share", json={"with_users": ["bad id"]}), 422)
        error(maya.post(f"/v1/memory/{mid}/share", json={"with_users": []}), 422)
        error(maya.post("/v1/memory/no-such-id/share", json={"with_users": ["lena"]}), 404)
        error(maya.post(f"/v1/memory/{mid}/unshare", json={"from_users": ["tom"]}), 404)
        error(maya.post(f"/v1/memory/{mid}/share", json={"with_users": [GLOBAL_USER]}), 422)
        assert maya.get(f"/v1/memory/{mid}").json() == before
        assert [k["unlinked_at"] for k in maya.get(f"/v1/memory/{mid}/shares").json()["links"]] == [
            None,
            None,
        ]

        closed = lena.post(f"/v1/memory/{mid}/unshare")
        assert closed.status_code == 200 and closed.json()["links"][0]["unlinked_at"] is not None
        error(lena.get(f"/v1/memory/{mid}"), 404)
        assert sam.get(f"/v1/memory/{mid}").status_code == 200  # sam keeps his link
        assert [k["user_id"] for k in lena.get(f"/v1/memory/{mid}/shares").json()["links"]] == ["lena"]
        history = lena.get(f"/v1/memory/{mid}/history").json()["history"]
        assert sorted(h["event"] for h in history) == ["SHARE", "UNSHARE"]


def test_global_memories_need_the_admin_key_and_reach_new_users(url: str) -> None:
    with (
        client(url, "maya-secret") as maya,
        client(url, "admin-secret") as admin,
        client(url, "admin-secret", **{"X-Memlane-User": "newbie"}) as newbie,
    ):
        assert error(maya.post("/v1/global", json={"summary": SUNDAYS}), 403)["type"] == "forbidden"
        assert error(maya.get("/v1/global"), 403)["type"] == "forbidden"
        error(admin.post("/v1/global", json={"summary": SUNDAYS, "user_id": "maya"}), 422)
        put = admin.post("/v1/global", json={"summary": SUNDAYS, "category": "Other"})
        assert put.status_code == 200 and put.json()["user_id"] == GLOBAL_USER
        gid = put.json()["id"]
        assert [m["id"] for m in admin.get("/v1/global").json()["memories"]] == [gid]
        block = newbie.post("/v1/memory/context", json={"query": "when is the help desk closed?"}).json()
        assert SUNDAYS in block["text"]
        error(newbie.delete(f"/v1/memory/{gid}"), 403)
        error(maya.post(f"/v1/global/{gid}/purge"), 403)
        assert admin.post(f"/v1/global/{gid}/purge", json={"reason": "outdated"}).json() == {
            "id": gid,
            "state": "purged",
        }
        error(newbie.get(f"/v1/memory/{gid}"), 404)
        error(admin.post("/v1/global/no-such-id/purge"), 404)


def test_cli_share_unshare_and_global(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLANE_CONFIG", str(tmp_path / "no-config.toml"))
    for name in ("MEMLANE_DB", "MEMLANE_EMBEDDER", "MEMLANE_USER"):
        monkeypatch.delenv(name, raising=False)
    db = tmp_path / "cli.db"
    rec = as_json(cli("put", OFFICE, "--user", "maya", "--json", db=db))
    links = as_json(
        cli("share", rec["id"], "--user", "maya", "--with", "lena", "--with", "sam", "--json", db=db)
    )
    assert [k["user_id"] for k in links] == ["lena", "sam"]
    assert as_json(cli("get", rec["id"], "--user", "lena", "--json", db=db))["summary"] == OFFICE
    listed = " ".join(ok(cli("list", "--user", "lena", db=db)).stdout.split())
    assert "shared by maya: The team office" in listed  # lena's list names whose words these are

    refused = cli("delete", rec["id"], "--user", "lena", db=db)
    assert (
        refused.exit_code == 2 and refused.stderr.startswith("error: ") and "not change it" in refused.stderr
    )
    assert cli("share", "no-such-id", "--user", "maya", "--with", "lena", db=db).exit_code == 1
    assert cli("share", rec["id"], "--user", "maya", "--with", "maya", db=db).exit_code == 2
    assert as_json(cli("get", rec["id"], "--user", "maya", "--json", db=db)) == rec

    ok(cli("unshare", rec["id"], "--user", "lena", db=db))
    assert cli("get", rec["id"], "--user", "lena", db=db).exit_code == 1
    shares = as_json(cli("shares", rec["id"], "--user", "maya", "--json", db=db))
    assert [(k["user_id"], k["unlinked_at"] is None) for k in shares] == [("lena", False), ("sam", True)]

    glob = as_json(cli("global", "put", SUNDAYS, "--json", db=db))
    assert glob["user_id"] == GLOBAL_USER
    found = json.loads(ok(cli("search", "help desk closed", "--user", "newbie", "--json", db=db)).stdout)
    assert [h["memory"]["id"] for h in found] == [glob["id"]]
    assert cli("global", "purge", glob["id"], db=db).exit_code == 2  # needs --yes
    ok(cli("global", "purge", glob["id"], "--yes", db=db))
    assert json.loads(ok(cli("global", "list", "--json", db=db)).stdout) == []
    assert cli("list", "--user", GLOBAL_USER, db=db).exit_code == 2


def test_rest_a_share_is_labelled_with_its_owner_and_never_erases_what_the_recipient_said(url: str) -> None:
    """The two attacks of issue 30 through the server: lena's context names maya as the source of what maya
    shared, and lena's own restatement outlives maya's unshare, delete and purge."""
    with client(url, "maya-secret") as maya, client(url, "lena-secret") as lena:
        for how, band in (("unshare", "Zqvelorin"), ("delete", "Zqmarbeth"), ("purge", "Zqtolvane")):
            shared = maya.post("/v1/memory", json={"summary": f"User's favourite band is {band}."}).json()[
                "id"
            ]
            assert maya.post(f"/v1/memory/{shared}/share", json={"with_users": ["lena"]}).status_code == 200
            block = lena.post("/v1/memory/context", json={"query": "What is my favourite band?"}).json()
            assert [line for line in block["text"].splitlines() if band in line] == [
                f"- [Other] shared by maya: User's favourite band is {band}."
            ]
            listed = lena.get("/v1/memory", params={"limit": 1000}).json()["memories"]
            assert [(m["user_id"], m["shared_by"]) for m in listed if band in m["summary"]] == [
                ("maya", "maya")
            ]

            said = lena.post(
                "/v1/memory/turns", json={"messages": f"My favourite band is {band}.", "wait": True}
            )
            assert said.status_code in (200, 202), said.text
            if how == "unshare":
                gone = maya.post(f"/v1/memory/{shared}/unshare", json={"from_users": ["lena"]})
            elif how == "delete":
                gone = maya.delete(f"/v1/memory/{shared}")
            else:
                gone = maya.post(f"/v1/memory/{shared}/purge", json={})
            assert gone.status_code == 200, gone.text

            listed = lena.get("/v1/memory", params={"limit": 1000}).json()["memories"]
            assert [(m["user_id"], m["shared_by"]) for m in listed if band in m["summary"]] == [
                ("lena", None)
            ], how
            block = lena.post("/v1/memory/context", json={"query": "What is my favourite band?"}).json()
            assert any(band in line and "shared by" not in line for line in block["text"].splitlines()), how
