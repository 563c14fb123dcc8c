"""The command line's first-hour fixes against real SQLite files: ``memlane add`` (formation),
``import --user``, the demo's temporary database, tables at 80 columns when piped, ``serve`` refusing a
taken port before loading anything, and help and usage errors that never load the engine."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli_process import cli_env
from tests.test_cli import USER, as_json, cli, exported, ok, put

FACT = "I live in Lisbon and my cat Luna is 3."


def add(db: Path, text: str, *args: str, embedder: str = "hash") -> Any:
    return cli("add", text, "--user", USER, *args, db=db, embedder=embedder)


def test_add_runs_formation_and_prints_each_decision(tmp_path: Path) -> None:
    db = tmp_path / "add.db"
    out = ok(add(db, FACT)).stdout
    assert "added: User lives in Lisbon." in out and "added: User's cat Luna is 3 years old." in out
    ids = re.findall(r"memory ([0-9a-f-]{36})", out)
    stored = as_json(cli("list", "--user", USER, "--json", db=db))
    assert sorted(ids) == sorted(r["id"] for r in stored)

    out = ok(add(db, "Luna turned 4 last week.")).stdout
    assert "replaced an older memory: User's cat Luna is 4 years old." in out
    assert ok(add(db, "Phew, long week. How's your day going?")).stdout.startswith("nothing to remember")
    decided = as_json(add(db, "I live in Lisbon.", "--thread", "t1", "--json"))
    assert [(d["action"], d["summary"]) for d in decided["decisions"]] == [("merge", "User lives in Lisbon.")]
    assert decided["left_out"] == []
    summaries = sorted(r["summary"] for r in as_json(cli("list", "--user", USER, "--json", db=db)))
    assert summaries == ["User lives in Lisbon.", "User's cat Luna is 4 years old."]


def test_add_with_the_local_embedder_holds_a_move_for_consent(tmp_path: Path) -> None:
    db = tmp_path / "local.db"
    ok(add(db, FACT, embedder="local"))
    out = ok(add(db, "I just moved to Porto!", embedder="local")).stdout
    assert "waits for consent (memlane proposals): User lives in Porto." in out
    assert [
        p["field"]
        for p in as_json(cli("proposals", "list", "--user", USER, "--json", db=db, embedder="local"))
    ] == ["city"]


@pytest.mark.parametrize(
    "args", [("--user", ""), ("--user", "bad user"), ("--thread", " "), ("--thread", "t" * 300)]
)
def test_add_refuses_bad_input_and_stores_nothing(tmp_path: Path, args: tuple[str, str]) -> None:
    db = tmp_path / "bad.db"
    result = cli("add", FACT, *(args if args[0] == "--user" else ("--user", USER, *args)), db=db)
    assert (
        result.exit_code == 2 and result.stderr.startswith("error: ") and len(result.stderr.splitlines()) == 1
    )
    assert not db.exists() or as_json(cli("list", "--user", USER, "--json", db=db)) == []
    assert cli("add", "", "--user", USER, db=db).exit_code == 2


def test_import_as_another_user_gives_new_ids_and_follows_references(tmp_path: Path) -> None:
    db = tmp_path / "move.db"
    ok(add(db, FACT))
    ok(add(db, "Luna turned 4 last week."))  # a supersede chain: the old age points at the new one
    first = put(db, "User prefers aisle seats.", "--key", "pref:seat")
    ok(cli("share", first["id"], "--user", USER, "--with", "ana", db=db))
    path = tmp_path / "maya.jsonl"
    ok(cli("export", "--user", USER, "--out", str(path), db=db))
    before = exported(db)

    out = ok(cli("import", str(path), "--user", "lena", db=db)).stdout
    assert "imported 4 memories" in out and "as lena" in out
    ok(cli("import", str(path), "--user", "lena", db=db))  # again: the same memories, no copies
    assert exported(db) == before  # maya's memories are untouched
    lena = exported(db, "lena")
    memories = {r["id"]: r for r in lena if r["kind"] == "memory"}
    assert len(memories) == 4 and all(r["user_id"] == "lena" for r in lena)
    assert not set(memories) & {r["id"] for r in before if r["kind"] == "memory"}
    old = next(r for r in memories.values() if r["summary"] == "User's cat Luna is 3 years old.")
    assert memories[old["superseded_by"]]["summary"] == "User's cat Luna is 4 years old."
    history = [r for r in lena if r["kind"] == "history"]
    assert history and {h["memory_id"] for h in history} <= set(memories)
    assert "maya" not in json.dumps(lena)  # no trace of the old owner, in snapshots either
    seat = as_json(
        cli("put", "User prefers window seats.", "--user", "lena", "--key", "pref:seat", "--json", db=db)
    )
    assert seat["id"] in memories  # a keyed memory answers to its key for the new user


def test_import_as_a_user_refuses_a_file_of_several_users(tmp_path: Path) -> None:
    db = tmp_path / "two.db"
    put(db, "User likes tea.")
    rows = exported(db)
    rows.append({**next(r for r in rows if r["kind"] == "memory"), "id": "other", "user_id": "ana"})
    path = tmp_path / "two.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = cli("import", str(path), "--user", "lena", db=db)
    assert result.exit_code == 2 and "several users (ana, maya)" in result.stderr
    assert as_json(cli("list", "--user", "lena", "--json", db=db)) == []


def test_the_demo_removes_its_temporary_database_unless_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    out = ok(cli("demo")).stdout
    assert "database was removed" in out and not list(tmp_path.glob("memlane-demo-*"))
    out = ok(cli("demo", "--keep")).stdout
    kept = list(tmp_path.glob("memlane-demo-*/demo.db"))
    assert len(kept) == 1 and f"--db {kept[0]}" in out
    assert as_json(cli("list", "--user", "maya", "--json", db=kept[0]))


def narrow(*args: str, db: Path) -> str:
    from typer.testing import CliRunner

    from memlane.cli.app import app

    result = CliRunner().invoke(app, [*args, "--db", str(db), "--embedder", "hash"], env={"COLUMNS": "80"})
    return ok(result).stdout


def test_tables_fit_80_columns_when_piped(tmp_path: Path) -> None:
    db = tmp_path / "narrow.db"
    long = "User lives in Lisbon, a short walk from the river, in an old apartment with a balcony."
    rec = put(db, long, "--category", "Personal")
    ok(add(db, "My cat Luna is 3."))
    ok(add(db, "Luna turned 4 last week."))
    ok(add(db, "I just moved to Porto!"))
    outputs = {
        "list": narrow("list", "--user", USER, "--all", db=db),
        "search": narrow("search", "where does she live", "--user", USER, db=db),
        "history": narrow("history", rec["id"], "--user", USER, db=db),
        "proposals": narrow("proposals", "list", "--user", USER, db=db),
        "jobs": narrow("jobs", "list", "--status", "done", db=db),
    }
    for name, out in outputs.items():
        assert all(len(line) <= 80 for line in out.splitlines()), (name, out)
    for name in ("list", "search"):
        words = " ".join(re.findall(r"│ ([^│]*?)\s*│$", outputs[name], re.M))
        assert "in an old apartment" in words and "apartme" not in words.replace("apartment", ""), outputs[
            name
        ]
    assert rec["id"][-12:] in outputs["list"] and rec["id"] in outputs["search"]  # a cut id keeps its tail
    assert re.search(r"…[0-9a-f]{6,}", outputs["jobs"])
    assert "sim " in outputs["search"] and "score = " in outputs["search"]  # the breakdown stays


def test_serve_refuses_a_taken_port_before_loading_the_app(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = loaded(tmp_path, "serve", "--port", str(port), "--db", str(tmp_path / "x.db"))
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: port {port} on 127.0.0.1 is already in use")
    assert "memlane.server.app" not in done.stdout and "torch" not in done.stdout


def loaded(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``memlane ARGS`` in a fresh process; its stdout ends with the modules it had imported at exit."""
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print(' '.join(sorted(sys.modules))))\n"
        "from memlane.cli.app import main\n"
        f"sys.argv = ['memlane', *{list(args)!r}]\n"
        "main()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], env=cli_env(tmp_path), capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    "args", [("--help",), ("search", "--help"), ("search", "--bogus"), ("serve", "--port", "x")]
)
def test_help_and_usage_errors_do_not_load_the_engine(tmp_path: Path, args: tuple[str, ...]) -> None:
    done = loaded(tmp_path, *args)
    modules = set(done.stdout.split()[-1000:])
    assert done.returncode in (0, 2), done.stderr
    assert not modules & {
        "memlane.engine",
        "memlane.storage",
        "memlane.model.record",
        "numpy",
        "torch",
        "sentence_transformers",
        "fastapi",
    }
