"""``memlane sessions`` (record, list, show, delete) and the sessions in ``memlane export`` / ``import``,
against real SQLite files; tables read at 80 columns. No embedding happens here (the hash embedder
opens the store)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from memlane.cli.app import app

CHAT = [
    {"name": "ana", "content": "Shall we book the lake cabin for June?", "at": "2026-03-02T18:00:00Z"},
    {
        "name": "ben",
        "content": "Yes, the one near the lake with the boat dock and the big kitchen for all six.",
        "at": "2026-03-02T18:10:00Z",
    },
    {"role": "assistant", "content": "The lake cabin is free from June 6.", "at": "2026-03-02T18:11:00Z"},
    {"name": "cy", "content": "Did anyone check the ferry?", "at": "2026-03-02T19:30:00Z"},
]


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLANE_CONFIG", str(tmp_path / "no-config.toml"))
    for name in ("MEMLANE_DB", "MEMLANE_EMBEDDER", "MEMLANE_USER"):
        monkeypatch.delenv(name, raising=False)


def cli(db: Path, *args: str) -> Result:
    return CliRunner().invoke(app, [*args, "--db", str(db), "--embedder", "hash"], env={"COLUMNS": "80"})


def ok(result: Result) -> str:
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result.stdout


def error(result: Result, code: int) -> str:
    assert result.exit_code == code, (result.stdout, result.stderr)
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: ")
    return line


def jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_record_list_show_and_delete(tmp_path: Path) -> None:
    db, src = tmp_path / "s.db", jsonl(tmp_path / "chat.jsonl", CHAT)
    assert (
        ok(cli(db, "sessions", "record", "--user", "maya", "--chat", "trip", "--from", str(src)))
        == "recorded 4 messages of chat trip in 2 sessions\n"
    )
    sessions = json.loads(ok(cli(db, "sessions", "list", "--user", "maya", "--json")))
    assert [(s["message_count"], s["participants"], s["status"]) for s in sessions] == [
        (3, ["ana", "ben", "assistant"], "closed"),
        (1, ["cy"], "open"),
    ]
    table = ok(cli(db, "sessions", "list", "--user", "maya", "--chat", "trip"))
    assert max(len(line) for line in table.splitlines()) <= 80
    for s in sessions:  # the ids whole (show takes them), and each session's status and people
        assert s["id"] in table
    assert (
        "closed" in table
        and "ana, ben, assistant" in table
        and "2026-03-02" in table
        and "18:00–18:11" in table
    )
    assert "0 sessions" in ok(cli(db, "sessions", "list", "--user", "maya", "--chat", "other"))

    shown = ok(cli(db, "sessions", "show", sessions[0]["id"], "--user", "maya"))
    assert max(len(line) for line in shown.splitlines()) <= 80
    assert "3 messages" in shown and "boat dock" in shown and "The lake cabin is free from June 6." in shown
    assert "Did anyone check the ferry?" not in shown
    assert "no session" in error(cli(db, "sessions", "show", sessions[0]["id"], "--user", "lena"), 1)

    assert "--yes" in error(cli(db, "sessions", "delete", sessions[0]["id"], "--user", "maya"), 2)
    assert "deleted session" in ok(
        cli(db, "sessions", "delete", sessions[0]["id"], "--user", "maya", "--yes")
    )
    left = json.loads(ok(cli(db, "sessions", "list", "--user", "maya", "--json")))
    assert [s["id"] for s in left] == [sessions[1]["id"]]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([], "holds no message"),
        (["just text"], "must be a JSON object"),
        ([{"content": "hi", "role": "robot"}], "role"),
        ([{"content": ""}], "content"),
        ([{"content": "late", "at": "2026-03-02T17:00:00Z"}], "older than chat"),  # before the stored session
    ],
)
def test_bad_input_is_one_error_line_and_records_nothing(
    tmp_path: Path, rows: list[Any], message: str
) -> None:
    db = tmp_path / "s.db"
    ok(
        cli(
            db,
            "sessions",
            "record",
            "--user",
            "maya",
            "--chat",
            "trip",
            "--from",
            str(jsonl(tmp_path / "first.jsonl", CHAT[:1])),
        )
    )
    line = error(
        cli(
            db,
            "sessions",
            "record",
            "--user",
            "maya",
            "--chat",
            "trip",
            "--from",
            str(jsonl(tmp_path / "bad.jsonl", rows)),
        ),
        2,
    )
    assert message in line
    assert [
        s["message_count"] for s in json.loads(ok(cli(db, "sessions", "list", "--user", "maya", "--json")))
    ] == [1]
    (tmp_path / "broken.jsonl").write_text('{"content": "hi"\n')
    assert "line 1: not valid JSON" in error(
        cli(
            db,
            "sessions",
            "record",
            "--user",
            "maya",
            "--chat",
            "trip",
            "--from",
            str(tmp_path / "broken.jsonl"),
        ),
        2,
    )


def test_export_and_import_carry_the_sessions(tmp_path: Path) -> None:
    db, copy = tmp_path / "s.db", tmp_path / "copy.db"
    ok(
        cli(
            db,
            "sessions",
            "record",
            "--user",
            "maya",
            "--chat",
            "trip",
            "--from",
            str(jsonl(tmp_path / "chat.jsonl", CHAT)),
        )
    )
    out = tmp_path / "maya.jsonl"
    ok(cli(db, "export", "--user", "maya", "--out", str(out)))
    kinds = [json.loads(line)["kind"] for line in out.read_text().splitlines()]
    assert kinds == ["session", "message", "message", "message", "session", "message"]
    assert ok(cli(copy, "import", str(out))).startswith("imported 0 memories with 2 sessions of 4 messages")
    before, after = (
        json.loads(ok(cli(d, "sessions", "list", "--user", "maya", "--json"))) for d in (db, copy)
    )
    assert after == before


def test_backfill_embeds_what_is_missing_once(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    ok(
        cli(
            db,
            "sessions",
            "record",
            "--user",
            "maya",
            "--chat",
            "trip",
            "--from",
            str(jsonl(tmp_path / "chat.jsonl", CHAT)),
        )
    )
    assert (
        ok(cli(db, "sessions", "backfill", "--user", "maya"))
        == "embedded 4 messages and 0 session summaries of 1 user\n"
    )
    assert ok(cli(db, "sessions", "backfill")).startswith("embedded 0 messages")  # resumable: nothing left
