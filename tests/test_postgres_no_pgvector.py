"""PostgreSQL without pgvector: keyword search only, with one clear notice.

The test server has pgvector, so its absence is simulated at the boundary: ``MEMLANE_PG_VECTOR=off``
makes memlane run exactly as where the extension is unavailable (no extension created, no vector
table, no vector SQL), and a role that may not create the extension is a real absence memlane
detects from the server. The server is real either way."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import psycopg
import pytest
from psycopg import sql

from memlane.engine.memory import Memory
from memlane.model.config import Settings
from memlane.model.errors import BackendError
from memlane.providers.embed.hash import HashEmbedder
from memlane.storage import open_backend
from memlane.storage.base import SCHEMA_VERSION
from memlane.storage.postgres.backend import PostgresBackend
from tests.postgres_helpers import DIMS, query, rec, vec

pytestmark = pytest.mark.postgres

U = "ana"
NOTICE = "PostgreSQL without pgvector"
VECTOR_TABLES = (
    "SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
    "AND tablename IN ('memory_vectors', 'message_vectors', 'vector_users') ORDER BY 1"
)


def _extension(url: str) -> list[tuple[object, ...]]:
    return query(url, "SELECT extname FROM pg_extension WHERE extname = 'vector'")


def _notices(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if NOTICE in r.getMessage()]


@pytest.fixture
def nopg(postgres_url: str) -> Iterator[PostgresBackend]:
    backend = PostgresBackend(postgres_url, pg_vector="off")
    backend.bind_embedder(f"test:pg:{DIMS}", DIMS)
    try:
        yield backend
    finally:
        backend.close()


def test_migrate_makes_every_table_but_the_vector_ones_and_logs_one_notice(
    postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="memlane"):
        backend = PostgresBackend(postgres_url, pg_vector="off")
    try:
        backend.bind_embedder(f"test:pg:{DIMS}", DIMS)  # no vector table is made
        assert backend.migrate() == SCHEMA_VERSION
        assert backend.schema_version() == SCHEMA_VERSION
        assert not backend.has_vectors
        assert query(postgres_url, VECTOR_TABLES) == []
        assert _extension(postgres_url) == []  # not even the extension
        found = _notices(caplog)
        assert len(found) == 1 and found[0].levelno == logging.WARNING
        text = found[0].getMessage()
        assert "MEMLANE_PG_VECTOR=off" in text and "keyword" in text
        assert "https://github.com/pgvector/pgvector" in text and "memlane reembed --missing-only" in text
        assert backend.notices() == [text]
        backend.migrate()  # again: no second notice
        assert len(_notices(caplog)) == 1
    finally:
        backend.close()


def test_writes_work_and_search_answers_by_keyword(nopg: PostgresBackend, postgres_url: str) -> None:
    nopg.upsert(rec("m1", U, "Ana keeps bees on her roof"), vec(1))
    nopg.upsert(rec("m2", U, "Ana drives a blue Golf"), vec(0, 1))
    assert nopg.memories.get(U, "m1") is not None
    assert nopg.memories.vectors(U, ["m1", "m2"]) == {}
    assert nopg.memories.vector_search(U, vec(1)) == []
    hits = nopg.memories.keyword_search(U, "bees")
    assert [h.record.id for h in hits] == ["m1"]
    assert nopg.delete_user(U) == 2
    assert nopg.memories.get(U, "m1") is None
    assert query(postgres_url, VECTOR_TABLES) == []


def test_the_engine_adds_updates_deletes_and_searches_by_keyword(postgres_url: str) -> None:
    settings = Settings(db=postgres_url, pg_vector="off", timezone="UTC")
    with Memory(postgres_url, embedder=HashEmbedder(DIMS), settings=settings) as mem:
        assert not mem.backend.has_vectors
        bees = mem.put("Ana keeps bees on her roof.", user_id=U)
        car = mem.put("Ana drives a blue Golf.", user_id=U)
        mem.update(car.id, user_id=U, summary="Ana drives a red Golf.")
        assert mem.get(car.id, user_id=U).summary == "Ana drives a red Golf."
        hits = mem.search("bees", user_id=U)
        assert [h.memory.id for h in hits] == [bees.id]
        assert [h.memory.id for h in mem.search("red Golf", user_id=U)] == [car.id]
        mem.delete(bees.id, user_id=U)
        assert mem.search("bees", user_id=U) == []
        assert query(postgres_url, VECTOR_TABLES) == []
        with pytest.raises(BackendError, match="keeps no vectors.*install pgvector"):
            mem.reembed(missing_only=True)


def test_formation_judges_a_fact_against_the_memories_sharing_its_words(postgres_url: str) -> None:
    settings = Settings(db=postgres_url, pg_vector="off", timezone="UTC")
    with Memory(postgres_url, embedder=HashEmbedder(DIMS), settings=settings, llm="rules") as mem:
        mem.add_facts([{"summary": "Ana keeps bees on her roof."}], user_id=U, wait=True)
        mem.add_facts([{"summary": "Ana keeps bees on her roof."}], user_id=U, wait=True)  # a duplicate
        mem.add_facts([{"summary": "Ana drives a blue Golf."}], user_id=U, wait=True)
        summaries = sorted(r.summary for r in mem.list(user_id=U))
        assert summaries == ["Ana drives a blue Golf.", "Ana keeps bees on her roof."]
        assert [h.memory.summary for h in mem.search("Golf", user_id=U)] == ["Ana drives a blue Golf."]
        assert query(postgres_url, VECTOR_TABLES) == []


def test_message_search_is_by_keyword_and_nothing_waits_for_a_vector(nopg: PostgresBackend) -> None:
    assert nopg.sessions.messages_without_vector(U, "test", limit=10) == []
    assert nopg.sessions.put_message_vectors(U, "test", {"x": vec(1)}) == 0
    assert nopg.sessions.search_messages(U, text="bees", vector=vec(1), embedder="test") == []


def test_the_setting_reaches_the_backend_from_the_environment(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMLANE_PG_VECTOR", "off")
    backend = open_backend(postgres_url, Settings())
    try:
        assert not backend.has_vectors
    finally:
        backend.close()


def test_healthz_shows_the_notice(postgres_url: str) -> None:
    from fastapi.testclient import TestClient

    from memlane.server.app import create_app

    settings = Settings(db=postgres_url, pg_vector="off", timezone="UTC")
    mem = Memory(postgres_url, embedder=HashEmbedder(DIMS), settings=settings)
    with mem, TestClient(create_app(mem, settings)) as client:
        body = client.get("/healthz").json()
    assert len(body["notices"]) == 1 and NOTICE in body["notices"][0]


def test_installing_pgvector_later_brings_vectors_back(postgres_url: str) -> None:
    settings = Settings(db=postgres_url, pg_vector="off", timezone="UTC")
    with Memory(postgres_url, embedder=HashEmbedder(DIMS), settings=settings) as mem:
        bees = mem.put("Ana keeps bees on her roof.", user_id=U)
    settings = Settings(db=postgres_url, timezone="UTC")  # pgvector "installed": auto finds it
    with Memory(postgres_url, embedder=HashEmbedder(DIMS), settings=settings) as mem:
        assert mem.backend.has_vectors and mem.backend.notices() == []
        assert mem.backend.memories.vectors(U, [bees.id]) == {}
        assert mem.reembed(missing_only=True).embedded == 1
        assert list(mem.backend.memories.vectors(U, [bees.id])) == [bees.id]
        vector = HashEmbedder(DIMS).embed_one(mem.embed_text(bees))
        assert [h.record.id for h in mem.backend.memories.vector_search(U, vector)] == [bees.id]


@pytest.fixture
def plain_role_url(postgres_url: str) -> Iterator[str]:
    """The fresh database owned by a role that may not create the (untrusted) pgvector extension."""
    parts = psycopg.conninfo.conninfo_to_dict(postgres_url)
    dbname = str(parts["dbname"])
    role = f"plain_{dbname[-12:]}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
        conn.execute(
            sql.SQL("ALTER DATABASE {} OWNER TO {}").format(sql.Identifier(dbname), sql.Identifier(role))
        )
        conn.execute(sql.SQL("ALTER SCHEMA public OWNER TO {}").format(sql.Identifier(role)))
    parts.update(user=role)
    parts.pop("password", None)
    try:
        yield psycopg.conninfo.make_conninfo(**{k: str(v) for k, v in parts.items() if v is not None})
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute(sql.SQL("REASSIGN OWNED BY {} TO CURRENT_USER").format(sql.Identifier(role)))
            conn.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(role)))
            conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))


def test_a_role_that_may_not_create_the_extension_runs_keyword_only(
    plain_role_url: str, postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="memlane"):
        backend = PostgresBackend(plain_role_url)  # auto: detected from the server, no setting
    try:
        backend.bind_embedder(f"test:pg:{DIMS}", DIMS)
        assert not backend.has_vectors
        assert "may not create the pgvector extension" in backend.notices()[0]
        assert len(_notices(caplog)) == 1
        backend.upsert(rec("m1", U, "Ana keeps bees"), vec(1))
        assert [h.record.id for h in backend.memories.keyword_search(U, "bees")] == ["m1"]
        assert query(postgres_url, VECTOR_TABLES) == [] and _extension(postgres_url) == []
    finally:
        backend.close()
