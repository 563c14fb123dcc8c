"""``Memory.reembed`` / ``memlane reembed``: header change, missing-only, resume after interruption."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memlane.cli.app import app
from memlane.engine.memory import Memory
from memlane.model.config import Settings
from memlane.providers.embed.base import Embedder
from memlane.providers.embed.hash import HashEmbedder
from memlane.retrieval.embed_text import memory_text, query_text
from memlane.storage.base import Upsert, WriteBatch


class Counting(Embedder):
    def __init__(self) -> None:
        self.inner = HashEmbedder(64)
        self.name, self.model, self.dims = "hash", self.inner.model, 64
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts.extend(texts)
        return self.inner.embed(texts)


def close(a: Sequence[float], b: Sequence[float]) -> bool:
    return math.isclose(sum(x * y for x, y in zip(a, b, strict=True)), 1.0, abs_tol=1e-5)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    db = tmp_path / "r.db"
    mem = Memory(str(db), embedder=Counting(), settings=Settings(timezone="UTC"))
    mem.put_many(
        [
            {
                "summary": f"I planted tomato number {i}.",
                "actor_id": "Maya",
                "metadata": {"context": "Ben: what did you plant?"},
            }
            for i in range(7)
        ],
        user_id="maya",
    )
    mem.put("I like tea.", user_id="ben", actor_id="Ben")
    mem.close()
    return db


def test_header_text_at_write_and_query_time() -> None:
    from memlane.model.record import MemoryRecord

    on = Settings(
        memory_embedding_header=True, memory_embedding_header_fields=["context", "speaker", "thread"]
    )
    rec = MemoryRecord(
        id="m",
        user_id="u",
        summary="I went hiking.",
        actor_id="Maya",
        thread_id="s1",
        metadata={"context": "Ben: any plans?"},
    )
    assert memory_text(rec, on) == "Ben: any plans?\nthread s1. Maya: I went hiking."
    assert memory_text(rec, Settings()) == "I went hiking."
    assert query_text("where?", on, thread_id="s1") == "thread s1. where?"
    assert query_text("where?", on) == "where?"
    with pytest.raises(ValueError):
        memory_text(rec, Settings(memory_embedding_header=True, memory_embedding_header_fields=["mood"]))


def test_reembed_after_header_change_and_resume(store: Path) -> None:
    header = Settings(timezone="UTC", memory_embedding_header=True)
    emb = Counting()
    mem = Memory(str(store), embedder=emb, settings=header)
    calls = []

    def stop_after_first_page(done: int, total: int) -> None:
        calls.append((done, total))
        if len(calls) == 3:  # the start, ben's only page, maya's first page
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        mem.reembed(batch_size=3, progress=stop_after_first_page)
    assert len(emb.texts) == 4
    report = mem.reembed(batch_size=3)
    assert report.resumed and report.embedded == 8
    assert len(emb.texts) == 8  # the pages done before the interruption were not embedded again
    for rec in mem.list(user_id="maya"):
        assert rec.actor_id == "Maya"
        vec = mem.backend.memories.vectors("maya", [rec.id])[rec.id]
        assert close(vec, emb.inner.embed_one(memory_text(rec, header)))
    assert mem.reembed(batch_size=3).resumed is False  # a finished run is not resumed
    mem.close()


def test_missing_only(store: Path) -> None:
    emb = Counting()
    mem = Memory(str(store), embedder=emb, settings=Settings(timezone="UTC"))
    bare = mem.build_record("I have no vector yet.", user_id="maya")
    mem.backend.apply(WriteBatch(upserts=[Upsert(bare)]))
    report = mem.reembed(missing_only=True)
    assert report.embedded == 1 and emb.texts == ["I have no vector yet."]
    assert bare.id in mem.backend.memories.vectors("maya", [bare.id])
    mem.close()


def test_cli_reembed(store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLANE_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("MEMORY_EMBEDDING_HEADER", "true")
    monkeypatch.setenv("MEMLANE_EMBED_DIMS", "64")
    result = CliRunner().invoke(app, ["reembed", "--db", str(store), "--embedder", "hash", "--user", "maya"])
    assert result.exit_code == 0, result.output
    assert "re-embedded 7 memories of 1 user" in result.output
    missing = CliRunner().invoke(app, ["reembed", "--db", str(tmp_path / "nope.db"), "--embedder", "hash"])
    assert missing.exit_code == 1 and missing.output.startswith("error:")
