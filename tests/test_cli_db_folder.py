"""A ``--db`` in a folder that does not exist: one ``error:`` line saying how to create it, and nothing
created, unless ``--create-dirs`` is given or the location is the default ``~/.memlane``."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from memlane.cli.app import app
from tests.cli_process import cli_env
from tests.test_cli import USER, as_json, cli, ok

COMMANDS = {
    "put": ["put", "User likes tea.", "--user", USER],
    "add": ["add", "I live in Lisbon.", "--user", USER],
    "import": ["import", "-"],
    "serve": ["serve", "--port", "0", "--embedder", "hash"],  # refused before it listens
}


def refused(result: Result) -> str:
    lines = result.stderr.splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_missing_folder_is_refused_and_not_created(tmp_path: Path, command: str) -> None:
    db = tmp_path / "nonexistent" / "dir" / "x.db"
    line = refused(cli(*COMMANDS[command], db=db, input=""))
    assert f"the folder {db.parent} does not exist" in line
    assert f"mkdir -p {db.parent}" in line and "--create-dirs" in line
    assert list(tmp_path.iterdir()) == []


def test_memlane_db_in_a_missing_folder_is_refused_too(tmp_path: Path) -> None:
    db = tmp_path / "typo" / "m.db"
    result = CliRunner().invoke(app, [*COMMANDS["put"], "--embedder", "hash"], env={"MEMLANE_DB": str(db)})
    assert f"the folder {db.parent} does not exist (database {db})" in refused(result)
    assert not db.parent.exists()


def test_create_dirs_creates_the_folder(tmp_path: Path) -> None:
    db = tmp_path / "new" / "dir" / "x.db"
    ok(cli(*COMMANDS["put"], "--create-dirs", db=db))
    assert db.exists()
    assert [r["summary"] for r in as_json(cli("list", "--user", USER, "--json", db=db))] == [
        "User likes tea."
    ]


def test_the_default_location_is_created_without_a_flag(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    done = subprocess.run(
        ["memlane", "put", "User likes tea.", "--user", USER, "--embedder", "hash"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "home" / ".memlane" / "memlane.db").exists()
