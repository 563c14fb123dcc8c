"""What ``print`` shows of the records the Python API returns: short and readable (the few fields that
matter, long text cut), while the records keep all their data and compare as before (real SQLite)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memlane import Memory
from memlane.model.config import Settings
from memlane.providers.embed.hash import HashEmbedder

CITY = "profile:residence:city"
LONG = (
    "User prefers aisle seats on long flights because they like to walk around, stretch their legs and "
    "reach the galley without waking anyone, and they always ask for one at check-in."
)


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    m = Memory(
        str(tmp_path / "m.db"), embedder=HashEmbedder(64), settings=Settings(db=str(tmp_path / "m.db"))
    )
    yield m
    m.close()


def test_a_printed_history_is_short_and_says_what_happened(
    mem: Memory, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = mem.put("User lives in Lisbon.", user_id="maya", key=CITY, category="Personal")
    mem.put("User lives in Porto.", user_id="maya", key=CITY)
    mem.update(rec.id, user_id="maya", pinned=True, reason="user asked")
    history = mem.history(rec.id, user_id="maya")
    print(history)
    shown = capsys.readouterr().out
    full = str([h.model_dump() for h in history])
    assert len(shown) < 600 and len(shown) * 4 < len(full), shown
    assert shown.count("HistoryEntry(") == 3
    assert "event='ADD'" in shown and "summary='User lives in Lisbon.'" in shown
    assert "summary='User lives in Porto.', was='User lives in Lisbon.'" in shown
    assert "reason='user asked'" in shown and "changed=['pinned']" in shown
    assert "datetime.datetime(" not in shown and "created_at" not in shown
    # the data itself is all there
    assert history[1].old_value and history[1].old_value["summary"] == "User lives in Lisbon."
    assert (
        history[2].new_value
        and history[2].new_value["pinned"] is True
        and "created_at" in history[2].new_value
    )


def test_a_record_shows_its_id_and_a_cut_summary_and_keeps_everything(mem: Memory) -> None:
    rec = mem.put(LONG, user_id="maya", category="Travel", importance=4, tags=["flights"])
    shown = repr(rec)
    assert shown.startswith("MemoryRecord(") and len(shown) < 260, shown
    assert f"id='{rec.id}'" in shown and "category='Travel'" in shown and "state='active'" in shown
    assert LONG[:60] in shown and LONG not in shown and "…'" in shown
    assert "type='semantic'" in shown and "<MemoryType" not in shown
    assert str(rec).startswith(f"id='{rec.id}'") and len(str(rec)) < 260
    dumped = rec.model_dump()
    assert dumped["summary"] == LONG and dumped["tags"] == ["flights"] and dumped["importance"] == 4
    assert rec == mem.get(rec.id, user_id="maya")
    other = rec.model_copy(update={"importance": 2})
    assert repr(other) == shown and other != rec  # equality reads every field, not the repr


def test_search_hits_and_their_breakdown_print_short(mem: Memory, capsys: pytest.CaptureFixture[str]) -> None:
    for summary in (LONG, "User lives in Porto.", "User's dog Luna is 4 years old."):
        mem.put(summary, user_id="maya")
    hits = mem.search("aisle seats on flights", user_id="maya")
    print(hits)
    shown = capsys.readouterr().out
    assert shown.count("SearchHit(score=") == 3 and len(shown) < 900, shown
    assert f"SearchHit(score={round(hits[0].score, 3)}, memory=MemoryRecord(id='{hits[0].memory.id}'" in shown
    assert "weights" not in shown and "breakdown" not in shown
    print(hits[0].breakdown)
    why = capsys.readouterr().out
    assert why.startswith(f"final={round(hits[0].breakdown.final, 3)} similarity=") and len(why) < 200, why
    assert hits[0].breakdown.weights  # still there for whoever asks


def test_candidates_jobs_and_proposals_print_short(mem: Memory) -> None:
    cands = mem.add("I live in Lisbon and my dog Luna is 3.", user_id="maya", wait=True)
    assert cands and all(len(repr(c)) < 200 and f"summary={c.summary!r}" in repr(c) for c in cands)
    assert "tags=" not in repr(cands[0]) and "<MemoryType" not in repr(cands[0])
    jobs = mem.jobs.list(user_id="maya")
    assert jobs and all(len(repr(j)) < 220 and "status='done'" in repr(j) for j in jobs), jobs
    assert all("payload" not in repr(j) and j.payload for j in jobs)
    mem.add_facts([{"summary": "User lives in Porto.", "key": CITY}], user_id="maya", wait=True)
    proposal = mem.proposals.list(user_id="maya")[0]
    shown = repr(proposal)
    assert len(shown) < 400, shown
    assert "field='city'" in shown and "status='pending'" in shown
    assert "current='User lives in Lisbon.'" in shown and "proposed='User lives in Porto.'" in shown


def test_a_context_block_and_a_recorded_message_print_short(mem: Memory) -> None:
    for summary in (LONG, "User lives in Porto.", "User's dog Luna is 4 years old."):
        mem.put(summary, user_id="maya")
    block = mem.context("where does the user sit on flights?", user_id="maya", thread_id="t1")
    shown = repr(block)
    assert shown.startswith("ContextBlock(text=") and len(shown) < 200, shown
    assert f"tokens={block.tokens}" in shown and block.semantic and "SearchHit" not in shown
    assert "aisle" in block.text  # the whole block is there to send
    said = mem.sessions.record_message(LONG, user_id="maya", chat_id="trip", sender="Maya")
    assert len(repr(said)) < 260 and "sender='Maya'" in repr(said) and "…'" in repr(said), repr(said)
    assert said.text == LONG
