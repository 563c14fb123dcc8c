"""The S3 Vectors vector channel (``MEMLANE_VECTORS=s3vectors``) beyond the storage contract: the sync
job path (pending vectors, retries, parking, purges, deletes, batches, the first attach), tenancy
against a service that misbehaves, the worker, and ``memlane demo --vectors s3vectors``. On moto plus
the query emulation of ``s3vectors_fake.py``: fakes at the AWS boundary, not integration tests."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memlane import Memory
from memlane.cli.app import app
from memlane.model.config import Settings
from memlane.model.errors import ConfigError
from memlane.model.record import utcnow
from memlane.storage.base import Upsert, WriteBatch
from memlane.storage.s3vectors import clients
from memlane.storage.s3vectors.sync import SYNC
from memlane.storage.sqlite.backend import SqliteBackend
from tests.conftest import CONTRACT_DIMS
from tests.s3vectors_channel import BUCKET, drain_sync, open_channel, stored
from tests.test_storage_contract import ids, rec, vec


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("MEMLANE_CONFIG", str(tmp_path / "none.toml"))
    return Settings(vectors="s3vectors", s3v_bucket=BUCKET, embedder="hash", worker=False, job_max_attempts=2)


@pytest.fixture
def moto_client(emu: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The client memlane makes from its settings is moto's, with the query emulation."""
    monkeypatch.setattr(clients, "aws_client", lambda service, settings: emu.client)
    return emu.client


@pytest.fixture
def mem(settings: Settings, moto_client: Any, tmp_path: Path) -> Iterator[Memory]:
    with Memory(str(tmp_path / "memlane.db"), settings=settings) as m:
        yield m


def channel_of(tmp_path: Path, client: Any, *, synced: bool = False) -> Any:
    backend = open_channel(SqliteBackend(str(tmp_path / "channel.db")), client, synced=synced)
    backend.bind_embedder(f"test:unit:{CONTRACT_DIMS}", CONTRACT_DIMS)
    return backend


def query_vector(mem: Memory, memory_id: str, user: str = "maya") -> list[float]:
    return mem.backend.memories.vectors(user, [memory_id])[memory_id]


# --- the job path ------------------------------------------------------------------------------------
def test_a_pending_vector_is_searchable_and_the_job_puts_it_without_text(
    mem: Memory, moto_client: Any, emu: Any
) -> None:
    record = mem.put("User's cat Luna is three.", user_id="maya", tags=["luna"], key="profile:pet:luna")
    assert stored(moto_client) == {}
    assert [j.kind for j in mem.jobs.list("pending", user_id="maya")] == [SYNC]
    hits = mem.backend.memories.vector_search("maya", query_vector(mem, record.id))
    assert ids(hits) == [record.id] and hits[0].score == pytest.approx(
        1.0, abs=1e-5
    )  # scored from the database
    assert emu.calls["QueryVectors"] == 1  # the index was asked too: it holds nothing yet
    assert ids(mem.backend.memories.keyword_search("maya", "Luna")) == [
        record.id
    ]  # the keyword channel is the database's
    assert [h.memory.id for h in mem.search("Luna", user_id="maya")] == [record.id]

    assert mem.process_jobs() == 1
    vector = stored(moto_client)[record.id]
    assert vector["metadata"] == {
        "user_id": "maya",
        "state": "active",
        "type": "semantic",
        "category": "Other",
        "importance": 3,
        "pinned": False,
        "source": "chat",
    }
    assert "luna" not in json.dumps(vector).lower()  # no summary, tag or key goes to AWS
    assert vector["data"]["float32"] == pytest.approx(query_vector(mem, record.id), abs=1e-6)
    assert (
        mem.jobs.list("pending") == [] and [j.kind for j in mem.jobs.list("done", user_id="maya")][-1] == SYNC
    )


def test_once_synced_the_index_answers_the_dense_search(mem: Memory, moto_client: Any) -> None:
    record = mem.put("User plays the cello.", user_id="maya")
    mem.process_jobs()
    own = query_vector(mem, record.id)
    moto_client.put_vectors(
        vectorBucketName=BUCKET,
        indexName=mem.settings.s3v_index_vectors,
        vectors=[
            {
                "key": record.id,
                "data": {"float32": [-x for x in own]},
                "metadata": stored(moto_client)[record.id]["metadata"],
            }
        ],
    )
    (hit,) = mem.backend.memories.vector_search("maya", own)
    assert hit.record.id == record.id and hit.score == pytest.approx(
        -1.0, abs=1e-5
    )  # S3's vector, not the database's


def test_a_failed_sync_is_retried_with_backoff_then_parked_and_search_stays_correct(
    mem: Memory, moto_client: Any, emu: Any
) -> None:
    emu.failures["PutVectors"] = [("ThrottlingException", "Rate exceeded")] * 2
    record = mem.put("User's passport expires in May.", user_id="maya")
    assert mem.process_jobs() == 1
    (job,) = mem.jobs.list("pending", user_id="maya")
    assert job.attempts == 1 and "ThrottlingException" in str(job.last_error) and job.run_after > utcnow()
    assert mem.process_jobs() == 0  # not due before its backoff
    time.sleep(max(0.0, (job.run_after - utcnow()).total_seconds()) + 0.05)
    assert mem.process_jobs() == 1
    (parked,) = mem.jobs.list("parked", user_id="maya")  # MEMLANE_JOB_MAX_ATTEMPTS=2
    assert parked.id == job.id and stored(moto_client) == {}
    assert ids(mem.backend.memories.vector_search("maya", query_vector(mem, record.id))) == [record.id]
    mem.jobs.retry(parked.id)
    assert mem.process_jobs() == 1 and list(stored(moto_client)) == [record.id]


def test_purge_and_soft_delete_reach_the_index(mem: Memory, moto_client: Any) -> None:
    keep = mem.put("User likes tea.", user_id="maya")
    secret = mem.put("User's code word is Zorblax.", user_id="maya")
    gone = mem.put("User used to live in Lyon.", user_id="maya")
    mem.process_jobs()
    mem.delete(gone.id, user_id="maya")
    mem.purge(secret.id, user_id="maya", reason="asked")
    mem.process_jobs()
    held = stored(moto_client)
    assert set(held) == {keep.id, gone.id} and held[gone.id]["metadata"]["state"] == "soft_deleted"
    assert set(ids(mem.backend.memories.vector_search("maya", query_vector(mem, keep.id), limit=5))) == {
        keep.id,
        gone.id,
    }
    assert secret.id not in [h.memory.id for h in mem.search("Zorblax code word", user_id="maya")]


def test_delete_user_removes_their_vectors_only(mem: Memory, moto_client: Any) -> None:
    mine = [mem.put(f"User's fact number {n}.", user_id="maya").id for n in range(3)]
    theirs = mem.put("User likes chess.", user_id="omar")
    mem.process_jobs()
    assert set(stored(moto_client)) == {*mine, theirs.id}
    assert mem.delete_user("maya") == 3
    mem.process_jobs()
    assert set(stored(moto_client)) == {theirs.id}


def test_a_sync_writes_again_when_the_memory_changed_while_it_ran(tmp_path: Path, emu: Any) -> None:
    backend = channel_of(tmp_path, emu.client)
    first = rec("m1")
    backend.upsert(first, vec(1))
    put = backend.index.put
    raced: list[int] = []

    def racing_put(vectors: Any) -> None:
        put(vectors)
        if not raced:  # another writer commits right after this put landed
            raced.append(1)
            backend.inner.upsert(first.model_copy(update={"category": "Finance"}))

    backend.index.put = racing_put
    assert drain_sync(backend) == 1
    assert stored(emu.client)["m1"]["metadata"]["category"] == "Finance"
    assert emu.calls["PutVectors"] == 2


def test_sync_jobs_and_puts_stay_within_the_api_batch_limit(tmp_path: Path, emu: Any) -> None:
    backend = channel_of(tmp_path, emu.client)
    backend.apply(WriteBatch(upserts=[Upsert(rec(f"m{n}"), vec(1, n / 1200)) for n in range(1200)]))
    jobs = backend.jobs.list_jobs(user_id="u1", limit=10)
    assert sorted(len(j.payload["memory_ids"]) for j in jobs) == [200, 500, 500]
    assert drain_sync(backend) == 3
    assert emu.calls["PutVectors"] == 3 and len(stored(emu.client)) == 1200  # the emulation refuses > 500


def test_a_store_attached_for_the_first_time_is_backfilled_once(
    settings: Settings, moto_client: Any, tmp_path: Path
) -> None:
    db = str(tmp_path / "memlane.db")
    with Memory(db, settings=settings.model_copy(update={"vectors": "local"})) as local:
        made = [
            local.put(f"User's note {n}.", user_id=user).id for n, user in enumerate(["maya", "maya", "omar"])
        ]
    with Memory(db, settings=settings) as mem:
        assert {j.user_id for j in mem.jobs.list("pending")} == {"maya", "omar"}
        mem.process_jobs()
        assert set(stored(moto_client)) == set(made)
    with Memory(db, settings=settings) as again:
        assert again.jobs.list("pending") == []


def test_the_worker_syncs_after_a_write(settings: Settings, moto_client: Any, tmp_path: Path) -> None:
    with Memory(str(tmp_path / "memlane.db"), settings=settings.model_copy(update={"worker": True})) as mem:
        record = mem.put("User runs on Sundays.", user_id="maya")
        deadline = time.monotonic() + 10
        while record.id not in stored(moto_client) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert record.id in stored(moto_client)


# --- tenancy at the storage boundary -------------------------------------------------------------------
def test_a_query_never_returns_another_users_vector_even_if_the_service_does(
    tmp_path: Path, emu: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = channel_of(tmp_path, emu.client, synced=True)
    backend.upsert(rec("a1", "alice", "User lives in Lisbon."), vec(1))
    backend.upsert(rec("b1", "bob", "User lives in Porto."), vec(1, 0.1))
    monkeypatch.setattr(emu, "_match", lambda *a: True)  # a service that ignores the filter
    assert ids(backend.memories.vector_search("bob", vec(1))) == ["b1"]
    forged = stored(emu.client)["a1"]  # and one whose metadata names bob on alice's memory
    emu.client.put_vectors(
        vectorBucketName=BUCKET,
        indexName=backend.index.index,
        vectors=[{"key": "a1", "data": forged["data"], "metadata": {**forged["metadata"], "user_id": "bob"}}],
    )
    assert ids(backend.memories.vector_search("bob", vec(1))) == ["b1"]
    assert [i for i, _ in backend.memories.vector_ids("bob", vec(1))] == ["b1"]


def test_a_purge_named_under_the_wrong_user_deletes_no_vector(tmp_path: Path, emu: Any) -> None:
    from memlane.storage.base import Purge

    backend = channel_of(tmp_path, emu.client, synced=True)
    backend.upsert(rec("a1", "alice"), vec(1))
    backend.apply(WriteBatch(purges=[Purge("bob", "a1")]))  # not bob's: the database purges nothing
    assert list(stored(emu.client)) == ["a1"] and ids(backend.memories.vector_search("alice", vec(1))) == [
        "a1"
    ]


# --- choosing it -------------------------------------------------------------------------------------
def test_s3vectors_without_a_bucket_is_a_config_error_that_creates_nothing(
    settings: Settings, tmp_path: Path
) -> None:
    db = tmp_path / "memlane.db"
    with pytest.raises(ConfigError, match="S3V_BUCKET"):
        Memory(str(db), settings=settings.model_copy(update={"s3v_bucket": None}))
    assert not db.exists()


def test_the_demo_runs_with_s3vectors_on_moto(
    settings: Settings, moto_client: Any, emu: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("S3V_BUCKET", BUCKET)
    monkeypatch.setenv("MEMLANE_WORKER", "false")
    db = tmp_path / "demo.db"
    result = CliRunner().invoke(app, ["demo", "--db", str(db), "--vectors", "s3vectors"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "vectors: sqlite+s3vectors" in out and out.count("score = ") == 4  # the four searches ran
    assert re.search(r"corrected: User lives in Lisbon\. -> .*Porto", out)
    with SqliteBackend(str(db)) as backend:
        memories = backend.memories.list("maya", limit=100)
        assert memories and backend.jobs.list_jobs(user_id="maya", limit=1000)
        assert not [
            j
            for j in backend.jobs.list_jobs(user_id="maya", limit=1000)
            if j.kind == SYNC and j.status != "done"
        ]
    assert set(stored(moto_client)) == {m.id for m in memories if m.state.value != "purged"}
    assert emu.calls["QueryVectors"] > 0


def test_an_unknown_vectors_option_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["demo", "--db", str(tmp_path / "d.db"), "--vectors", "pinecone"])
    assert result.exit_code == 2 and "pinecone" in result.output and not (tmp_path / "d.db").exists()
