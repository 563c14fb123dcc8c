"""Versioned PostgreSQL schema. Each step runs once; ``schema_version`` lives in ``memlane_meta``.

The vector table is not a migration: its column size is the embedder's, known only when
``create_vector_index(dims)`` is called (see :func:`create_vector_table`).

Vector layout: searches are always per user, and a user with a few hundred memories is searched
exactly (the ``(user_id, indexed)`` btree, a few hundred distances) faster than through a global
HNSW graph filtered to that user. So the HNSW index is partial (``WHERE indexed``): a user's vectors
join it only once the user has more than ``writes.INDEX_AFTER`` of them. That keeps the HNSW insert
(about 1-3 ms of server CPU per vector, most of a bulk ingest's cost) off the writes of small users.
Each user's place is one ``vector_users`` row (in the index yet, vectors written outside it), so a
write does not count the user's vectors.
"""

from __future__ import annotations

from typing import Any

import psycopg

from memlane.model.errors import DimensionMismatchError, SchemaVersionError
from memlane.storage.base import SCHEMA_VERSION

# pg_advisory_xact_lock key shared by every memlane process migrating the same database.
_LOCK_KEY = 0x6D656D6C616E65  # "memlane"

# Over 2000 dims pgvector cannot build an HNSW index on `vector`; such stores search exactly.
HNSW_MAX_DIMS = 2000

MIGRATIONS: list[tuple[int, list[str]]] = [
    (
        1,
        [
            # array_to_string is only STABLE; for text[] it is immutable in fact, which a generated
            # column needs.
            """CREATE OR REPLACE FUNCTION memlane_tags_text(text[]) RETURNS text
               LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT array_to_string($1, ' ') $$""",
            """CREATE TABLE memories (
                id text PRIMARY KEY,
                user_id text NOT NULL,
                agent_id text, run_id text, actor_id text, thread_id text, chat_id text,
                type text NOT NULL, category text NOT NULL, key text,
                summary text NOT NULL,
                tags text[] NOT NULL DEFAULT '{}', entities text[] NOT NULL DEFAULT '{}',
                importance integer NOT NULL, pinned boolean NOT NULL DEFAULT false,
                source text NOT NULL, source_ref text, state text NOT NULL,
                valid_from timestamptz, valid_to timestamptz,
                created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
                last_accessed timestamptz, last_verified_at timestamptz,
                access_count integer NOT NULL DEFAULT 0,
                expires_at timestamptz, purge_at timestamptz,
                superseded_by text,
                merged_from text[] NOT NULL DEFAULT '{}', related text[] NOT NULL DEFAULT '{}',
                date_iso text, week integer, year integer,
                metadata jsonb NOT NULL DEFAULT '{}',
                fts tsvector GENERATED ALWAYS AS (
                    setweight(to_tsvector('english', summary), 'A')
                    || setweight(to_tsvector('english', memlane_tags_text(tags)), 'B')
                ) STORED
            )""",
            "CREATE INDEX memories_user_state_type ON memories (user_id, state, type)",
            "CREATE INDEX memories_user_updated ON memories (user_id, updated_at)",
            "CREATE INDEX memories_user_key ON memories (user_id, key)",
            "CREATE INDEX memories_fts ON memories USING gin (fts)",
            """CREATE TABLE history (
                seq bigint GENERATED ALWAYS AS IDENTITY,
                id text PRIMARY KEY, memory_id text NOT NULL, user_id text NOT NULL, event text NOT NULL,
                old_value jsonb, new_value jsonb, reason text, actor text, at timestamptz NOT NULL
            )""",
            "CREATE INDEX history_user_memory_at ON history (user_id, memory_id, at)",
            """CREATE TABLE relations (
                from_id text NOT NULL, to_id text NOT NULL, user_id text NOT NULL,
                relation_type text NOT NULL, strength double precision NOT NULL,
                created_at timestamptz NOT NULL,
                PRIMARY KEY (from_id, to_id)
            )""",
            "CREATE INDEX relations_to ON relations (to_id)",
            "CREATE INDEX relations_user ON relations (user_id)",
        ],
    ),
    (
        2,
        [
            """CREATE TABLE jobs (
                seq bigint GENERATED ALWAYS AS IDENTITY,
                id text PRIMARY KEY, user_id text NOT NULL, thread_id text, kind text NOT NULL,
                payload jsonb NOT NULL DEFAULT '{}', status text NOT NULL,
                attempts integer NOT NULL DEFAULT 0,
                run_after timestamptz NOT NULL, locked_by text, locked_until timestamptz, last_error text,
                created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL
            )""",
            "CREATE INDEX jobs_runnable ON jobs (status, run_after)",
            "CREATE INDEX jobs_user_kind ON jobs (user_id, kind, created_at)",
            """CREATE TABLE thread_revision (
                user_id text NOT NULL, thread_id text NOT NULL, rev bigint NOT NULL,
                PRIMARY KEY (user_id, thread_id)
            )""",
            """CREATE TABLE change_log (
                id text PRIMARY KEY, user_id text NOT NULL, thread_id text NOT NULL, rev bigint NOT NULL,
                memory_id text NOT NULL, event text NOT NULL, meta jsonb NOT NULL DEFAULT '{}',
                at timestamptz NOT NULL
            )""",
            "CREATE INDEX change_log_thread_rev ON change_log (user_id, thread_id, rev)",
            """CREATE TABLE op_events (
                seq bigint GENERATED ALWAYS AS IDENTITY,
                id text PRIMARY KEY, user_id text NOT NULL, thread_id text, node text NOT NULL,
                op text NOT NULL, status text NOT NULL, memory_id text, category text,
                sim double precision, at timestamptz NOT NULL
            )""",
            "CREATE INDEX op_events_user_at ON op_events (user_id, at)",
        ],
    ),
    (
        3,
        [
            # a per-user sequence over the change log: event stream ids, replayed after a reconnect
            "ALTER TABLE change_log ADD COLUMN seq bigint NOT NULL DEFAULT 0",
            "UPDATE change_log c SET seq = n.seq FROM (SELECT id, row_number() OVER "
            "(PARTITION BY user_id ORDER BY at, id) AS seq FROM change_log) n WHERE c.id = n.id",
            "CREATE INDEX change_log_user_seq ON change_log (user_id, seq)",
            "CREATE TABLE user_revision (user_id text PRIMARY KEY, seq bigint NOT NULL)",
            "INSERT INTO user_revision (user_id, seq) SELECT user_id, max(seq) FROM change_log GROUP BY user_id",
            # done jobs keep no user text (their payload becomes their outcome)
            "UPDATE jobs SET payload = '{}' WHERE status = 'done'",
        ],
    ),
    (
        4,
        [  # pairs of memories consolidation has judged, not judged again for a while
            "CREATE TABLE pair_checks (user_id text NOT NULL, pair text NOT NULL, "
            "checked_at timestamptz NOT NULL, PRIMARY KEY (user_id, pair))",
        ],
    ),
    (
        5,
        [  # memory links: a user sees another user's (or a global) memory; closed links are kept
            "CREATE TABLE memory_links (user_id text NOT NULL, memory_id text NOT NULL, "
            "linked_at timestamptz NOT NULL, linked_by text NOT NULL, unlinked_at timestamptz, "
            "PRIMARY KEY (user_id, memory_id))",
            "CREATE INDEX memory_links_memory ON memory_links (memory_id)",
        ],
    ),
    (
        6,
        [  # consent (model/consent.py): changes to sensitive fields wait here for a decision
            """CREATE TABLE proposals (
                seq bigint GENERATED ALWAYS AS IDENTITY,
                id text PRIMARY KEY, user_id text NOT NULL, thread_id text, field text NOT NULL,
                sensitive boolean NOT NULL, memory_id text NOT NULL, current text NOT NULL,
                candidate jsonb NOT NULL, observed_at timestamptz NOT NULL, reason text NOT NULL,
                also text[] NOT NULL DEFAULT '{}', signals integer NOT NULL, status text NOT NULL,
                created_at timestamptz NOT NULL, expires_at timestamptz NOT NULL, decided_at timestamptz,
                decided_by text, note text
            )""",
            "CREATE INDEX proposals_user_status ON proposals (user_id, status, expires_at)",
            "CREATE INDEX proposals_user_memory ON proposals (user_id, memory_id)",
        ],
    ),
    (
        7,
        [  # group-chat sessions (model/session.py) and the messages they hold
            """CREATE TABLE sessions (
                id text PRIMARY KEY, user_id text NOT NULL, chat_id text NOT NULL, started_at timestamptz NOT NULL,
                ended_at timestamptz NOT NULL, message_count integer NOT NULL,
                participants jsonb NOT NULL DEFAULT '[]'::jsonb, status text NOT NULL,
                summary_version integer NOT NULL DEFAULT 0, memory_id text, error text, updated_at timestamptz NOT NULL
            )""",
            "CREATE INDEX sessions_user_chat ON sessions (user_id, chat_id, started_at DESC)",
            "CREATE INDEX sessions_user_status ON sessions (user_id, status, ended_at)",
            """CREATE TABLE messages (
                seq bigint GENERATED ALWAYS AS IDENTITY,
                id text PRIMARY KEY, user_id text NOT NULL, chat_id text NOT NULL, session_id text NOT NULL,
                role text NOT NULL, sender text, text text NOT NULL, at timestamptz NOT NULL
            )""",
            "CREATE INDEX messages_user_session ON messages (user_id, session_id, at)",
        ],
    ),
    (
        8,
        [  # message-level retrieval: the client's id of a message, keywords and vectors
            "ALTER TABLE messages ADD COLUMN ref text",
            "ALTER TABLE messages ADD COLUMN fts tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED",
            "CREATE INDEX messages_fts ON messages USING gin (fts)",
        ],
    ),
]


# What needs pgvector, made after the migrations wherever the server has it (idempotent): a server
# without pgvector gets every other table, and these once pgvector is installed and memlane restarts.
VECTOR_SCHEMA = [
    "CREATE EXTENSION IF NOT EXISTS vector",
    # any size (no typmod): a message vector is searched exactly, per user, never through an index
    """CREATE TABLE IF NOT EXISTS message_vectors (
        message_id text PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
        user_id text NOT NULL, embedder text NOT NULL, embedding vector NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS message_vectors_user ON message_vectors (user_id, embedder)",
]


def missing_vectors(conn: psycopg.Connection[Any], setting: str) -> str | None:
    """Why this store runs without pgvector (a phrase for the notice), or None when it has it.

    ``setting`` is ``MEMLANE_PG_VECTOR``: ``off`` answers as if the server had no pgvector. Otherwise
    an installed extension is used, an available one is created, and a server without it (not in
    ``pg_available_extensions``) or a role that may not create it means no vectors."""
    if setting == "off":
        return "MEMLANE_PG_VECTOR=off"
    if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone():
        return None
    if not conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone():
        return "the server has no pgvector extension (no 'vector' in pg_available_extensions)"
    try:
        with conn.transaction():  # a savepoint: a refusal leaves the migration's transaction usable
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except psycopg.errors.InsufficientPrivilege as exc:
        return f"this role may not create the pgvector extension ({str(exc).strip()})"
    return None


def read_version(conn: psycopg.Connection[Any]) -> int:
    """The schema version in force, 0 for an empty database."""
    if conn.execute("SELECT to_regclass('memlane_meta')").fetchone() == (None,):
        return 0
    row = conn.execute("SELECT value FROM memlane_meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


def migrate(conn: psycopg.Connection[Any], pg_vector: str = "auto") -> tuple[int, str | None]:
    """Apply the missing steps in one transaction; return the version now in force and why there
    are no vectors (None: pgvector is there, and :data:`VECTOR_SCHEMA` is made too)."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        no_vectors = missing_vectors(conn, pg_vector)
        conn.execute("CREATE TABLE IF NOT EXISTS memlane_meta (key text PRIMARY KEY, value text NOT NULL)")
        current = read_version(conn)
        if current > SCHEMA_VERSION:
            raise SchemaVersionError(
                f"this database has memlane schema version {current}, but this memlane understands up to "
                f"version {SCHEMA_VERSION}; upgrade memlane (pip install -U memlane) to use it"
            )
        for version, steps in MIGRATIONS:
            if version <= current:
                continue
            for sql in steps:
                conn.execute(sql)
            current = version
        for sql in VECTOR_SCHEMA if no_vectors is None else ():
            conn.execute(sql)
        conn.execute(
            "INSERT INTO memlane_meta (key, value) VALUES ('schema_version', %s) "
            "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            (str(current),),
        )
        if no_vectors is None:  # vectors of a store bound to an embedder while pgvector was missing
            dims = conn.execute("SELECT value FROM memlane_meta WHERE key = 'embed_dims'").fetchone()
            if dims is not None and vector_dims(conn) is None:
                create_vector_table(conn, int(dims[0]))
    return current, no_vectors


def vector_dims(conn: psycopg.Connection[Any]) -> int | None:
    """Size of the stored vectors, None while there is no vector table."""
    row = conn.execute(
        "SELECT atttypmod FROM pg_attribute "
        "WHERE attrelid = to_regclass('memory_vectors') AND attname = 'embedding'"
    ).fetchone()
    return None if row is None else int(row[0])


# Per user: in the HNSW index yet, and how many vectors were written while outside it (writes.py).
_CREATE_VECTOR_USERS = (
    "CREATE TABLE vector_users (user_id text PRIMARY KEY, exact integer NOT NULL, indexed boolean NOT NULL)"
)


def create_vector_table(conn: psycopg.Connection[Any], dims: int) -> None:
    """Create ``memory_vectors`` for ``dims``-sized vectors with an HNSW cosine index (idempotent)."""
    if not 1 <= dims <= 16000:  # pgvector's limit for the vector type
        raise DimensionMismatchError(f"vector size must be between 1 and 16000, got {dims}")
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        existing = vector_dims(conn)
        if existing is not None:
            if existing != dims:
                raise DimensionMismatchError(
                    f"this store already holds {existing}-dim vectors; cannot create a {dims}-dim index"
                )
            return
        conn.execute(
            f"""CREATE TABLE memory_vectors (
                id text PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
                user_id text NOT NULL,
                indexed boolean NOT NULL DEFAULT false,
                embedding vector({int(dims)}) NOT NULL
            )"""  # dims is an int: DDL cannot take parameters
        )
        _create_vector_indexes(conn, dims)
        conn.execute(_CREATE_VECTOR_USERS)


def _create_vector_indexes(conn: psycopg.Connection[Any], dims: int) -> None:
    conn.execute("CREATE INDEX memory_vectors_user ON memory_vectors (user_id, indexed)")
    if dims <= HNSW_MAX_DIMS:
        conn.execute(
            "CREATE INDEX memory_vectors_hnsw ON memory_vectors USING hnsw (embedding vector_cosine_ops) "
            "WHERE indexed"
        )


def upgrade_vector_table(conn: psycopg.Connection[Any]) -> None:
    """Bring a vector table of an older layout to the current one (idempotent).

    A table made before the partial HNSW index keeps its rows in the index (``indexed`` true), so its
    users keep the search they had; the index is rebuilt once, as a partial one. A table made before
    ``vector_users`` gets it, counted from the vectors.
    """
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        dims = vector_dims(conn)
        if dims is None:
            return
        has_flag = conn.execute(
            "SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('memory_vectors') AND attname = 'indexed'"
        ).fetchone()
        if not has_flag:
            conn.execute("ALTER TABLE memory_vectors ADD COLUMN indexed boolean NOT NULL DEFAULT true")
            conn.execute("ALTER TABLE memory_vectors ALTER COLUMN indexed SET DEFAULT false")
            conn.execute("DROP INDEX IF EXISTS memory_vectors_user")
            conn.execute("DROP INDEX IF EXISTS memory_vectors_hnsw")
            _create_vector_indexes(conn, dims)
        if conn.execute("SELECT to_regclass('vector_users')").fetchone() == (None,):
            conn.execute(_CREATE_VECTOR_USERS)
            conn.execute(
                "INSERT INTO vector_users (user_id, exact, indexed) "
                "SELECT user_id, count(*) FILTER (WHERE NOT indexed), bool_or(indexed) "
                "FROM memory_vectors GROUP BY user_id"
            )
