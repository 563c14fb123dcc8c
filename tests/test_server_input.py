"""Request size caps and notices over real HTTP (uvicorn on loopback): a body over
MEMLANE_MAX_BODY_BYTES is a 413 with the JSON error body, metadata over its cap a 400, and an unknown
category is stored as Other with a warning in the response. Nothing refused is stored."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from memlane import Memory
from memlane.model.config import Settings
from memlane.providers.embed.hash import HashEmbedder
from tests.scripted_upstream import running_memlane

CAP = 64 * 1024


@pytest.fixture
def maya(tmp_path: Path) -> Iterator[httpx.Client]:
    location = str(tmp_path / "s.db")
    settings = Settings(db=location, server_max_body_bytes=CAP, memory_metadata_max_bytes=4096)
    with (
        Memory(location, embedder=HashEmbedder(64), settings=settings) as mem,
        running_memlane(mem) as url,
        httpx.Client(base_url=url, headers={"X-Memlane-User": "maya"}, timeout=30) as client,
    ):
        yield client


def error_of(resp: httpx.Response) -> dict[str, str]:
    body = resp.json()
    assert set(body) == {"error"} and {"type", "message"} <= set(body["error"]), body
    return body["error"]


def nothing_stored(client: httpx.Client) -> bool:
    return client.get("/v1/memory", params={"include_inactive": "true"}).json()["memories"] == []


def test_a_body_over_the_cap_is_a_413(maya: httpx.Client) -> None:
    big = {"summary": "User likes tea.", "metadata": {"blob": "x" * (20 * 1024 * 1024)}}
    r = maya.post("/v1/memory", json=big)
    assert r.status_code == 413 and error_of(r)["type"] == "payload_too_large"
    assert "MEMLANE_MAX_BODY_BYTES" in error_of(r)["message"]
    assert nothing_stored(maya)


def test_a_chunked_body_over_the_cap_is_a_413(maya: httpx.Client) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"summary": "User likes tea.", "metadata": {"blob": "'
        for _ in range(40):
            yield b"x" * 4096
        yield b'"}}'

    r = maya.post("/v1/memory", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and error_of(r)["type"] == "payload_too_large"
    assert nothing_stored(maya)


def test_metadata_over_its_cap_is_a_400(maya: httpx.Client) -> None:
    r = maya.post("/v1/memory", json={"summary": "User likes tea.", "metadata": {"blob": "x" * 8000}})
    assert r.status_code == 400 and "MEMORY_METADATA_MAX_BYTES" in error_of(r)["message"]
    assert nothing_stored(maya)


def test_an_unknown_category_is_stored_as_other_with_a_warning(maya: httpx.Client) -> None:
    r = maya.post("/v1/memory", json={"summary": "User studies beetles.", "category": "Zoology"})
    assert r.status_code == 200, r.text
    assert r.json()["category"] == "Other"
    assert r.json()["warnings"] == [r.json()["warnings"][0]] and "'Zoology'" in r.json()["warnings"][0]
    up = maya.patch(f"/v1/memory/{r.json()['id']}", json={"category": "finance"})
    assert up.json()["category"] == "Finance" and up.json()["warnings"] == []
    up = maya.patch(f"/v1/memory/{r.json()['id']}", json={"category": "Hobbies"})
    assert up.json()["category"] == "Other" and "'Hobbies' is not configured" in up.json()["warnings"][0]
    assert "warnings" not in maya.get(f"/v1/memory/{r.json()['id']}").json()  # a notice, not stored


@pytest.mark.parametrize("raw_id", ["F%0Ck", "a%25b"])
def test_a_percent_escape_in_a_memory_id_is_refused_not_decoded_into_a_control_character(
    maya: httpx.Client, raw_id: str
) -> None:
    resp = maya.get(f"/v1/memory/{raw_id}/history")
    assert resp.status_code == 422
    assert "control characters or %" in error_of(resp)["message"]
