"""Versioned SQLite schema. Each step runs once; the version is kept in ``memlane_meta``. A step
is SQL text or a function of the open transaction's connection."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memlane.storage.sqlite import fts

Step = str | Callable[[Any], None]

MIGRATIONS: list[tuple[int, list[Step]]] = [
    (
        1,
        [
            """CREATE TABLE memories (
                rid INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                user_id TEXT NOT NULL,
                agent_id TEXT, run_id TEXT, actor_id TEXT, thread_id TEXT, chat_id TEXT,
                type TEXT NOT NULL, category TEXT NOT NULL, key TEXT,
                summary TEXT NOT NULL,
                tags TEXT NOT NULL DEFAULT '[]', entities TEXT NOT NULL DEFAULT '[]',
                importance INTEGER NOT NULL, pinned INTEGER NOT NULL DEFAULT 0,
                source TEXT NOT NULL, source_ref TEXT, state TEXT NOT NULL,
                valid_from TEXT, valid_to TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
                last_accessed TEXT, last_verified_at TEXT, access_count INTEGER NOT NULL DEFAULT 0,
                expires_at TEXT, purge_at TEXT,
                superseded_by TEXT, merged_from TEXT NOT NULL DEFAULT '[]', related TEXT NOT NULL DEFAULT '[]',
                date_iso TEXT, week INTEGER, year INTEGER,
                metadata TEXT NOT NULL DEFAULT '{}',
                has_vector INTEGER NOT NULL DEFAULT 0
            )""",
            "CREATE INDEX memories_user_state_type ON memories(user_id, state, type)",
            "CREATE INDEX memories_user_updated ON memories(user_id, updated_at)",
            "CREATE INDEX memories_user_key ON memories(user_id, key)",
            "CREATE VIRTUAL TABLE memories_fts USING fts5(uid, summary, tags, tokenize='porter unicode61')",
            """CREATE TABLE history (
                id TEXT PRIMARY KEY, memory_id TEXT NOT NULL, user_id TEXT NOT NULL, event TEXT NOT NULL,
                old_value TEXT, new_value TEXT, reason TEXT, actor TEXT, at TEXT NOT NULL
            )""",
            "CREATE INDEX history_user_memory_at ON history(user_id, memory_id, at)",
            """CREATE TABLE relations (
                from_id TEXT NOT NULL, to_id TEXT NOT NULL, user_id TEXT NOT NULL,
                relation_type TEXT NOT NULL, strength REAL NOT NULL, created_at TEXT NOT NULL,
                PRIMARY KEY (from_id, to_id)
            )""",
            "CREATE INDEX relations_to ON relations(to_id)",
            "CREATE INDEX relations_user ON relations(user_id)",
        ],
    ),
    (
        2,
        [
            """CREATE TABLE jobs (
                id TEXT PRIMARY KEY, user_id TEXT NOT NULL, thread_id TEXT, kind TEXT NOT NULL,
                payload TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
                run_after TEXT NOT NULL, locked_by TEXT, locked_until TEXT, last_error TEXT,
                created_at TEXT NOT NULL, updated_at TEXT NOT NULL
            )""",
            "CREATE INDEX jobs_runnable ON jobs(status, run_after)",
            "CREATE INDEX jobs_user_kind ON jobs(user_id, kind, created_at)",
            """CREATE TABLE thread_revision (
                user_id TEXT NOT NULL, thread_id TEXT NOT NULL, rev INTEGER NOT NULL,
                PRIMARY KEY (user_id, thread_id)
            )""",
            """CREATE TABLE change_log (
                id TEXT PRIMARY KEY, user_id TEXT NOT NULL, thread_id TEXT NOT NULL, rev INTEGER NOT NULL,
                memory_id TEXT NOT NULL, event TEXT NOT NULL, meta TEXT NOT NULL, at TEXT NOT NULL
            )""",
            "CREATE INDEX change_log_thread_rev ON change_log(user_id, thread_id, rev)",
            """CREATE TABLE op_events (
                id TEXT PRIMARY KEY, user_id TEXT NOT NULL, thread_id TEXT, node TEXT NOT NULL, op TEXT NOT NULL,
                status TEXT NOT NULL, memory_id TEXT, category TEXT, sim REAL, at TEXT NOT NULL
            )""",
            "CREATE INDEX op_events_user_at ON op_events(user_id, at)",
        ],
    ),
    (
        3,
        [
            fts.refill,  # keyword index terms prefixed by the user's token (see storage/sqlite/fts.py)
            # counts under type and category filters (keyword score scaling) read the index alone
            "DROP INDEX IF EXISTS memories_user_state_type",
            "CREATE INDEX IF NOT EXISTS memories_user_state_type_category ON memories(user_id, state, type, category)",
            # partial indexes: bulk ingest writes neither (few memories are pinned or keyed)
            "CREATE INDEX IF NOT EXISTS memories_user_pinned ON memories(user_id, updated_at) WHERE pinned = 1",
            "DROP INDEX IF EXISTS memories_user_key",
            "CREATE INDEX IF NOT EXISTS memories_user_keyed ON memories(user_id, key) WHERE key IS NOT NULL",
            # which vectors changed, for in-memory copies of large users' vectors (storage/sqlite/vector_cache.py)
            "CREATE TABLE IF NOT EXISTS vector_journal (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
            "user_id TEXT NOT NULL, rid INTEGER NOT NULL)",
            "CREATE INDEX IF NOT EXISTS vector_journal_user_seq ON vector_journal(user_id, seq)",
        ],
    ),
    (
        4,
        [
            # the journal is read by sequence (vector_cache.py); a user index cost a page per record
            "DROP INDEX IF EXISTS vector_journal_user_seq",
        ],
    ),
    (
        5,
        [
            # a per-user sequence over the change log: event stream ids, replayed after a reconnect
            lambda c: _add_column(c, "change_log", "seq INTEGER NOT NULL DEFAULT 0"),
            "UPDATE change_log SET seq = n.seq FROM (SELECT rowid AS r, row_number() OVER "
            "(PARTITION BY user_id ORDER BY at, rowid) AS seq FROM change_log) AS n WHERE change_log.rowid = n.r",
            "CREATE INDEX IF NOT EXISTS change_log_user_seq ON change_log(user_id, seq)",
            "CREATE TABLE IF NOT EXISTS user_revision (user_id TEXT PRIMARY KEY, seq INTEGER NOT NULL)",
            "INSERT OR REPLACE INTO user_revision(user_id, seq) SELECT user_id, max(seq) FROM change_log GROUP BY user_id",
            # purges forget: deleted FTS entries leave no words behind; done jobs keep no user text
            "INSERT INTO memories_fts(memories_fts, rank) VALUES ('secure-delete', 1)",
            "UPDATE jobs SET payload = '{}' WHERE status = 'done'",
        ],
    ),
    (
        6,
        [  # pairs of memories consolidation has judged, not judged again for a while
            "CREATE TABLE IF NOT EXISTS pair_checks (user_id TEXT NOT NULL, pair TEXT NOT NULL, "
            "checked_at TEXT NOT NULL, PRIMARY KEY (user_id, pair))",
        ],
    ),
    (
        7,
        [  # memory links: a user sees another user's (or a global) memory; closed links are kept
            "CREATE TABLE IF NOT EXISTS memory_links (user_id TEXT NOT NULL, memory_id TEXT NOT NULL, "
            "linked_at TEXT NOT NULL, linked_by TEXT NOT NULL, unlinked_at TEXT, "
            "PRIMARY KEY (user_id, memory_id)) WITHOUT ROWID",
            "CREATE INDEX IF NOT EXISTS memory_links_memory ON memory_links(memory_id)",
        ],
    ),
    (
        8,
        [  # consent (model/consent.py): changes to sensitive fields wait here for a decision
            """CREATE TABLE IF NOT EXISTS proposals (
                id TEXT PRIMARY KEY, user_id TEXT NOT NULL, thread_id TEXT, field TEXT NOT NULL,
                sensitive INTEGER NOT NULL, memory_id TEXT NOT NULL, current TEXT NOT NULL,
                candidate TEXT NOT NULL, observed_at TEXT NOT NULL, reason TEXT NOT NULL,
                also TEXT NOT NULL DEFAULT '[]', signals INTEGER NOT NULL, status TEXT NOT NULL,
                created_at TEXT NOT NULL, expires_at TEXT NOT NULL, decided_at TEXT, decided_by TEXT, note TEXT
            )""",
            "CREATE INDEX IF NOT EXISTS proposals_user_status ON proposals(user_id, status, expires_at)",
            "CREATE INDEX IF NOT EXISTS proposals_user_memory ON proposals(user_id, memory_id)",
        ],
    ),
    (
        9,
        [  # group-chat sessions (model/session.py) and the messages they hold
            """CREATE TABLE IF NOT EXISTS sessions (
                id TEXT PRIMARY KEY, user_id TEXT NOT NULL, chat_id TEXT NOT NULL, started_at TEXT NOT NULL,
                ended_at TEXT NOT NULL, message_count INTEGER NOT NULL, participants TEXT NOT NULL DEFAULT '[]',
                status TEXT NOT NULL, summary_version INTEGER NOT NULL DEFAULT 0, memory_id TEXT, error TEXT,
                updated_at TEXT NOT NULL
            )""",
            "CREATE INDEX IF NOT EXISTS sessions_user_chat ON sessions(user_id, chat_id, started_at)",
            "CREATE INDEX IF NOT EXISTS sessions_user_status ON sessions(user_id, status, ended_at)",
            """CREATE TABLE IF NOT EXISTS messages (
                id TEXT PRIMARY KEY, user_id TEXT NOT NULL, chat_id TEXT NOT NULL, session_id TEXT NOT NULL,
                role TEXT NOT NULL, sender TEXT, text TEXT NOT NULL, at TEXT NOT NULL
            )""",
            "CREATE INDEX IF NOT EXISTS messages_user_session ON messages(user_id, session_id, at)",
        ],
    ),
    (
        10,
        [  # message-level retrieval: the client's id of a message, keywords and vectors
            lambda c: _add_column(c, "messages", "ref TEXT"),
            "CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(uid, text, tokenize='porter unicode61')",
            "INSERT INTO messages_fts(messages_fts, rank) VALUES ('secure-delete', 1)",
            fts.refill_messages,
            """CREATE TABLE IF NOT EXISTS message_vectors (
                message_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, embedder TEXT NOT NULL, embedding BLOB NOT NULL
            )""",
            "CREATE INDEX IF NOT EXISTS message_vectors_user ON message_vectors(user_id, embedder)",
            # whatever removes a message (delete_user, a deleted session) takes its keywords and vector along
            """CREATE TRIGGER IF NOT EXISTS messages_forget AFTER DELETE ON messages BEGIN
                DELETE FROM messages_fts WHERE rowid = old.rowid;
                DELETE FROM message_vectors WHERE message_id = old.id;
            END""",
        ],
    ),
]


def _add_column(c: Any, table: str, column: str) -> None:
    if column.split()[0] not in {r[1] for r in c.execute(f"PRAGMA table_info({table})")}:
        c.execute(f"ALTER TABLE {table} ADD COLUMN {column}")


SQLITE_SCHEMA_VERSION = MIGRATIONS[-1][0]  # SQLite's own; PostgreSQL's is storage.base.SCHEMA_VERSION
