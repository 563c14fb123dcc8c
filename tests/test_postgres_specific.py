"""What only the PostgreSQL backend has: migrations, the pool, row locking, keyword search, jobs (the
vector layout is in test_postgres_vectors.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import psycopg
import pytest
from psycopg import sql

from memlane.model.enums import HistoryEvent
from memlane.model.errors import BackendError, SchemaVersionError
from memlane.model.jobs import Change, Job, JobStatus, OpEvent
from memlane.model.record import HistoryEntry, MemoryRecord
from memlane.storage.base import SCHEMA_VERSION, Upsert, WriteBatch
from memlane.storage.postgres import PostgresBackend
from memlane.storage.postgres.errors import redact_url
from memlane.storage.postgres.locks import USER_LOCK_CLASS
from memlane.storage.postgres.migrations import MIGRATIONS
from tests.postgres_helpers import DIMS, in_threads, query, rec, vec

pytestmark = pytest.mark.postgres

# --- migrations -----------------------------------------------------------------------------------


def test_migrations_end_at_the_contract_schema_version() -> None:
    versions = [v for v, _ in MIGRATIONS]
    assert versions == sorted(set(versions)) and versions[-1] == SCHEMA_VERSION


TABLES = "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"


def test_migrate_twice_is_a_no_op(pg: PostgresBackend, postgres_url: str) -> None:
    pg.upsert(rec("m1"), vec(1))
    tables = query(postgres_url, TABLES)
    assert pg.migrate() == SCHEMA_VERSION
    assert pg.migrate() == SCHEMA_VERSION
    with PostgresBackend(postgres_url) as again:  # a second process opening the same database
        assert again.schema_version() == SCHEMA_VERSION
        assert again.memories.get("u1", "m1") == pg.memories.get("u1", "m1")
    assert query(postgres_url, TABLES) == tables


def test_concurrent_first_migrations_do_not_race(postgres_url: str) -> None:
    backends = in_threads(6, lambda _: PostgresBackend(postgres_url, max_size=1))
    try:
        assert {b.schema_version() for b in backends} == {SCHEMA_VERSION}
        in_threads(6, lambda i: backends[i].create_vector_index(DIMS))
    finally:
        for b in backends:
            b.close()


def test_newer_schema_is_refused_naming_both_versions(pg: PostgresBackend, postgres_url: str) -> None:
    pg.set_meta("schema_version", str(SCHEMA_VERSION + 1))
    with pytest.raises(SchemaVersionError) as err:
        PostgresBackend(postgres_url)
    assert f"version {SCHEMA_VERSION + 1}" in str(err.value)
    assert f"version {SCHEMA_VERSION}" in str(err.value)


def test_memories_has_a_column_per_record_field(pg: PostgresBackend, postgres_url: str) -> None:
    cols = {
        r[0]
        for r in query(
            postgres_url, "SELECT column_name FROM information_schema.columns WHERE table_name = 'memories'"
        )
    }
    assert set(MemoryRecord.model_fields) <= cols
    assert cols - set(MemoryRecord.model_fields) == {"fts"}


# --- pool and concurrency -------------------------------------------------------------------------


def test_pool_is_shared_across_threads(postgres_url: str) -> None:
    with PostgresBackend(postgres_url, min_size=1, max_size=3) as backend:
        backend.bind_embedder(f"test:pg:{DIMS}", DIMS)

        def work(i: int) -> int:
            for j in range(10):
                backend.upsert(rec(f"t{i}-{j}", f"user{i}"), vec(1, j))
                assert backend.memories.get(f"user{i}", f"t{i}-{j}") is not None
                backend.memories.vector_search(f"user{i}", vec(1), limit=3)
            return backend.memories.count(f"user{i}")

        assert in_threads(8, work) == [10] * 8
        (open_conns,) = query(
            postgres_url,
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )
        assert 1 <= open_conns[0] <= 3


def test_concurrent_upserts_of_one_id_leave_one_row(pg: PostgresBackend, postgres_url: str) -> None:
    def write(i: int) -> None:
        for _ in range(15):
            pg.upsert(rec("same", summary=f"writer {i}"), vec(1, i))

    in_threads(8, write)
    assert query(postgres_url, "SELECT count(*) FROM memories") == [(1,)]
    assert query(postgres_url, "SELECT count(*) FROM memory_vectors") == [(1,)]
    stored = pg.memories.get("u1", "same")
    assert stored is not None
    writer = int(stored.summary.split()[-1])
    assert pg.memories.vectors("u1", ["same"])["same"] == pytest.approx(
        vec(1, writer)
    )  # record and vector agree


# --- writes ---------------------------------------------------------------------------------------


def test_id_of_another_user_is_refused_and_batch_rolled_back(pg: PostgresBackend) -> None:
    pg.upsert(rec("shared-id", "alice", "alice's memory"), vec(1))
    batch = WriteBatch(
        upserts=[Upsert(rec("fresh", "bob"), vec(0, 1)), Upsert(rec("shared-id", "bob", "bob's"), vec(0, 1))]
    )
    with pytest.raises(BackendError, match="another user"):
        pg.apply(batch)
    assert pg.memories.count("bob") == 0
    alice = pg.memories.get("alice", "shared-id")
    assert alice is not None and alice.summary == "alice's memory"


def test_nul_character_is_a_clear_error_and_nothing_is_written(pg: PostgresBackend) -> None:
    entry = HistoryEntry(
        id="h1", memory_id="m1", user_id="u1", event=HistoryEvent.ADD, reason="bad\x00reason"
    )
    with pytest.raises(BackendError, match="NUL"):
        pg.upsert(rec("m1"), vec(1), history=[entry])
    assert pg.memories.get("u1", "m1") is None


def test_times_come_back_in_utc_whatever_the_session_zone(postgres_url: str) -> None:
    dbname = query(postgres_url, "SELECT current_database()")[0][0]
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        alter = sql.SQL("ALTER DATABASE {} SET timezone = 'Asia/Kolkata'")
        conn.execute(alter.format(sql.Identifier(dbname)))
    with PostgresBackend(postgres_url) as backend:
        when = datetime(2024, 2, 29, 23, 59, 59, 123456, tzinfo=timezone(timedelta(hours=-5)))
        original = rec("m1", valid_from=when, created_at=when, updated_at=when)
        backend.upsert(original)
        stored = backend.memories.get("u1", "m1")
        assert stored == original
        assert stored is not None and stored.valid_from is not None and stored.valid_from.tzinfo is UTC


# --- keyword search -------------------------------------------------------------------------------


def test_keyword_search_survives_tsquery_syntax_and_stop_words(pg: PostgresBackend) -> None:
    pg.upsert(rec("cat", summary="Luna the cat is three"))
    pg.upsert(rec("hike", summary="Hiking in the Alps", tags=["outdoors"]))
    ids = {h.record.id for h in pg.memories.keyword_search("u1", "cat & | ! ( hiking :* '")}
    assert ids == {"cat", "hike"}
    assert [h.record.id for h in pg.memories.keyword_search("u1", "outdoors")] == ["hike"]
    assert pg.memories.keyword_search("u1", "the and of") == []
    assert pg.memories.keyword_search("u2", "cat") == []
    assert pg.memories.keyword_search("u1", "cat\x00") != []


def test_keyword_search_tokenises_the_query_like_the_documents(pg: PostgresBackend) -> None:
    pg.upsert(rec("m", summary="Ana's e-mail is ana@example.com; her rate is 3.5 percent at x.com/o'b\\c"))
    for q in ("3.5", "e-mail", "ana@example.com", "x.com/o'b", "what's her RATE?"):
        assert [h.record.id for h in pg.memories.keyword_search("u1", q)] == ["m"], q


def test_words_in_most_memories_are_left_out_of_keyword_search(postgres_url: str) -> None:
    batch = [rec(f"m{i}", summary=f"The user mentioned topic{i}") for i in range(40)]
    batch.append(rec("jazz", summary="The user likes jazz"))
    with PostgresBackend(postgres_url) as before:  # 41 rows: under autovacuum's analyze threshold
        before.apply(WriteBatch(upserts=[Upsert(r) for r in batch]))
        assert (
            len(before.memories.keyword_search("u1", "user mentioned", limit=50)) == 41
        )  # no statistics: all words
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("ANALYZE memories")
    with PostgresBackend(postgres_url) as after:
        assert {h.record.id for h in after.memories.keyword_search("u1", "what does the user like?")} == {
            "jazz"
        }
        assert (
            after.memories.keyword_search("u1", "user mentioned") == []
        )  # only common words: no keyword evidence
        assert [h.record.id for h in after.memories.keyword_search("u1", "topic7")] == ["m7"]


# --- connecting -----------------------------------------------------------------------------------


def test_unreachable_server_error_names_the_url_without_password() -> None:
    with pytest.raises(BackendError) as err:
        PostgresBackend("postgresql://bob:s3cret@127.0.0.1:1/memlane?connect_timeout=2")
    assert "127.0.0.1:1" in str(err.value) and "s3cret" not in str(err.value)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://bob:s3cret@db:5432/x", "postgresql://bob:***@db:5432/x"),
        (
            "postgresql://bob@db/x?password=s3cret&sslmode=require",
            "postgresql://bob@db/x?password=***&sslmode=require",
        ),
        ("host=db user=bob password=s3cret", "host=db user=bob password=***"),
    ],
)
def test_redact_url(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_sqlalchemy_style_url_is_accepted(postgres_url: str) -> None:
    with PostgresBackend(postgres_url.replace("postgresql://", "postgresql+psycopg://", 1)) as backend:
        assert backend.schema_version() == SCHEMA_VERSION


# --- jobs, change log, user locks -----------------------------------------------------------------


def job(jid: str, user: str = "u1", **kw: Any) -> Job:
    return Job(id=jid, user_id=user, kind="turn", payload={"n": jid}, **kw)


def test_concurrent_workers_never_claim_the_same_job(pg: PostgresBackend) -> None:
    pg.apply(WriteBatch(jobs=[job(f"j{i}") for i in range(40)]))
    now = datetime.now(UTC)

    def drain(i: int) -> list[str]:
        claimed = []
        while (j := pg.jobs.claim_job(f"w{i}", lease_seconds=60, now=now)) is not None:
            claimed.append(j.id)
        return claimed

    claimed = [jid for ids in in_threads(8, drain) for jid in ids]
    assert sorted(claimed) == sorted(f"j{i}" for i in range(40))
    assert {j.attempts for j in pg.jobs.list_jobs(JobStatus.RUNNING)} == {1}


def test_job_lifecycle_lease_expiry_park_retry_done(pg: PostgresBackend) -> None:
    now = datetime.now(UTC)
    pg.apply(WriteBatch(jobs=[job("j1", run_after=now)]))
    first = pg.jobs.claim_job("w1", lease_seconds=5, now=now)
    assert first is not None and first.status is JobStatus.RUNNING and first.locked_by == "w1"
    assert first.payload == {"n": "j1"} and first.locked_until == now + timedelta(seconds=5)
    assert pg.jobs.claim_job("w2", lease_seconds=5, now=now + timedelta(seconds=1)) is None  # leased
    again = pg.jobs.claim_job("w2", lease_seconds=5, now=now + timedelta(seconds=6))  # w1 died
    assert again is not None and again.attempts == 2 and again.locked_by == "w2"
    pg.jobs.fail_job("j1", "boom " * 1000, retry_at=None)
    (parked,) = pg.jobs.list_jobs(JobStatus.PARKED, user_id="u1")
    assert parked.last_error is not None and len(parked.last_error) == 2000
    assert pg.jobs.retry_job("j1") and not pg.jobs.retry_job("j1")
    claimed = pg.jobs.claim_job("w3", lease_seconds=5, now=datetime.now(UTC) + timedelta(seconds=1))
    assert claimed is not None and claimed.attempts == 1
    pg.apply(WriteBatch(complete_job="j1"))
    assert [j.id for j in pg.jobs.list_jobs(JobStatus.DONE)] == ["j1"]
    assert pg.jobs.count_jobs("u1", "turn", now - timedelta(minutes=1)) == 1
    assert pg.jobs.count_jobs("u2", "turn", now - timedelta(minutes=1)) == 0


def test_change_revisions_are_gapless_under_concurrency(pg: PostgresBackend) -> None:
    def write(i: int) -> None:
        for k in range(10):
            change = Change(id=f"c{i}-{k}", user_id="u1", thread_id="t1", memory_id=f"m{i}", event="created")
            pg.apply(WriteBatch(changes=[change]))

    in_threads(8, write)
    assert pg.changes.thread_revision("u1", "t1") == 80
    assert [c.rev for c in pg.changes.changes_since("u1", "t1", 0, limit=1000)] == list(range(1, 81))
    assert [c.rev for c in pg.changes.changes_since("u1", "t1", 78)] == [79, 80]
    assert pg.changes.thread_revision("u2", "t1") == 0


def test_op_events_newest_first_and_user_deletion(pg: PostgresBackend) -> None:
    t = datetime(2026, 1, 1, tzinfo=UTC)
    events = [OpEvent(id=f"e{i}", user_id="u1", node="hotpath", op="create", sim=0.5, at=t) for i in range(3)]
    pg.apply(WriteBatch(op_events=events, jobs=[job("j1")]))
    assert [e.id for e in pg.changes.op_events("u1")] == ["e2", "e1", "e0"]
    assert pg.changes.op_events("u1")[0] == events[2]
    pg.delete_user("u1")
    assert pg.changes.op_events("u1") == [] and pg.jobs.list_jobs(user_id="u1") == []


def test_user_lock_is_an_advisory_lock_other_sessions_see(pg: PostgresBackend, postgres_url: str) -> None:
    try_lock = "SELECT pg_try_advisory_lock(%s, hashtext(%s))"  # released when query() disconnects
    with pg.user_lock("alice"):
        assert query(postgres_url, try_lock, (USER_LOCK_CLASS, "alice"))[0][0] is False
        assert query(postgres_url, try_lock, (USER_LOCK_CLASS, "bob"))[0][0] is True
    assert query(postgres_url, try_lock, (USER_LOCK_CLASS, "alice"))[0][0] is True


def test_user_lock_does_not_take_a_connection_from_the_main_pool(postgres_url: str) -> None:
    with PostgresBackend(postgres_url, max_size=1, timeout=3) as backend, backend.user_lock("alice"):
        assert backend.memories.count("alice") == 0
