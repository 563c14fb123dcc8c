"""Points LangGraph's own store test suites at ``MemlaneStore``.

``runner.py`` copies this file next to the upstream ``tests/`` it fetched (outside the repository) and
runs pytest there with ``MEMLANE_LG_SUITE`` set; in memlane's own test run this module does nothing.
The upstream suites build their stores through ``InMemoryStore(...)``, ``PostgresStore.from_conn_string``
and ``AsyncPostgresStore.from_conn_string``; after collection those names are rebound, in the test
modules only, to stand-ins that open a ``MemlaneStore`` on ``MEMLANE_LG_BACKEND`` (sqlite or postgres).
Upstream tests that exercise something other than a store are skipped with the reason given here.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import pytest

SUITE = os.environ.get("MEMLANE_LG_SUITE")  # "inmemory" | "postgres" | None (memlane's own run)
BACKEND = os.environ.get("MEMLANE_LG_BACKEND", "sqlite")
PG_URL = os.environ.get("MEMLANE_LG_PG_URL", "")

_HELPERS = "tests LangGraph's own helpers, not a store"
SKIPS: dict[str, dict[str, str]] = {
    "inmemory": {
        "test_dedupe_ops_maps_repeated_reads_and_puts_to_one_op": _HELPERS
        + " (AsyncBatchedBaseStore op dedupe)",
        "test_get_text_at_path": _HELPERS + " (get_text_at_path)",
        "test_get_text_at_path_with_non_dict_mapping": _HELPERS + " (get_text_at_path)",
        "test_async_batch_store": _HELPERS + " (a mock AsyncBatchedBaseStore defined in the test)",
        "test_async_batch_store_handles_cancellation": _HELPERS + " (a mock AsyncBatchedBaseStore)",
        "test_validate_op_namespace_rejects_invalid_labels": _HELPERS + " (validate_op_namespace)",
        "test_validate_op_namespace_allows_empty_prefix_and_wildcards": _HELPERS + " (validate_op_namespace)",
    },
    "postgres": {
        "test_escape_like_literal": "PostgresStore's private SQL LIKE escaping",
        "test_namespace_match_pattern": "PostgresStore's private SQL regex builder",
        "test_nonnull_migrations": "PostgresStore's SQL migrations",
        "test_abatch_uses_single_pool_checkout": "AsyncPostgresStore's psycopg pool checkouts",
        "test_omit_expired_filters_read_paths": "backdates rows with SQL on PostgresStore's `store` table "
        "(omit_expired is covered in tests/test_langgraph_store.py)",
        "test_omit_expired_disabled_preserves_expired_rows": "SQL on PostgresStore's `store` table (see above)",
        "test_omit_expired_refresh_ttl_only_refreshes_live_rows": "SQL on PostgresStore's `store` table (see above)",
        "test_omit_expired_search_pagination": "SQL on PostgresStore's `store` table (see above)",
    },
}

# With MEMLANE_LG_BACKEND=s3vectors the stand-ins open the seed's S3VectorsStore instead, on moto with
# the QueryVectors emulation (memlane's tests/s3vectors_fake.py, copied beside this file by runner.py).
# Its semantics differ from LangGraph's by design (seed 000); the upstream tests that rely on what it
# leaves out are skipped with the reason here. Only the in-memory suite runs on it: the PostgreSQL
# suite's fixtures create databases and run SQL on a server, which an S3 Vectors store has no use for.
_NO_LIST = "S3VectorsStore has no listing: search(query=None) is [] and list_namespaces raises (seed 000)"
_TWO_LABELS = (
    "S3VectorsStore searches must name their scope labels, each a mandatory filter (the seed's ns_0, "
    "ns_1; the suite store's first label): an empty prefix is refused"
)
_NO_TTL = "S3VectorsStore has no TTL (S3 Vectors cannot expire vectors)"
_ONE_VECTOR = (
    "S3VectorsStore embeds an item's indexed fields joined into one text, one vector per item "
    "(seed 000); LangGraph's stores keep a vector per field and score the best one"
)
S3V_SKIPS: dict[str, dict[str, str]] = {
    "inmemory": {
        **{
            name: _NO_LIST
            for name in (
                "test_list_namespaces_basic",
                "test_list_namespaces_with_wildcards",
                "test_list_namespaces_pagination",
                "test_list_namespaces_max_depth",
                "test_list_namespaces_no_conditions",
                "test_list_namespaces_empty_store",
                "test_search_pages_match_full_listing",
                "test_cannot_put_empty_namespace",
                "test_async_batch_store_resilience",
                "test_async_batch_store_deduplication",
            )
        },
        "test_search_and_listing_keep_empty_prefixes_and_wildcards": _NO_LIST + "; " + _TWO_LABELS,
        "test_async_search_and_listing_keep_empty_prefixes_and_wildcards": _NO_LIST + "; " + _TWO_LABELS,
        "test_embed_with_path": _ONE_VECTOR,
    },
}
# The top-level value fields the upstream suites filter on, declared filterable as a deployment would.
S3V_FILTERABLE = ("category", "color", "score", "x", "data", "value", "even", "tag", "author", "index")

_open: list[Any] = []  # stores opened by the current test, closed after it
_stats = {"stores_opened": 0, "modules_patched": 0}
_scratch = tempfile.mkdtemp(prefix="memlane-lg-suite-") if SUITE else ""


def _fresh_pg_database() -> str:
    import psycopg

    name = f"memlane_lg_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    base, _, rest = PG_URL.rpartition("/")
    query = rest.partition("?")[2]
    return f"{base}/{name}" + (f"?{query}" if query else "")


def _location(conn_string: str | None) -> str:
    """Where a suite store keeps its data: the upstream test's own database on PostgreSQL, a SQLite file
    (one per connection string, so reopening a store finds its data) on SQLite."""
    if BACKEND == "postgres":
        return conn_string or _fresh_pg_database()
    name = hashlib.sha256((conn_string or uuid.uuid4().hex).encode()).hexdigest()[:16]
    return os.path.join(_scratch, f"{name}.db")


def _memory(location: str, index: dict[str, Any] | None) -> Any:
    from memlane.engine.memory import Memory
    from memlane.integrations.langgraph import LangChainEmbedder

    embedder = LangChainEmbedder(index["embed"], index["dims"]) if index and index.get("embed") else "hash"
    return Memory(location, embedder=embedder, llm="rules")


if SUITE:
    from langgraph.store.base import IndexConfig, TTLConfig

    from memlane.integrations.langgraph import AsyncMemlaneStore, MemlaneStore

    class SuiteStore(MemlaneStore):
        """``InMemoryStore(index=...)``: a MemlaneStore on a fresh database."""

        MIGRATIONS: list[str] = []  # PostgresStore's SQL, which the fixtures edit; memlane migrates its own

        def __init__(
            self,
            *,
            index: IndexConfig | None = None,
            ttl: TTLConfig | None = None,
            conn_string: str | None = None,
        ) -> None:
            self.conn_string = conn_string
            _stats["stores_opened"] += 1
            # LangGraph's suites search and list across namespaces of many first labels: the opt-in
            super().__init__(
                _memory(_location(conn_string), dict(index) if index else None),
                index=index,
                ttl=ttl,
                cross_user=True,
            )
            self._owns_memory = True
            if conn_string is None:  # from_conn_string's context manager closes the others
                _open.append(self)

        @contextmanager
        def _cursor(self) -> Iterator[Any]:
            """The upstream fixtures run ``DROP TABLE IF EXISTS store_migrations`` between two ``setup()``
            calls; it runs on the test's PostgreSQL database and touches nothing memlane uses."""
            import psycopg
            from psycopg.rows import dict_row

            with psycopg.connect(self.conn_string or PG_URL, autocommit=True, row_factory=dict_row) as conn:
                yield conn.cursor()

    class SuitePostgresStore:
        """``PostgresStore.from_conn_string(...)`` opens a :class:`SuiteStore` instead."""

        MIGRATIONS: list[str] = []

        @classmethod
        @contextmanager
        def from_conn_string(
            cls,
            conn_string: str,
            *,
            pipeline: bool = False,
            pool_config: Any = None,
            index: IndexConfig | None = None,
            ttl: TTLConfig | None = None,
        ) -> Iterator[SuiteStore]:
            store = SuiteStore(index=index, ttl=ttl, conn_string=conn_string)
            try:
                yield store
            finally:
                store.close()

    class SuiteAsyncStore(AsyncMemlaneStore):
        MIGRATIONS: list[str] = []

        @asynccontextmanager
        async def _cursor(self) -> AsyncIterator[Any]:
            import psycopg
            from psycopg.rows import dict_row

            conn_string = getattr(self.store, "conn_string", None) or PG_URL
            async with await psycopg.AsyncConnection.connect(
                conn_string, autocommit=True, row_factory=dict_row
            ) as conn:
                yield conn.cursor()

    class SuiteAsyncPostgresStore:
        """``AsyncPostgresStore.from_conn_string(...)`` opens an ``AsyncMemlaneStore`` instead."""

        MIGRATIONS: list[str] = []

        @classmethod
        @asynccontextmanager
        async def from_conn_string(
            cls,
            conn_string: str,
            *,
            pipeline: bool = False,
            pool_config: Any = None,
            index: IndexConfig | None = None,
            ttl: TTLConfig | None = None,
        ) -> AsyncIterator[SuiteAsyncStore]:
            inner = await asyncio.to_thread(SuiteStore, index=index, ttl=ttl, conn_string=conn_string)
            store = SuiteAsyncStore(inner)
            try:
                yield store
            finally:
                await store.aclose()


if SUITE and BACKEND == "s3vectors":
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
    import boto3
    from moto import mock_aws

    _aws = mock_aws()
    _aws.start()
    from memlane_s3vectors_fake import S3VectorsEmulation  # type: ignore[import-not-found]

    _s3v_client = boto3.client("s3vectors", region_name="us-east-1")
    S3VectorsEmulation(_s3v_client)

    from memlane.integrations.langgraph import LangChainEmbedder, S3VectorsStore
    from memlane.providers.embed.hash import HashEmbedder

    class s3v_store(S3VectorsStore):  # noqa: N801 - stands in for the InMemoryStore class
        """``InMemoryStore(...)``: an S3VectorsStore on a fresh index. The index config's ``embed``
        replaces Titan (without one, memlane's hash embedder does) and its fields are the indexed
        fields; the suites' namespaces are scoped by their first label (``scope_labels=1``)."""

        def __init__(
            self, *, index: IndexConfig | None = None, ttl: TTLConfig | None = None, **_: Any
        ) -> None:
            _stats["stores_opened"] += 1
            dims = int(index["dims"]) if index else 64
            embedder = (
                LangChainEmbedder(index["embed"], dims)
                if index and index.get("embed")
                else HashEmbedder(dims)
            )
            distance = {"cosine": "COSINE", "l2": "EUCLIDEAN"}.get(
                str((index or {}).get("distance_type", "cosine"))
            )
            if distance is None:
                pytest.skip("S3 Vectors has cosine and euclidean distances only")
            super().__init__(
                _s3v_client,
                None,
                "memlane-suite",
                f"i-{uuid.uuid4().hex}",
                dims=dims,
                model_id="suite-embeddings",
                distance=distance,  # type: ignore[arg-type]
                default_index_fields=list((index or {}).get("fields") or ["$"]),
                embedder=embedder,
                validate_index=False,
                filterable_fields=S3V_FILTERABLE,
                scope_labels=1,
                supports_ttl=bool(ttl),
            )
            if index:
                self.index_config = dict(index)  # type: ignore[assignment]
            self.setup()

    class S3VPostgresStore:
        MIGRATIONS: list[str] = []

        @classmethod
        @contextmanager
        def from_conn_string(cls, conn_string: str, **kwargs: Any) -> Iterator[Any]:
            yield s3v_store(**kwargs)

    class S3VAsyncPostgresStore:
        MIGRATIONS: list[str] = []

        @classmethod
        @asynccontextmanager
        async def from_conn_string(cls, conn_string: str, **kwargs: Any) -> AsyncIterator[Any]:
            yield await asyncio.to_thread(s3v_store, **kwargs)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not SUITE:
        return
    import sys

    upstream_conftest = sys.modules.get("tests.conftest")
    if upstream_conftest is not None and hasattr(upstream_conftest, "DEFAULT_URI"):
        upstream_conftest.DEFAULT_URI = PG_URL  # type: ignore[attr-defined]
    stand_ins: dict[str, Any] = {
        "InMemoryStore": SuiteStore,
        "PostgresStore": SuitePostgresStore,
        "AsyncPostgresStore": SuiteAsyncPostgresStore,
        "DEFAULT_URI": PG_URL,
    }
    if BACKEND == "s3vectors":
        stand_ins.update(
            InMemoryStore=s3v_store, PostgresStore=S3VPostgresStore, AsyncPostgresStore=S3VAsyncPostgresStore
        )
    skips = {**SKIPS[SUITE], **(S3V_SKIPS[SUITE] if BACKEND == "s3vectors" else {})}
    patched = set()
    for item in items:
        module = getattr(item, "module", None)
        for name, value in stand_ins.items():
            if module is not None and hasattr(module, name) and getattr(module, name) is not value:
                setattr(module, name, value)
                patched.add(module.__name__)
        reason = skips.get(getattr(item, "originalname", item.name))
        if reason:
            item.add_marker(pytest.mark.skip(reason=f"out of scope: {reason}"))
    _stats["modules_patched"] = len(patched)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if SUITE:
        terminalreporter.write_line(
            f"memlane-suite: {SUITE} on {BACKEND}: " + ", ".join(f"{k}={v}" for k, v in _stats.items())
        )


@pytest.fixture(autouse=True)
def _memlane_close_stores() -> Iterator[None]:
    """Close the stores a test opened (and drop their PostgreSQL databases)."""
    yield
    while _open:
        store = _open.pop()
        store.close()
        if BACKEND == "postgres":
            _drop(store.memory.settings.db)


def _drop(url: str) -> None:
    import psycopg

    name = url.rpartition("/")[2].partition("?")[0]
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def pytest_unconfigure(config: pytest.Config) -> None:
    if SUITE and BACKEND == "s3vectors":
        _aws.stop()
    if _scratch:
        shutil.rmtree(_scratch, ignore_errors=True)
