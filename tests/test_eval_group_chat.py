"""Group-chat scenarios (senders in one thread) and the noise figure of ``memlane eval scenarios``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memlane.cli.app import app
from memlane.evaluation import scenarios
from tests.formation_helpers import local_embedder

SHIPPED = Path(__file__).resolve().parents[1] / "scenarios" / "group_chat.jsonl"

TINY = {
    "id": "tiny_group",
    "mode": "chat",
    "tags": ["group"],
    "steps": [
        {"at": "2026-05-04T18:00:00Z", "sender": "ana", "text": "I'm a nurse at St Mary's.", "thread": "g1"},
        {"at": "2026-05-04T18:02:00Z", "sender": "ben", "text": "I work as a pastry chef.", "thread": "g1"},
        {"at": "2026-05-04T18:04:00Z", "sender": "ben", "text": "haha lol", "thread": "g1"},
        # planted: ana's fact in ben's memory, as a wrong attribution would store it
        {"at": "2026-05-04T18:05:00Z", "user": "ben", "fact": "User is a nurse.", "category": "Work"},
    ],
    "expect": {"active": [{"matches": "nurse", "user": "ana"}, {"matches": "pastry", "user": "ben"}]},
    "noise": [{"matches": "nurse", "user": "ben", "why": "wrong-person"}],
    "queries": [
        {"user": "ben", "query": "what is the user's job?", "any_matches": "pastry", "none_matches": "nurse"}
    ],
}


def test_group_steps_belong_to_their_sender_and_share_the_thread() -> None:
    steps = [
        {"at": "t", "sender": "ana", "text": "hi", "thread": "g1"},
        {"at": "t", "role": "assistant", "text": "hello", "thread": "g1"},
        {"at": "t", "sender": "ben", "text": "yo", "thread": "g1"},
        {"at": "t", "text": "alone", "thread": "t2"},
    ]
    assert scenarios._users(steps) == ["ana", "ana", "ben", "u1"]
    assert scenarios._answered(steps, 0) and not scenarios._answered(steps, 2)


def test_the_noise_figure_counts_a_planted_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLANE_CONFIG", str(tmp_path / "no-config.toml"))
    (outcome,) = scenarios.run([TINY], local_embedder(), llm="rules")
    assert outcome.noise.declared
    assert outcome.noise.noisy == [("wrong-person", "ben: User is a nurse.")]
    assert outcome.noise.stored == 3 + len(outcome.noise.unclaimed)  # ana's, ben's and the planted one
    assert outcome.noise.queries == 1  # the query has none_matches
    line = scenarios.noise_line([outcome])
    assert line is not None and line.startswith("noise: 1 of ")
    assert "(wrong-person 1), in 1 of 1 scenario(s)" in line
    assert scenarios.noise_line([scenarios.Outcome("plain", True, [])]) is None

    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(TINY) + "\n")
    printed = CliRunner().invoke(app, ["eval", "scenarios", str(path), "--noise"], env={"COLUMNS": "200"})
    lines = printed.stdout.splitlines()
    assert "  noise (wrong-person) ben: User is a nurse." in lines
    assert lines[-2] == line
    assert re.fullmatch(r"\d+ passed, \d+ failed", lines[-1])


def test_the_shipped_group_chat_set_parses() -> None:
    items = scenarios.load([SHIPPED])
    assert 20 <= len(items) <= 30
    assert len({s["id"] for s in items}) == len(items)
    for s in items:
        assert s["mode"] == "chat" and "group" in s["tags"] and s["noise"], s["id"]
        users = set(scenarios._users(s["steps"]))
        for step in s["steps"]:
            assert "sender" in step or step.get("role") == "assistant" or "fact" in step, s["id"]
        named = [e for kind in ("active", "superseded") for e in s["expect"].get(kind, [])] + s["noise"]
        for e in named:
            re.compile(e["matches"])
            assert e["user"] in users, (s["id"], e)
        assert all(e["why"] in {"wrong-person", "banter", "question", "assistant"} for e in s["noise"])
        for q in s.get("queries", []):
            assert q["user"] in users and re.compile(q.get("none_matches", "."))
