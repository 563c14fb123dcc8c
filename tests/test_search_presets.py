"""Retrieval presets (model/search_presets.py) on a real SQLite store with the bundled embedder."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from memlane import AsyncMemory, Memory
from memlane.cli.app import app
from memlane.model.config import Settings
from memlane.model.errors import ConfigError, ValidationError
from memlane.model.record import utcnow
from memlane.model.search_presets import PRESETS, with_preset
from tests.scripted_upstream import running_memlane

QUESTION = "Tell me about hiking in the mountains."
OLDER = "User went hiking in the mountains with their sister."  # closer to the question, 20 days old
NEWER = "User went hiking in the hills near the coast."  # a little less close, yesterday
UNRELATED = "User's favourite colour is green."


def _store(path: Path, **settings: object) -> tuple[Memory, datetime]:
    db = str(path / "s.db")
    mem = Memory(db, embedder="local", settings=Settings(db=db, **settings))  # type: ignore[arg-type]
    now = utcnow()
    mem.put(OLDER, user_id="maya", type="episodic", valid_from=now - timedelta(days=20))
    mem.put(NEWER, user_id="maya", type="episodic", valid_from=now - timedelta(days=1))
    mem.put(UNRELATED, user_id="maya")
    return mem, now


@pytest.fixture
def store(tmp_path: Path) -> Iterator[tuple[Memory, datetime]]:
    mem, now = _store(tmp_path)
    yield mem, now
    mem.close()


def _ranked(mem: Memory, now: datetime, preset: str | None = None) -> list[str]:
    return [h.memory.summary for h in mem.search(QUESTION, user_id="maya", at=now, preset=preset)]


def test_recent_first_ranks_the_newer_memory_above_the_closer_older_one(
    store: tuple[Memory, datetime],
) -> None:
    mem, now = store
    assert _ranked(mem, now, "balanced")[:2] == [OLDER, NEWER]
    assert _ranked(mem, now, "recent-first")[:2] == [NEWER, OLDER]


def test_balanced_is_no_preset_exactly(store: tuple[Memory, datetime]) -> None:
    mem, now = store

    def scored(preset: str | None) -> list[tuple[str, float, object]]:
        hits = mem.search(QUESTION, user_id="maya", at=now, preset=preset)
        return [(h.memory.id, h.score, h.breakdown) for h in hits]  # not the read counts a search moves

    assert scored("balanced") == scored(None)
    assert with_preset(mem.settings, "balanced") is mem.settings


def test_precise_drops_what_is_barely_related(store: tuple[Memory, datetime]) -> None:
    mem, now = store
    assert UNRELATED in _ranked(mem, now)
    assert _ranked(mem, now, "precise") == [OLDER, NEWER]


def test_the_process_preset_applies_and_a_call_preset_replaces_it(tmp_path: Path) -> None:
    mem, now = _store(tmp_path, search_preset="recent-first")
    try:
        assert _ranked(mem, now)[:2] == [NEWER, OLDER]
        assert _ranked(mem, now, "balanced")[:2] == [OLDER, NEWER]
    finally:
        mem.close()


def test_a_setting_the_operator_set_wins_over_the_preset() -> None:
    mine = Settings(memory_recency_half_life_days=60.0)
    chosen = with_preset(mine, "recent-first")
    assert chosen.memory_recency_half_life_days == 60.0
    assert chosen.memory_rerank_weights["recency"] == 0.35


def test_an_unknown_preset_is_refused_everywhere_naming_the_known_ones(
    store: tuple[Memory, datetime], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem, _ = store
    for call in (
        lambda: mem.search(QUESTION, user_id="maya", preset="newest"),
        lambda: mem.query(QUESTION, user_id="maya", agent="supervisor", preset="newest"),
        lambda: mem.context(QUESTION, user_id="maya", preset="newest"),
    ):
        with pytest.raises(ValidationError, match="recent-first"):
            call()
    with pytest.raises(ValidationError, match="recent-first"):
        asyncio.run(AsyncMemory(memory=mem).search(QUESTION, user_id="maya", preset="newest"))
    with pytest.raises(
        (ConfigError, ValueError), match="unknown search preset .newest.; known presets: balanced"
    ):
        Settings(search_preset="newest")

    with running_memlane(mem) as url, httpx.Client(base_url=url, headers={"X-Memlane-User": "maya"}) as c:
        for route, body in (
            ("/v1/memory/search", {"query": QUESTION}),
            ("/v1/memory/query", {"query": QUESTION, "agent": "supervisor"}),
            ("/v1/memory/context", {"query": QUESTION}),
        ):
            resp = c.post(route, json={**body, "preset": "newest"})
            assert resp.status_code in (400, 422), resp.text
            assert all(name in resp.json()["error"]["message"] for name in PRESETS), resp.text
        ok = c.post("/v1/memory/search", json={"query": QUESTION, "preset": "recent-first"})
        assert [h["memory"]["summary"] for h in ok.json()["results"]][:2] == [NEWER, OLDER]

    monkeypatch.setenv("MEMLANE_CONFIG", str(tmp_path / "no-config.toml"))
    args = ["search", QUESTION, "--user", "maya", "--db", mem.settings.db, "--embedder", "local"]
    result = CliRunner().invoke(app, [*args, "--preset", "newest"])
    lines = result.stderr.strip().splitlines()
    assert result.exit_code != 0 and len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "recent-first" in lines[0]
    at_startup = CliRunner().invoke(app, args, env={"MEMLANE_SEARCH_PRESET": "newest"})
    assert at_startup.exit_code != 0 and at_startup.stderr.startswith("error: "), at_startup.stderr
    assert "MEMLANE_SEARCH_PRESET: unknown search preset 'newest'" in at_startup.stderr
