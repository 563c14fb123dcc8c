"""Engines over both backends for the write-path tests, and a look into every table of a store."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from memlane import Memory
from memlane.model.config import Settings
from memlane.providers.embed.hash import HashEmbedder
from memlane.storage.base import Backend
from tests.conftest import open_test_backend

BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


def engine(request: pytest.FixtureRequest, tmp_path: os.PathLike[str]) -> Iterator[Memory]:
    backend = open_test_backend(request.param, request, tmp_path)
    mem = Memory(
        backend=backend,
        embedder=HashEmbedder(64),
        llm="rules",
        settings=Settings(db=os.path.join(tmp_path, "memlane.db")),
    )
    try:
        yield mem
    finally:
        mem.close()


def table_rows(backend: Backend) -> dict[str, list[str]]:
    """Every row of every ordinary table (SQLite: FTS and vector shadow tables included), as text."""
    out: dict[str, list[str]] = {}
    if backend.name == "sqlite":
        conn: Any = backend._conn  # type: ignore[attr-defined]
        names = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'"
            )
        ]
        for name in names:
            out[name] = [
                " ".join(c.decode("utf-8", "ignore") if isinstance(c, bytes) else str(c) for c in row)
                for row in conn.execute(f'SELECT * FROM "{name}"')
            ]
        return out
    with backend._connection() as conn:  # type: ignore[attr-defined]
        names = [
            r[0]
            for r in conn.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
            )
        ]
        for name in names:
            out[name] = [r[0] for r in conn.execute(f'SELECT t::text FROM "{name}" t')]
    return out


def tables_holding(backend: Backend, token: str) -> list[str]:
    return sorted(
        name
        for name, rows in table_rows(backend).items()
        if any(token.lower() in row.lower() for row in rows)
    )
