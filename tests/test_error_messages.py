"""Error messages say which field is wrong and what it expects, and nothing of the server's insides:
no pydantic internals (input echoed back, error codes, documentation links, union branch names,
regular expressions) and no file paths of the server. REST on a real server on loopback over a SQLite
file; the CLI against a real SQLite file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from memlane import Memory
from memlane.cli.app import app as cli_app
from memlane.model.config import Settings
from memlane.providers.embed.hash import HashEmbedder
from memlane.server import create_app
from memlane.server.schema_errors import PATTERN_HELP
from tests.scripted_upstream import running_memlane

INTERNALS = (
    "input_value",
    "input_type",
    "errors.pydantic.dev",
    "type=",
    "function-",
    "constrained-",
    "list[",
    "Value error",
    "validation error for",
    "^[",
    "\\x00",
)


def assert_plain(message: str) -> None:
    for internal in INTERNALS:
        assert internal not in message, f"{internal!r} in {message!r}"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    broken = tmp_path / "srv" / "config" / "categories.yaml"
    broken.parent.mkdir(parents=True)
    broken.write_text("categories: [unclosed\n")
    location = str(tmp_path / "e.db")
    mem = Memory(
        location, embedder=HashEmbedder(64), settings=Settings(db=location, categories_file=str(broken))
    )
    with running_memlane(mem) as url:
        yield url, tmp_path
    mem.close()


@pytest.mark.parametrize(
    "method,path,body,headers,expected",
    [
        (
            "post",
            "/v1/memory",
            {"summary": "   "},
            {},
            "summary: must contain visible text (not only whitespace) and no NUL characters",
        ),
        (
            "post",
            "/v1/memory",
            {"summary": "x", "metadata": {"n": ["a\u0000"]}},
            {},
            "metadata.n[0]: must not contain NUL characters",
        ),
        (
            "post",
            "/v1/memory",
            {"summary": "x", "importance": 9},
            {},
            "importance: should be less than or equal to 5",
        ),
        ("post", "/v1/memory", {}, {}, "summary: is required"),
        (
            "post",
            "/v1/memory",
            {"summary": "x", "at": "yesterday"},
            {},
            "at: expected an RFC 3339 time with an offset, years 1000-8999, e.g. 2026-01-31T09:00:00Z",
        ),
        (
            "post",
            "/v1/memory/search",
            {"query": "x", "filters": {"importance": {"$gte": "high"}}},
            {},
            "filters.importance.$gte: should be a valid integer",
        ),
        (
            "post",
            "/v1/memory/search",
            {"query": "x", "filters": {"tags": {"$gt": "a"}}},
            {},
            "filters.tags.$gt: is not an operator this field takes",
        ),
        (
            "post",
            "/v1/memory/turns",
            {"messages": [{"role": "robot", "content": "hi"}]},
            {},
            "messages[0].role: should be 'user', 'assistant', 'system' or 'tool'",
        ),
        (
            "post",
            "/v1/memory/turns",
            {"messages": 5},
            {},
            "messages: should be a valid string or a valid list",
        ),
        ("post", "/v1/memory", [1], {}, "request body: should be a JSON object"),
        ("get", "/v1/memory?limit=abc", None, {}, "query parameter limit: should be a valid integer"),
        (
            "get",
            "/v1/memory",
            None,
            {"X-Memlane-User": "no spaces"},
            "header X-Memlane-User: must be a user id: 1-128 letters, digits or _ . : @ -, starting with a letter or digit",
        ),
    ],
)
def test_a_request_off_the_schema_names_the_field_and_what_it_expects(
    served: tuple[str, Path], method: str, path: str, body: Any, headers: dict[str, str], expected: str
) -> None:
    url, _ = served
    resp = httpx.request(
        method.upper(), f"{url}{path}", json=body, headers={"X-Memlane-User": "maya", **headers}
    )
    assert resp.status_code == 422, resp.text
    error = resp.json()["error"]
    assert error["type"] == "invalid_request" and error["message"].startswith(expected), error["message"]
    assert_plain(resp.text)
    assert all(set(d) == {"in", "field", "message"} for d in error["details"])


def test_a_body_that_is_not_json(served: tuple[str, Path]) -> None:
    url, _ = served
    resp = httpx.post(
        f"{url}/v1/memory",
        content=b'{"summary": ',
        headers={"X-Memlane-User": "maya", "Content-Type": "application/json"},
    )
    assert resp.status_code == 422 and resp.json()["error"]["message"] == "request body: is not valid JSON"


def test_a_server_side_failure_names_no_server_path(served: tuple[str, Path]) -> None:
    url, tmp_path = served
    resp = httpx.post(
        f"{url}/v1/memory/query",
        json={"query": "where do I live", "agent": "assistant"},
        headers={"X-Memlane-User": "maya"},
    )
    assert resp.status_code == 500, resp.text
    message = resp.json()["error"]["message"]
    assert "categories.yaml" in message and "not valid YAML" in message  # what is wrong, for the operator
    assert str(tmp_path) not in resp.text and "/srv/config" not in resp.text


def test_every_pattern_of_the_api_is_explained_in_words(tmp_path: Path) -> None:
    location = str(tmp_path / "o.db")
    with Memory(location, embedder=HashEmbedder(64), settings=Settings(db=location)) as mem:
        doc = json.dumps(create_app(mem).openapi())
    patterns = {p for p in _patterns(json.loads(doc))}
    assert patterns and patterns <= set(PATTERN_HELP), patterns - set(PATTERN_HELP)


def _patterns(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("pattern"), str):
            yield node["pattern"]
        for value in node.values():
            yield from _patterns(value)
    elif isinstance(node, list):
        for value in node:
            yield from _patterns(value)


def cli(*args: str, env: dict[str, str]) -> tuple[int, str]:
    result = CliRunner().invoke(cli_app, list(args), env={"COLUMNS": "200", **env})
    return result.exit_code, result.stderr


def test_cli_settings_and_import_errors_name_the_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMLANE_CONFIG", str(tmp_path / "no-config.toml"))
    db = str(tmp_path / "c.db")
    code, err = cli("list", "--user", "maya", "--db", db, env={"MEMORY_MAX_WRITES_PER_TURN": "many"})
    assert code == 2 and "MEMORY_MAX_WRITES_PER_TURN: should be a valid integer" in err, err
    assert_plain(err)
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"kind": "memory", "id": 3, "summary": "User likes tea."}) + "\n")
    code, err = cli("import", str(rows), "--db", db, "--embedder", "hash", env={})
    assert code == 2 and "row 1: id: should be a valid string; user_id: is required" in err, err
    assert_plain(err)
