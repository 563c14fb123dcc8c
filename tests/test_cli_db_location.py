"""``--db`` that is not a store memlane can open: one ``error:`` line and exit 2, never a traceback,
nothing created, and no password in the message."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from memlane.cli.app import app
from memlane.model.errors import ValidationError
from memlane.storage import open_backend


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLANE_CONFIG", str(tmp_path / "no-config.toml"))
    monkeypatch.chdir(tmp_path)


def put(db: str, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        app, ["put", "User likes tea.", "--user", "maya", "--db", db, "--embedder", "hash", *args]
    )
    return result.exit_code, result.output


def one_error(out: str) -> str:
    lines = out.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), out
    return lines[0]


@pytest.mark.parametrize(
    "db, says",
    [
        (
            "mysql://memlane:hunter2@db.example/memlane",
            "unsupported database URL mysql://memlane:***@db.example",
        ),
        ("sqlite:///memory.db", "give the file path itself"),
        ("redis://:hunter2@cache/0", "unsupported database URL"),
    ],
)
def test_unknown_schemes_are_refused_and_passwords_hidden(tmp_path: Path, db: str, says: str) -> None:
    code, out = put(db)
    line = one_error(out)
    assert code == 2 and says in line and "hunter2" not in line
    assert list(tmp_path.iterdir()) == []  # no file or directory named after the URL
    with pytest.raises(ValidationError, match="unsupported database URL"):
        open_backend(db)


def test_a_file_that_is_not_a_database_is_refused_untouched(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("shopping: milk, eggs\n")
    code, out = put(str(notes))
    assert code == 2 and "not a database" in one_error(out)
    assert notes.read_text() == "shopping: milk, eggs\n"


@pytest.mark.parametrize("where", ["/proc/memlane-nope/m.db", "."])
def test_an_unopenable_path_is_one_error_line(where: str) -> None:
    code, out = put(
        where, "--create-dirs"
    )  # without it, a missing folder is refused first (test_cli_db_folder)
    assert code == 2 and "cannot open SQLite database" in one_error(out)
