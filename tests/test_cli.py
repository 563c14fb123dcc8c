"""The ``memlane`` command line against a real SQLite file (hash embedder for speed)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from memlane.cli.app import app

USER = "maya"


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No reading of ~/.memlane or the caller's MEMLANE_* variables."""
    monkeypatch.setenv("MEMLANE_CONFIG", str(tmp_path / "no-config.toml"))
    for name in ("MEMLANE_DB", "MEMLANE_EMBEDDER", "MEMLANE_USER"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "cli.db"


def cli(*args: str, db: Path | None = None, embedder: str | None = "hash", **kw: Any) -> Result:
    extra = [*(("--db", str(db)) if db else ()), *(("--embedder", embedder) if embedder else ())]
    return CliRunner().invoke(app, [*args, *extra], env={"COLUMNS": "200"}, **kw)


def ok(result: Result) -> Result:
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def as_json(result: Result) -> Any:
    return json.loads(ok(result).stdout)


def put(db: Path, summary: str, *args: str) -> dict[str, Any]:
    rec: dict[str, Any] = as_json(cli("put", summary, "--user", USER, *args, "--json", db=db))
    return rec


def exported(db: Path, user: str = USER) -> list[dict[str, Any]]:
    return [json.loads(line) for line in ok(cli("export", "--user", user, db=db)).stdout.splitlines()]


def memories(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted((r for r in rows if r["kind"] == "memory"), key=lambda r: r["id"])


@pytest.fixture
def seeded(db: Path) -> dict[str, Any]:
    put(db, "User has a cat named Luna.", "--key", "profile:pet:luna", "--category", "personal")
    return put(
        db,
        "User lives in Lisbon.",
        "--key",
        "profile:residence:city",
        "--importance",
        "4",
        "--pinned",
        "--tag",
        "home",
        "--tag",
        "city",
    )


def test_put_prints_the_stored_memory(db: Path) -> None:
    out = ok(cli("put", "User is vegetarian.", "--user", USER, "--category", "health", db=db)).stdout
    assert "User is vegetarian." in out and "semantic" in out and "Health" in out
    rec = put(db, "User works at a solar startup.", "--type", "semantic", "--category", "Work")
    assert (rec["type"], rec["category"], rec["user_id"]) == ("semantic", "Work", USER)


def test_get_list_search_and_history(db: Path, seeded: dict[str, Any]) -> None:
    rid = seeded["id"]
    assert seeded["pinned"] and seeded["tags"] == ["home", "city"] and seeded["importance"] == 4
    assert as_json(cli("get", rid, "--user", USER, "--json", db=db)) == seeded
    assert rid in ok(cli("get", rid, "--user", USER, db=db)).stdout

    listed = as_json(cli("list", "--user", USER, "--json", db=db))
    assert {r["summary"] for r in listed} == {"User has a cat named Luna.", "User lives in Lisbon."}
    only = as_json(cli("list", "--user", USER, "--category", "Personal", "--json", db=db))
    assert [r["summary"] for r in only] == ["User has a cat named Luna."]
    assert "User lives in Lisbon." in ok(cli("list", "--user", USER, db=db)).stdout

    hits = as_json(cli("search", "User lives in Lisbon.", "--user", USER, "--json", db=db))
    assert hits[0]["rank"] == 1 and hits[0]["memory"]["id"] == rid
    assert set(hits[0]["breakdown"]) >= {"similarity", "importance", "recency", "pinned", "final"}
    assert hits[0]["breakdown"]["pinned"] == 1.0
    filtered = as_json(
        cli("search", "Lisbon", "--user", USER, "--filter", '{"category": "Personal"}', "--json", db=db)
    )
    assert [h["memory"]["summary"] for h in filtered] == ["User has a cat named Luna."]
    table = ok(cli("search", "where does she live", "--user", USER, db=db)).stdout
    assert all(word in table for word in ("score", "sim", "imp", "rec", "pin", "User lives in Lisbon."))

    put(db, "User lives in Porto.", "--key", "profile:residence:city")  # same key: updates in place
    events = as_json(cli("history", rid, "--user", USER, "--json", db=db))
    assert [e["event"] for e in events] == ["ADD", "UPDATE"]
    shown = ok(cli("history", rid, "--user", USER, db=db)).stdout
    assert "User lives in Lisbon. -> User lives in Porto." in shown and "cli" in shown
    assert as_json(cli("users", "--json", db=db)) == [USER]


def test_delete_restore_purge(db: Path, seeded: dict[str, Any]) -> None:
    rid = seeded["id"]
    assert "restore" in ok(cli("delete", rid, "--user", USER, db=db)).stdout
    assert rid not in {r["id"] for r in as_json(cli("list", "--user", USER, "--json", db=db))}
    everything = as_json(cli("list", "--user", USER, "--all", "--json", db=db))
    assert {r["id"]: r["state"] for r in everything}[rid] == "soft_deleted"
    assert "User lives in Lisbon." in ok(cli("restore", rid, "--user", USER, db=db)).stdout
    assert as_json(cli("get", rid, "--user", USER, "--json", db=db))["state"] == "active"
    ok(cli("purge", rid, "--user", USER, "--yes", db=db))
    assert as_json(cli("get", rid, "--user", USER, "--json", db=db))["state"] == "purged"
    events = [e["event"] for e in as_json(cli("history", rid, "--user", USER, "--json", db=db))]
    assert events == ["ADD", "DELETE", "RESTORE", "PURGE"]


def test_compact_after_a_purge_leaves_the_text_in_neither_file(db: Path, seeded: dict[str, Any]) -> None:
    rec = put(db, "User's gate code is Vexmorra 2231.")
    for n in range(40):  # pages to free
        put(db, f"User noted item {n} of a long packing list for the trip.")
    ok(cli("purge", rec["id"], "--user", USER, "--yes", db=db))
    sizes = as_json(cli("compact", "--json", db=db))
    assert set(sizes) == {"bytes_before", "bytes_after"} and 0 < sizes["bytes_after"] <= sizes["bytes_before"]
    files = [p for p in (db, Path(f"{db}-wal")) if p.exists()]
    assert files and not any(b"Vexmorra" in p.read_bytes() for p in files)
    assert "compacted:" in ok(cli("compact", db=db)).stdout
    assert "Luna" in ok(cli("list", "--user", USER, db=db)).stdout  # the live memories stay


def test_compact_of_a_missing_database_is_an_error(tmp_path: Path) -> None:
    result = cli("compact", db=tmp_path / "typo.db")
    assert result.exit_code == 1 and result.stderr.startswith("error: no memlane database")


def test_export_import_round_trip(db: Path, seeded: dict[str, Any], tmp_path: Path) -> None:
    put(db, "User lives in Porto.", "--key", "profile:residence:city")
    out = tmp_path / "maya.jsonl"
    assert "2 memories" in ok(cli("export", "--user", USER, "--out", str(out), db=db)).stderr
    assert [json.loads(line) for line in out.read_text().splitlines()] == exported(db)

    other = tmp_path / "other.db"
    assert "imported 2 memories" in ok(cli("import", str(out), db=other)).stdout
    assert memories(exported(other)) == memories(exported(db))
    history = sorted((r for r in exported(other) if r["kind"] == "history"), key=lambda r: r["id"])
    assert history == sorted((r for r in exported(db) if r["kind"] == "history"), key=lambda r: r["id"])
    hits = as_json(cli("search", "User lives in Porto.", "--user", USER, "--json", db=other))
    assert hits[0]["memory"]["id"] == seeded["id"]  # re-embedded on import


def bad_rows(tmp_path: Path) -> str:
    path = tmp_path / "bad.jsonl"
    path.write_text(
        json.dumps({"kind": "memory", "id": "m1", "user_id": USER, "summary": "ok"})
        + "\n"
        + json.dumps({"kind": "memory", "id": "m2", "user_id": USER})
        + "\n"
    )  # no summary
    return str(path)


BAD_INPUTS: list[tuple[str, list[str], int, str]] = [
    ("empty summary", ["put", "  ", "--user", USER], 2, "summary is empty"),
    ("unknown type", ["put", "x", "--user", USER, "--type", "opinion"], 2, "--type"),
    ("bad user id", ["put", "x", "--user", "bad user!"], 2, "invalid user_id"),
    ("importance out of range", ["put", "x", "--user", USER, "--importance", "9"], 2, "--importance"),
    ("missing user", ["list"], 2, "--user"),
    ("unknown command", ["lisst", "--user", USER], 2, "lisst"),
    ("unknown filter field", ["search", "x", "--user", USER, "--filter", '{"colour": "red"}'], 2, "colour"),
    ("filter not JSON", ["search", "x", "--user", USER, "--filter", "{colour"], 2, "not valid JSON"),
    ("bad threshold", ["search", "x", "--user", USER, "--threshold", "3"], 2, "threshold"),
    ("missing id: get", ["get", "no-such-id", "--user", USER], 1, "no memory 'no-such-id'"),
    ("missing id: delete", ["delete", "no-such-id", "--user", USER], 1, "no-such-id"),
    ("missing id: history", ["history", "no-such-id", "--user", USER], 1, "no-such-id"),
    ("missing id: purge", ["purge", "no-such-id", "--user", USER, "--yes"], 1, "no-such-id"),
    ("restore an active memory", ["restore", "@id", "--user", USER], 2, "cannot restore"),
    ("purge without --yes", ["purge", "@id", "--user", USER], 2, "--yes"),
    ("import a bad row", ["import", "@bad"], 2, "row 2"),
    ("import a missing file", ["import", "@missing"], 2, "cannot read"),
]


@pytest.mark.parametrize(
    ("args", "code", "fragment"), [c[1:] for c in BAD_INPUTS], ids=[c[0] for c in BAD_INPUTS]
)
def test_bad_input_is_one_error_line_and_changes_nothing(
    db: Path, seeded: dict[str, Any], tmp_path: Path, args: list[str], code: int, fragment: str
) -> None:
    names = {"@id": seeded["id"], "@bad": bad_rows(tmp_path), "@missing": str(tmp_path / "nope.jsonl")}
    before = exported(db)
    result = cli(*(names.get(a, a) for a in args), db=db)
    assert result.exit_code == code, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert fragment in lines[0]
    assert "Traceback" not in result.output
    assert exported(db) == before


def test_read_commands_do_not_create_a_database(tmp_path: Path) -> None:
    missing = tmp_path / "typo.db"
    result = cli("list", "--user", USER, db=missing)
    assert result.exit_code == 1 and result.stderr.startswith("error: no memlane database")
    assert not missing.exists()


def test_help_documents_exit_codes() -> None:
    out = ok(CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"})).stdout
    assert "1 not found" in out and "2 bad input" in out
    for command in (
        "put",
        "get",
        "list",
        "search",
        "history",
        "delete",
        "restore",
        "purge",
        "export",
        "import",
        "users",
        "demo",
    ):
        assert command in out


def test_bare_command_prints_help() -> None:
    result = CliRunner().invoke(app, [])
    assert result.exit_code == 0 and "Usage" in result.output


def test_demo_refuses_an_existing_file(db: Path, seeded: dict[str, Any]) -> None:
    result = cli("demo", db=db)
    assert result.exit_code == 2 and "already exists" in result.stderr


def test_demo_with_the_local_embedder(tmp_path: Path) -> None:
    """The demo runs the formation pipeline: facts stored, chit-chat not, the move waits for consent and,
    once the user says yes, corrects the city."""
    path = tmp_path / "demo.db"
    out = ok(cli("demo", db=path, embedder="local")).stdout
    assert "nothing to remember" in out  # chit-chat stores nothing
    assert re.search(r"waits for consent: User lives in Lisbon\. -> .*Porto", out)
    assert re.search(r"corrected: User lives in Lisbon\. -> .*Porto", out) and "accepted by user:maya" in out
    assert out.count("score = ") == 4
    stored = as_json(cli("list", "--user", "maya", "--json", db=path, embedder="local"))
    summaries = " | ".join(r["summary"] for r in stored)
    for fact in ("Maya", "Porto", "data engineer", "bullet points"):
        assert fact in summaries
    assert "Lisbon" not in summaries  # superseded, not piled up beside Porto
    assert f"{len(stored)} memories stored for maya" in out
