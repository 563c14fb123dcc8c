"""The AWS requests ``S3VectorsStore`` sends and the responses it reads, pinned with botocore's Stubber
on real boto3 clients (the service models validate every parameter): Titan ``InvokeModel``,
``GetVectors``, ``PutVectors`` and ``QueryVectors``. And the store factory from the environment, on moto."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any
from uuid import NAMESPACE_URL, uuid5

import boto3
import pytest
from botocore.response import StreamingBody
from botocore.stub import ANY, Stubber

from memlane.integrations.langgraph.s3v_store import S3VectorsStore
from memlane.model.config import Settings
from memlane.model.errors import ConfigError
from memlane.storage.base import WriteBatch

BUCKET, INDEX, TITAN = "vera-ai-dev-s3-vector", "memory-search", "amazon.titan-embed-text-v2:0"
IDS = {"vectorBucketName": BUCKET, "indexName": INDEX}


def client(service: str) -> Any:
    return boto3.client(service, region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")


def titan_request(text: str) -> dict[str, Any]:
    body = json.dumps({"inputText": text, "dimensions": 1024, "normalize": True})
    return {"modelId": TITAN, "body": body, "contentType": "application/json", "accept": "application/json"}


def titan_response(vector: list[float]) -> dict[str, Any]:
    raw = json.dumps({"embedding": vector, "inputTextTokenCount": 5}).encode()
    return {"body": StreamingBody(io.BytesIO(raw), len(raw)), "contentType": "application/json"}


@pytest.fixture
def stubs() -> Iterator[tuple[S3VectorsStore, Stubber, Stubber]]:
    s3v, bedrock = client("s3vectors"), client("bedrock-runtime")
    store = S3VectorsStore(s3v, bedrock, BUCKET, INDEX, dims=1024, model_id=TITAN, validate_index=False)
    with Stubber(s3v) as s3v_stub, Stubber(bedrock) as bedrock_stub:
        yield store, s3v_stub, bedrock_stub
        s3v_stub.assert_no_pending_responses()
        bedrock_stub.assert_no_pending_responses()


def test_a_put_sends_titan_then_put_vectors_in_the_seed_layout(
    stubs: tuple[S3VectorsStore, Stubber, Stubber],
) -> None:
    store, s3v, bedrock = stubs
    key = str(uuid5(NAMESPACE_URL, "maya|semantic::luna"))
    vector = [0.0] * 1024
    vector[3] = 2.0  # Titan's answer is normalised again by the embedder
    s3v.add_response(
        "get_vectors", {"vectors": []}, {**IDS, "keys": [key], "returnData": False, "returnMetadata": True}
    )
    bedrock.add_response("invoke_model", titan_response(vector), titan_request("Luna is a cat"))
    unit = [0.0] * 1024
    unit[3] = 1.0
    metadata = {
        "doc_key": "luna",
        "namespace": ["maya", "semantic"],
        "ns_depth": 2,
        "ns_0": "maya",
        "ns_1": "semantic",
        "created_at": ANY,
        "updated_at": ANY,
        "is_indexed": True,
        "category": "Personal",
        "value_json": json.dumps({"summary": "Luna is a cat", "category": "Personal"}, separators=(",", ":")),
    }
    s3v.add_response(
        "put_vectors", {}, {**IDS, "vectors": [{"key": key, "data": {"float32": unit}, "metadata": metadata}]}
    )
    store.put(("maya", "semantic"), "luna", {"summary": "Luna is a cat", "category": "Personal"})


def test_a_search_sends_one_filtered_query_and_reads_distances(
    stubs: tuple[S3VectorsStore, Stubber, Stubber],
) -> None:
    store, s3v, bedrock = stubs
    query = [0.5] * 4 + [0.0] * 1020
    bedrock.add_response("invoke_model", titan_response(query), titan_request("pets"))
    hits = []
    for n, distance in enumerate((0.1, 0.25, 0.5)):
        value = {"summary": f"memory {n}", "category": "Personal"}
        meta = {
            "doc_key": f"m{n}",
            "namespace": ["maya", "semantic"],
            "ns_depth": 2,
            "ns_0": "maya",
            "ns_1": "semantic",
            "created_at": "2025-07-01T10:00:00+00:00",
            "updated_at": "2025-07-02T10:00:00+00:00",
            "is_indexed": True,
            "category": "Personal",
            "value_json": json.dumps(value),
        }
        hits.append({"key": f"k{n}", "metadata": meta, "distance": distance})
    s3v.add_response(
        "query_vectors",
        {"vectors": hits, "distanceMetric": "cosine"},
        {
            **IDS,
            "topK": 3,
            "queryVector": {"float32": query},
            "returnMetadata": True,
            "returnDistance": True,
            "filter": {"ns_0": "maya", "ns_1": "semantic", "is_indexed": True, "category": "Personal"},
        },
    )
    found = store.search(
        ("maya", "semantic"), query="pets", filter={"category": "Personal"}, limit=2, offset=1
    )
    assert [(i.key, i.score, i.value["summary"]) for i in found] == [
        ("m1", 0.75, "memory 1"),
        ("m2", 0.5, "memory 2"),
    ]
    assert found[0].updated_at.isoformat() == "2025-07-02T10:00:00+00:00" and found[0].namespace == (
        "maya",
        "semantic",
    )


def test_a_get_reads_get_vectors_with_metadata(stubs: tuple[S3VectorsStore, Stubber, Stubber]) -> None:
    store, s3v, _ = stubs
    key = str(uuid5(NAMESPACE_URL, "maya|episodic::e1"))
    meta = {
        "doc_key": "e1",
        "namespace": ["maya", "episodic"],
        "ns_depth": 2,
        "ns_0": "maya",
        "ns_1": "episodic",
        "created_at": "2025-07-01T10:00:00+00:00",
        "updated_at": "2025-07-01T10:00:00+00:00",
        "is_indexed": True,
        "value_json": json.dumps({"summary": "Maya went hiking"}),
    }
    s3v.add_response(
        "get_vectors",
        {"vectors": [{"key": key, "metadata": meta}]},
        {**IDS, "keys": [key], "returnData": False, "returnMetadata": True},
    )
    got = store.get(("maya", "episodic"), "e1")
    assert got is not None and got.value == {"summary": "Maya went hiking"}


def test_the_vector_channel_puts_ids_and_queries_with_the_user_as_a_filter(tmp_path: Any) -> None:
    """``MEMLANE_VECTORS=s3vectors``: a sync puts the memory's id, vector and filterable metadata; a search
    sends one query filtered on the user and the pushed conditions, and reads the distances."""
    from memlane.model.filters import parse_filters
    from memlane.model.record import MemoryRecord
    from memlane.storage.s3vectors.channel import S3VectorsChannel
    from memlane.storage.s3vectors.index import S3VectorsIndex
    from memlane.storage.sqlite.backend import SqliteBackend

    s3v = client("s3vectors")
    inner = SqliteBackend(str(tmp_path / "m.db"))
    inner.bind_embedder("test:unit:4", 4)
    channel = S3VectorsChannel(inner, S3VectorsIndex(s3v, BUCKET, INDEX))
    record = MemoryRecord(id="m1", user_id="maya", summary="User likes tea.", category="Personal")
    channel.upsert(record, [0.0, 2.0, 0.0, 0.0])
    (job,) = channel.jobs.list_jobs(user_id="maya")
    meta = {
        "user_id": "maya",
        "state": "active",
        "type": "semantic",
        "category": "Personal",
        "importance": 3,
        "pinned": False,
        "source": "chat",
    }
    with Stubber(s3v) as stub:
        stub.add_response(
            "put_vectors",
            {},
            {**IDS, "vectors": [{"key": "m1", "data": {"float32": [0.0, 2.0, 0.0, 0.0]}, "metadata": meta}]},
        )
        assert channel.run_job(job) == {"put": 1, "deleted": 0}
        inner.apply(WriteBatch(complete_job=job.id))
        stub.add_response(
            "query_vectors",
            {"vectors": [{"key": "m1", "metadata": meta, "distance": 0.25}], "distanceMetric": "cosine"},
            {
                **IDS,
                "topK": 40,
                "queryVector": {"float32": [0.0, 1.0, 0.0, 0.0]},
                "returnMetadata": True,
                "returnDistance": True,
                "filter": {"user_id": "maya", "state": "active", "category": {"$in": ["Personal"]}},
            },
        )
        conditions = [*parse_filters({"state": "active", "category": ["Personal"], "tags": {"$nin": ["x"]}})]
        (hit,) = channel.memories.vector_search("maya", [0.0, 1.0, 0.0, 0.0], conditions, limit=1)
        stub.assert_no_pending_responses()
    assert hit.record == record and hit.score == 0.75


# --- the factory ------------------------------------------------------------------------------------
@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setenv("MEMLANE_CONFIG", str(tmp_path / "none.toml"))
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_REGION": "us-east-1",
        "S3V_BUCKET": BUCKET,
        "S3V_INDEX_MEMORY": INDEX,
        "S3V_DISTANCE": "cosine",
        "BEDROCK_EMBED_MODEL_ID": TITAN,
        "S3V_TIMEOUT_S": "4",
        "S3V_MAX_ATTEMPTS": "5",
    }.items():
        monkeypatch.setenv(name, value)


def test_the_factory_builds_the_store_and_its_clients_from_the_environment(env: None) -> None:
    from moto import mock_aws

    from memlane.integrations.langgraph.s3v_factory import aws_clients, store_from_settings
    from tests.s3vectors_fake import S3VectorsEmulation

    with mock_aws():
        s3v, bedrock = aws_clients(Settings())
        for made in (s3v, bedrock):
            config = made.meta.config
            assert (config.read_timeout, config.connect_timeout, config.retries) == (
                4,
                4,
                {"mode": "standard", "total_max_attempts": 5},
            )
            assert made.meta.region_name == "us-east-1"
        S3VectorsEmulation(s3v)  # moto drops the index's metadataConfiguration; the emulation keeps it
        store = store_from_settings(create_index=True, s3v_client=s3v, bedrock_client=bedrock)
        assert (store.index.bucket, store.index.index, store.dims, store.distance, store.model_id) == (
            BUCKET,
            INDEX,
            1024,
            "cosine",
            TITAN,
        )
        store.put(("maya", "semantic"), "k", {"summary": "not embedded"}, index=False)
        assert store.get(("maya", "semantic"), "k") is not None
        again = store_from_settings(
            s3v_client=s3v, bedrock_client=bedrock
        )  # exists now: validated, not created
        assert again.get(("maya", "semantic"), "k") is not None


def test_the_factory_needs_a_bucket(env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from memlane.integrations.langgraph.s3v_factory import store_from_settings

    monkeypatch.delenv("S3V_BUCKET")
    with pytest.raises(ConfigError, match="needs S3V_BUCKET"):
        store_from_settings(Settings())
