"""A store answers to the embedder that made its vectors: another one of the same size is refused
(its queries would be compared with the other model's vectors) until ``reembed`` moves the store."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from memlane import Memory
from memlane.cli.app import app
from memlane.model.config import Settings
from memlane.model.errors import EmbedderMismatchError, ValidationError
from memlane.providers.embed.hash import HashEmbedder

DIMS = 384  # all-MiniLM-L6-v2's size: a hash embedder of the same size is the swap to catch


class OtherModel(HashEmbedder):
    """Another model with the same vector size (stands in for the local MiniLM embedder)."""

    name = "other"


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MEMLANE_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("MEMLANE_EMBED_DIMS", str(DIMS))
    db = tmp_path / "m.db"
    with Memory(str(db), embedder=OtherModel(DIMS), settings=Settings()) as mem:
        mem.put_many([{"summary": f"User planted tomato number {i}."} for i in range(5)], user_id="maya")
        mem.put("User likes tea.", user_id="ben")
    return db


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_another_embedder_of_the_same_size_is_refused(store: Path) -> None:
    with pytest.raises(
        EmbedderMismatchError, match=r"other:hash-v1-384:384 .* hash:hash-v1-384:384.*reembed"
    ):
        Memory(str(store), embedder=HashEmbedder(DIMS))
    code, out = cli("search", "tomato", "--user", "maya", "--db", str(store), "--embedder", "hash")
    assert code == 2 and out.startswith("error:") and len(out.strip().splitlines()) == 1 and "reembed" in out
    with Memory(str(store), embedder=OtherModel(DIMS)) as mem:  # the store still answers to its own
        assert len(mem.search("tomato", user_id="maya")) == 5


def test_reembed_moves_the_store_to_the_new_embedder(store: Path) -> None:
    code, out = cli("reembed", "--db", str(store), "--embedder", "hash", "--user", "maya")
    assert code == 2 and "without --user" in out  # half a store in one model, half in the other: no
    code, out = cli("reembed", "--db", str(store), "--embedder", "hash")
    assert code == 0 and "re-embedded 6 memories of 2 users" in out, out
    code, out = cli(
        "search", "tomato number 3", "--user", "maya", "--db", str(store), "--embedder", "hash", "--json"
    )
    assert code == 0 and "tomato number 3" in out
    with pytest.raises(EmbedderMismatchError):
        Memory(str(store), embedder=OtherModel(DIMS))


def test_an_interrupted_switch_is_refused_until_it_is_finished(store: Path) -> None:
    mem = Memory(str(store), embedder=HashEmbedder(DIMS), switch_embedder=True)

    def stop(done: int, total: int) -> None:
        if done:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        mem.reembed(batch_size=2, progress=stop)
    with pytest.raises(ValidationError, match="re-embeds every memory"):
        mem.reembed(missing_only=True)
    mem.close()
    for embedder in (OtherModel(DIMS), HashEmbedder(DIMS)):  # neither model's vectors are all there
        with pytest.raises(EmbedderMismatchError, match="did not finish"):
            Memory(str(store), embedder=embedder)
    with Memory(str(store), embedder=HashEmbedder(DIMS), switch_embedder=True) as mem:
        assert mem.reembed(batch_size=2).resumed
    with Memory(str(store), embedder=HashEmbedder(DIMS)) as mem:
        assert (
            mem.search("tomato number 3", user_id="maya")[0].memory.summary == "User planted tomato number 3."
        )
