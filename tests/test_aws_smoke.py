"""A smoke test against real AWS: Amazon S3 Vectors, Bedrock Titan embeddings and a Bedrock Nova model.

Skipped unless ``MEMLANE_AWS_SMOKE_BUCKET`` names a vector bucket (created when missing) and AWS
credentials are configured the standard way (``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY`` /
``AWS_SESSION_TOKEN``, or ``AWS_PROFILE``), with ``AWS_REGION`` where S3 Vectors and the Bedrock models are
enabled (default us-east-1). It creates its own indexes (``memlane-smoke-<hex>``) and deletes them
after; the Nova model is ``MEMORY_TINY_LLM_MODEL_ID`` (default amazon.nova-micro-v1:0), Titan is
``BEDROCK_EMBED_MODEL_ID``. It costs a few cents at most. How to run it: docs/s3vectors.md.
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

BUCKET_VAR = "MEMLANE_AWS_SMOKE_BUCKET"
HOW = (
    f"AWS smoke test: set {BUCKET_VAR} (an S3 vector bucket, created when missing) and AWS credentials "
    "(AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE), with AWS_REGION where S3 Vectors, "
    "Titan and Nova are enabled"
)
pytestmark = pytest.mark.skipif(not os.environ.get(BUCKET_VAR), reason=f"{HOW} ({BUCKET_VAR} is not set)")
T = TypeVar("T")


def eventually(read: Callable[[], T], ok: Callable[[T], bool], seconds: float = 30.0) -> T:
    """``read()`` until ``ok`` (S3 Vectors may answer a query before a fresh put is visible)."""
    deadline = time.monotonic() + seconds
    while True:
        got = read()
        if ok(got) or time.monotonic() > deadline:
            return got
        time.sleep(1.0)


@pytest.fixture(scope="module")
def settings() -> Any:
    import boto3

    if boto3.Session().get_credentials() is None:
        pytest.skip(f"{HOW} (no AWS credentials found)")
    from memlane.model.config import Settings

    return Settings().model_copy(update={"s3v_bucket": os.environ[BUCKET_VAR]})


@pytest.fixture(scope="module")
def clients(settings: Any) -> tuple[Any, Any]:
    from memlane.integrations.langgraph.s3v_factory import aws_clients

    return aws_clients(settings)


def drop_index(s3v: Any, bucket: str, index: str) -> None:
    with contextlib.suppress(s3v.exceptions.NotFoundException):
        s3v.delete_index(vectorBucketName=bucket, indexName=index)


@pytest.fixture
def index_name(clients: tuple[Any, Any], settings: Any) -> Iterator[str]:
    name = f"memlane-smoke-{uuid.uuid4().hex[:10]}"
    yield name
    drop_index(clients[0], settings.s3v_bucket, name)


def test_s3vectors_store_put_search_and_the_tools_against_aws(
    clients: tuple[Any, Any], settings: Any, index_name: str
) -> None:
    from langchain_core.messages import AIMessage
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode

    from memlane.integrations.langgraph.s3v_store import S3VectorsStore
    from memlane.integrations.langgraph.tools import memory_tools

    s3v, bedrock = clients
    store = S3VectorsStore(
        s3v,
        bedrock,
        settings.s3v_bucket,
        index_name,
        model_id=settings.bedrock_embed_model_id,
        validate_index=False,
    )
    store.setup(create=True)  # the bucket when missing, and this run's index
    user = f"smoke-{uuid.uuid4().hex[:8]}"
    ns = (user, "semantic")
    store.put(ns, "pet", {"summary": "The user's cat Luna is three years old.", "category": "Personal"})
    store.put(ns, "job", {"summary": "The user works as a nurse in Lisbon.", "category": "Work"})
    assert store.get(ns, "pet") is not None  # GetVectors

    hits = eventually(lambda: store.search(ns, query="how old is the cat?", limit=2), lambda h: len(h) == 2)
    assert [h.key for h in hits][:1] == ["pet"] and hits[0].score is not None  # Titan + QueryVectors
    narrowed = store.search(ns, query="how old is the cat?", filter={"category": "Work"}, limit=2)
    assert [h.key for h in narrowed] == ["job"]  # the category filter runs in S3 Vectors
    assert store.search((f"{user}-other", "semantic"), query="cat", limit=5) == []  # tenancy

    # memlane's tools in a graph over the store: put, then search
    app = StateGraph(MessagesState).add_node("tools", ToolNode(memory_tools())).add_edge(START, "tools")
    graph = app.compile(store=store)
    config = {"configurable": {"user_id": user}}

    def call(name: str, args: dict[str, Any]) -> str:
        ask = AIMessage("", tool_calls=[{"name": name, "args": args, "id": "c1"}])
        return str(graph.invoke({"messages": [("user", "hi"), ask]}, config)["messages"][-1].content)

    assert "Madrid" in call("semantic_memory_put", {"summary": "The user's sister Ana lives in Madrid."})
    found = eventually(
        lambda: call("semantic_memory_search", {"query": "where does my sister live?"}),
        lambda t: "Madrid" in t,
    )
    assert "Madrid" in found
    store.delete(ns, "pet")
    assert store.get(ns, "pet") is None


def test_formation_with_nova_titan_and_the_s3vectors_channel(settings: Any, tmp_path: Path) -> None:
    import boto3

    from memlane import Memory

    vectors_index = f"memlane-smoke-{uuid.uuid4().hex[:10]}"
    mem_settings = settings.model_copy(
        update={
            "embedder": "bedrock",
            "llm": "bedrock",
            "vectors": "s3vectors",
            "s3v_index_vectors": vectors_index,
        }
    )
    mem = Memory(str(tmp_path / "smoke.db"), settings=mem_settings)
    user = f"smoke-{uuid.uuid4().hex[:8]}"
    try:
        mem.add([{"role": "user", "content": "My dog Rex is 3 years old."}], user_id=user, wait=True)
        formed = [r.summary for r in mem.list(user_id=user)]
        assert any("Rex" in s for s in formed), formed  # Nova extracted it, Titan embedded it

        mem.add([{"role": "user", "content": "Rex just turned 4."}], user_id=user, wait=True)
        active = [r.summary for r in mem.list(user_id=user) if "Rex" in r.summary]
        assert len(active) == 1 and "4" in active[0], active  # the decision updated, not duplicated

        hits = eventually(
            lambda: mem.search("how old is my dog?", user_id=user, limit=3), lambda h: bool(h), seconds=30
        )
        assert hits and "Rex" in hits[0].memory.summary  # the dense search answered by S3 Vectors
        mem.delete_user(user)
    finally:
        mem.close()
        s3v = boto3.client("s3vectors", region_name=settings.aws_region)
        drop_index(s3v, settings.s3v_bucket, vectors_index)
