"""API keys, user-bound keys, loopback-only mode, and /metrics, on a real server on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from memlane import Memory
from memlane.model.config import Settings
from memlane.model.errors import ValidationError
from memlane.providers.embed.hash import HashEmbedder
from memlane.server.auth import KeyRing, is_loopback
from memlane.server.run import check_exposure
from tests.scripted_upstream import running_memlane

KEYS = ["admin-secret", "maya-secret:maya"]


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    location = str(tmp_path / "a.db")
    mem = Memory(location, embedder=HashEmbedder(64), settings=Settings(db=location))
    with running_memlane(mem, api_keys=KEYS) as base:
        yield base
    mem.close()


def client(url: str, key: str | None, **headers: str) -> httpx.Client:
    auth = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.Client(base_url=url, headers={**auth, **headers}, timeout=30)


def test_keys_are_required_when_configured(url: str) -> None:
    with client(url, None, **{"X-Memlane-User": "maya"}) as c:
        r = c.get("/v1/memory")
        assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
        assert r.json()["error"]["type"] == "unauthorized"
    with client(url, "wrong", **{"X-Memlane-User": "maya"}) as c:
        assert c.get("/v1/memory").status_code == 401
    assert httpx.get(f"{url}/healthz").status_code == 200  # liveness needs no key


def test_admin_key_acts_for_the_named_user_and_a_bound_key_for_its_own(url: str) -> None:
    with client(url, "admin-secret", **{"X-Memlane-User": "lena"}) as admin:
        lena_id = admin.post("/v1/memory", json={"summary": "User collects old maps."}).json()["id"]
    with client(url, "maya-secret") as maya:
        mine = maya.post("/v1/memory", json={"summary": "User likes tea."}).json()
        assert mine["user_id"] == "maya"
        assert maya.get(f"/v1/memory/{lena_id}").status_code == 404
        assert [m["user_id"] for m in maya.get("/v1/memory").json()["memories"]] == ["maya"]
        for header in ("X-Memlane-User", "X-OpenWebUI-User-Id"):
            other = maya.get("/v1/memory", headers={header: "lena"})
            assert other.status_code == 403 and other.json()["error"]["type"] == "forbidden"
        assert maya.get("/v1/memory", headers={"X-Memlane-User": "maya"}).status_code == 200
        assert maya.get("/metrics").status_code == 403  # metrics need an admin key
    with client(url, "admin-secret") as admin:
        assert admin.get("/v1/memory").json()["error"]["type"] == "missing_user"
        metrics = admin.get("/metrics")
        assert metrics.status_code == 200 and "memlane_http_request_duration_seconds" in metrics.text


def test_metrics_cover_requests_formation_queue_embedder_and_llm(url: str) -> None:
    with client(url, "admin-secret", **{"X-Memlane-User": "maya"}) as admin:
        admin.post("/v1/memory/turns", json={"messages": "I live in Lisbon.", "wait": True})
        admin.post("/v1/memory/search", json={"query": "Lisbon"})
        text = admin.get("/metrics").text
    assert 'route="/v1/memory/search"' in text and 'route="/v1/memory/{memory_id}"' not in text
    assert 'memlane_formation_events_total{type="memory.candidate"}' in text
    assert 'memlane_formation_events_total{type="memory.created"}' in text
    assert 'memlane_job_queue_depth{status="pending"}' in text
    assert 'memlane_embedder_duration_seconds_count{embedder="hash"}' in text
    assert "maya" not in text and "Lisbon" not in text  # no user data in labels


def test_a_server_built_from_settings_times_its_llm(tmp_path: Path) -> None:
    from memlane.server import create_app
    from tests.scripted_upstream import LoopbackServer

    app = create_app(settings=Settings(db=str(tmp_path / "b.db"), embedder="hash", llm="rules"))
    with (
        LoopbackServer(app) as server,
        httpx.Client(base_url=server.url, headers={"X-Memlane-User": "maya"}) as c,
    ):
        assert c.post(
            "/v1/memory/turns", json={"messages": "My sister Ana lives in Porto.", "wait": True}
        ).is_success
        text = c.get("/metrics").text
    assert 'memlane_llm_duration_seconds_count{llm="rules",task="extract"} 1.0' in text


def test_no_keys_means_loopback_only() -> None:
    check_exposure("127.0.0.1", Settings(api_keys=[]))
    check_exposure("::1", Settings(api_keys=[]))
    check_exposure("localhost", Settings(api_keys=[]))
    for host in ("0.0.0.0", "::", "192.168.1.5", "example.org"):
        with pytest.raises(ValidationError, match="MEMLANE_API_KEYS"):
            check_exposure(host, Settings(api_keys=[]))
    check_exposure("0.0.0.0", Settings(api_keys=["k"]))
    assert (
        is_loopback("127.0.0.1")
        and is_loopback("::1")
        and not is_loopback("10.0.0.1")
        and not is_loopback(None)
    )


def test_serve_command_refuses_a_public_address_without_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from memlane.cli.app import app

    monkeypatch.delenv("MEMLANE_API_KEYS", raising=False)
    result = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0", "--embedder", "hash"])
    assert result.exit_code == 2 and "MEMLANE_API_KEYS" in result.output


def test_key_entries_are_validated() -> None:
    ring = KeyRing(["a", "b:maya"])
    assert ring.lookup("a") is not None and ring.lookup("a").is_admin  # type: ignore[union-attr]
    assert ring.lookup("b").user == "maya"  # type: ignore[union-attr]
    assert ring.lookup("b:maya") is None and ring.lookup("") is None
    with pytest.raises(ValueError):
        KeyRing(["k:not a user"])
    with pytest.raises(ValueError):
        KeyRing([":maya"])
