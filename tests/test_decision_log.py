"""Seed 002's decision log: each run of the formation worker writes one INFO record with the counts of what
it decided (created, merged, superseded, ignored, ...), and no user's words."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from memlane import Memory


def records(caplog: pytest.LogCaptureFixture) -> list[dict[str, int | str]]:
    out = []
    for r in caplog.records:
        if (
            r.name == "memlane.formation"
            and r.levelno == logging.INFO
            and '"memory.decisions"' in r.getMessage()
        ):
            out.append(json.loads(r.getMessage()))
    return out


def test_each_run_logs_one_record_with_its_counts(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="memlane.formation")
    with Memory(str(tmp_path / "m.db"), embedder="hash") as mem:
        mem.add_turn("I live in Porto and my dog Luna is 3 years old.", user_id="ana", wait=True)
        first = records(caplog)
        created = sum(int(r.get("created", 0)) for r in first)
        assert created == len(mem.list(user_id="ana")) >= 2
        caplog.clear()
        mem.add_turn(
            "I live in Porto and my dog Luna is 3 years old.", user_id="ana", wait=True
        )  # said again
        mem.add_turn("Luna turned 4 last week.", user_id="ana", wait=True)
        again = records(caplog)
    totals = {k: sum(int(r.get(k, 0)) for r in again) for k in ("created", "merged", "superseded", "failed")}
    assert (
        totals["merged"] >= 2
        and totals["superseded"] == 1
        and totals["created"] == 0
        and totals["failed"] == 0
    )
    for r in first + again:
        assert set(r) >= {"event", "jobs", "failed"} and int(r["jobs"]) >= 1
        assert "Porto" not in json.dumps(r) and "Luna" not in json.dumps(r)  # counts, not the user's words
