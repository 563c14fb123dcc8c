"""Memory ids as a person types them after reading a table: a unique prefix (as git takes commit ids)
or the tail an 80-column table shows after its ellipsis, in every command that takes a memory id. A
fragment that names several memories, or none, is one ``error:`` line and changes nothing."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, cast

from typer.testing import CliRunner

from memlane.cli.app import app
from tests.test_cli import USER, as_json, cli, exported, ok, put


def shortest_unique_prefix(rid: str, others: list[str]) -> str:
    size = 4
    while any(o.startswith(rid[:size]) for o in others):
        size += 1
    return rid[:size]


def test_a_unique_prefix_works_in_every_command(location: str) -> None:
    db = cast(Path, location)  # cli() passes str(db): a SQLite file or a PostgreSQL URL
    luna = put(db, "User has a cat named Luna.", "--key", "profile:pet:luna")
    city = put(db, "User lives in Lisbon.")
    prefix = shortest_unique_prefix(city["id"], [luna["id"]])
    assert len(prefix) < len(city["id"])

    assert as_json(cli("get", prefix, "--user", USER, "--json", db=db)) == city
    assert ok(cli("delete", prefix, "--user", USER, db=db)).stdout.startswith(f"deleted {city['id']} ")
    assert as_json(cli("get", city["id"], "--user", USER, "--json", db=db))["state"] == "soft_deleted"
    assert ok(cli("restore", prefix, "--user", USER, db=db)).stdout.startswith(f"restored {city['id']}:")
    events = [e["event"] for e in as_json(cli("history", prefix, "--user", USER, "--json", db=db))]
    assert len(events) == 3 and all(
        e["memory_id"] == city["id"] for e in as_json(cli("history", prefix, "--user", USER, "--json", db=db))
    )
    assert (
        ok(cli("pin", prefix, "--user", USER, db=db)).stdout
        == f"pinned {city['id']}: User lives in Lisbon.\n"
    )
    assert as_json(cli("get", city["id"], "--user", USER, "--json", db=db))["pinned"] is True
    assert ok(cli("pin", prefix, "--off", "--user", USER, db=db)).stdout.startswith(f"unpinned {city['id']}:")
    assert as_json(cli("get", city["id"], "--user", USER, "--json", db=db))["pinned"] is False
    assert ok(cli("share", prefix, "--user", USER, "--with", "sam", db=db))
    assert [k["user_id"] for k in as_json(cli("shares", prefix, "--user", USER, "--json", db=db))] == ["sam"]
    assert ok(cli("purge", prefix, "--user", USER, "--yes", db=db)).stdout == f"purged {city['id']}\n"
    assert as_json(cli("get", luna["id"], "--user", USER, "--json", db=db)) == luna  # the other one untouched


def test_the_tail_an_80_column_table_shows_names_the_memory(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    stored = [
        put(db, f"User's friend number {n} is called {name}.") for n, name in enumerate(["Ana", "Rui", "Eva"])
    ]
    table = CliRunner().invoke(
        app, ["list", "--all", "--user", USER, "--db", str(db), "--embedder", "hash"], env={"COLUMNS": "80"}
    )
    tails = re.findall(r"…([0-9a-f-]+)", ok(table).stdout)
    assert len(tails) == 3  # the ids were cut: what a person can copy is the ellipsis and the tail
    for tail in tails:
        shown = as_json(cli("get", f"…{tail}", "--user", USER, "--json", db=db))
        assert shown["id"].endswith(tail) and shown in stored
        assert as_json(cli("get", f"...{tail}", "--user", USER, "--json", db=db)) == shown


def one_error(result: Any, code: int) -> str:
    lines = result.stderr.splitlines()
    assert result.exit_code == code and len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return str(lines[0])


def test_an_ambiguous_prefix_lists_candidates_and_changes_nothing(location: str) -> None:
    db = cast(Path, location)
    ids = [put(db, f"User visited city number {n}.")["id"] for n in range(7)]  # UUIDv7: same first characters
    common = os.path.commonprefix(ids)
    assert len(common) >= 4
    before = exported(db)
    for command in (["get"], ["history"], ["delete"], ["pin"], ["restore"], ["purge", "--yes"]):
        line = one_error(cli(command[0], common, "--user", USER, *command[1:], db=db), 2)
        assert f"matches 7 memories of user '{USER}'" in line and "and 2 more" in line
        assert sum(i in line for i in ids) == 5 and "Give more characters" in line
    assert exported(db) == before


def test_a_prefix_matching_nothing_or_too_short_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "n.db"
    mine = put(db, "User likes tea.")
    theirs = as_json(cli("put", "Sam likes coffee.", "--user", "sam", "--json", db=db))
    before = exported(db)
    other = shortest_unique_prefix(theirs["id"], [mine["id"]])
    line = one_error(cli("delete", other, "--user", USER, db=db), 1)  # another user's memory is not found
    assert f"no memory '{other}' for user '{USER}'" in line
    assert "no id starts with it" in one_error(cli("get", "zzzz", "--user", USER, db=db), 1)
    assert "no id ends with it" in one_error(cli("get", "…zzzz", "--user", USER, db=db), 1)
    assert "at least 4 characters" in one_error(
        cli("purge", mine["id"][:3], "--user", USER, "--yes", db=db), 2
    )
    assert exported(db) == before
    assert as_json(cli("get", theirs["id"], "--user", "sam", "--json", db=db)) == theirs
