"""``S3VectorsStore`` (seed 000) on moto's S3 Vectors with the query emulation of ``s3vectors_fake.py``
and a scripted Titan (``bedrock_fake.py``): fakes at the AWS boundary, not integration tests. The
request/response shapes of Titan and QueryVectors are pinned with Stubber in test_s3vectors_shapes.py."""

from __future__ import annotations

import json
import math
from datetime import datetime
from typing import Any
from uuid import NAMESPACE_URL, uuid5

import pytest
from langgraph.store.base import InvalidNamespaceError, PutOp

from memlane.integrations.langgraph.s3v_store import S3VectorsStore
from memlane.model.errors import (
    BackendError,
    FilterError,
    MissingSummaryError,
    ProviderError,
    ValidationError,
)
from memlane.providers.embed.hash import HashEmbedder
from tests.bedrock_fake import FakeTitan
from tests.s3vectors_fake import S3VectorsEmulation

BUCKET, INDEX, DIMS = "memlane-test", "memory-search", 256
MAYA = ("maya", "semantic")


@pytest.fixture
def titan() -> FakeTitan:
    return FakeTitan()


def open_store(s3v: Any, titan: FakeTitan, **options: Any) -> S3VectorsStore:
    store = S3VectorsStore(
        s3v, titan, BUCKET, options.pop("index_name", INDEX), dims=DIMS, validate_index=False, **options
    )
    store.setup()
    return store


@pytest.fixture
def store(s3v: Any, emu: S3VectorsEmulation, titan: FakeTitan) -> S3VectorsStore:
    return open_store(s3v, titan)


def stored(s3v: Any, index: str = INDEX) -> dict[str, dict[str, Any]]:
    """What moto holds, by vector key."""
    listed = s3v.list_vectors(vectorBucketName=BUCKET, indexName=index, returnData=True, returnMetadata=True)
    return {v["key"]: v for v in listed["vectors"]}


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / math.sqrt(
        sum(x * x for x in a) * sum(y * y for y in b)
    )


# --- put / get / delete -------------------------------------------------------------------------------
def test_put_writes_the_seed_layout_under_the_deterministic_key(
    store: S3VectorsStore, s3v: Any, titan: FakeTitan
) -> None:
    value = {
        "summary": "Luna is a three year old cat",
        "category": "Personal",
        "tags": ["pet"],
        "importance": 4,
    }
    store.put(MAYA, "profile:pet:luna", value)
    key = str(uuid5(NAMESPACE_URL, "maya|semantic::profile:pet:luna"))
    vector = stored(s3v)[key]
    meta = vector["metadata"]
    assert json.loads(meta.pop("value_json")) == value
    created = meta.pop("created_at")
    assert meta.pop("updated_at") == created and datetime.fromisoformat(created).tzinfo is not None
    assert meta == {
        "doc_key": "profile:pet:luna",
        "namespace": ["maya", "semantic"],
        "ns_depth": 2,
        "ns_0": "maya",
        "ns_1": "semantic",
        "is_indexed": True,
        "category": "Personal",
    }
    assert titan.texts() == ["Luna is a three year old cat"] and titan.calls[0]["dimensions"] == DIMS
    expected = HashEmbedder(DIMS).embed_one("Luna is a three year old cat")
    assert vector["data"]["float32"] == pytest.approx(expected)
    got = store.get(MAYA, "profile:pet:luna")
    assert (
        got is not None
        and got.value == value
        and got.namespace == MAYA
        and got.created_at.isoformat() == created
    )


def test_a_second_put_keeps_created_at_and_replaces_the_value(store: S3VectorsStore, s3v: Any) -> None:
    store.put(MAYA, "k", {"summary": "Maya lives in Lyon"})
    first = store.get(MAYA, "k")
    store.put(MAYA, "k", {"summary": "Maya moved to Paris", "category": "Personal"})
    second = store.get(MAYA, "k")
    assert first is not None and second is not None
    assert second.created_at == first.created_at and second.updated_at >= first.updated_at
    assert second.value == {"summary": "Maya moved to Paris", "category": "Personal"}
    assert len(stored(s3v)) == 1


def test_index_false_stores_an_unindexed_placeholder_that_search_never_returns(
    store: S3VectorsStore, s3v: Any, titan: FakeTitan
) -> None:
    store.put(MAYA, "sys", {"summary": "Maya likes green tea"}, index=False)
    store.put(MAYA, "tea", {"summary": "Maya drinks green tea daily"})
    assert titan.texts() == ["Maya drinks green tea daily"]
    vector = stored(s3v)[str(uuid5(NAMESPACE_URL, "maya|semantic::sys"))]
    assert vector["metadata"]["is_indexed"] is False
    assert vector["data"]["float32"] == [1.0] + [0.0] * (DIMS - 1)  # cosine refuses a zero vector
    assert store.get(MAYA, "sys") is not None
    assert [i.key for i in store.search(MAYA, query="green tea")] == ["tea"]


def test_under_euclidean_the_placeholder_is_the_seeds_zero_vector(
    s3v: Any, emu: S3VectorsEmulation, titan: FakeTitan
) -> None:
    store = open_store(s3v, titan, distance="EUCLIDEAN", index_name="euclid")
    store.put(MAYA, "sys", {"note": "no summary"}, index=False)
    (vector,) = stored(s3v, "euclid").values()
    assert vector["data"]["float32"] == [0.0] * DIMS and vector["metadata"]["is_indexed"] is False
    assert titan.calls == []


def test_an_indexed_put_without_a_summary_fails_fast_and_stores_nothing(
    store: S3VectorsStore, s3v: Any, titan: FakeTitan
) -> None:
    with pytest.raises(MissingSummaryError, match="add a 'summary' field") as raised:
        store.batch(
            [PutOp(MAYA, "tea", {"summary": "Maya drinks green tea"}), PutOp(MAYA, "sys", {"note": "x"})]
        )
    assert raised.value.field == "summary"
    with pytest.raises(MissingSummaryError, match="add a 'title' field"):
        store.put(MAYA, "sys", {"summary": "Maya drinks green tea"}, index=["title"])
    assert stored(s3v) == {} and titan.calls == []


def test_get_by_query_reads_through_a_filtered_query(
    s3v: Any, emu: S3VectorsEmulation, titan: FakeTitan
) -> None:
    store = open_store(s3v, titan, get_by="query")
    store.put(MAYA, "a", {"summary": "Maya plays the cello"})
    store.put(("maya", "episodic"), "a", {"summary": "Maya went to a concert"})
    before = dict(emu.calls)
    got = store.get(MAYA, "a")
    assert got is not None and got.value == {"summary": "Maya plays the cello"}
    assert store.get(MAYA, "missing") is None
    assert emu.calls["QueryVectors"] - before.get("QueryVectors", 0) == 2
    assert emu.calls["GetVectors"] == 0  # puts look up created_at by query too


def test_delete_removes_the_vector(store: S3VectorsStore, s3v: Any) -> None:
    store.put(MAYA, "a", {"summary": "Maya plays the cello"})
    store.delete(MAYA, "a")
    assert store.get(MAYA, "a") is None and stored(s3v) == {}


def test_a_batch_of_601_puts_is_sent_in_calls_within_the_api_limits(
    store: S3VectorsStore, s3v: Any, emu: S3VectorsEmulation
) -> None:
    store.batch([PutOp(MAYA, f"k{n}", {"summary": f"fact number {n}"}) for n in range(601)])
    assert emu.calls["PutVectors"] == 2 and emu.calls["GetVectors"] == 7  # 500 + 101; 100 keys per get
    assert len(stored(s3v)) == 601
    store.batch([PutOp(MAYA, f"k{n}", None) for n in range(601)] + [PutOp(MAYA, "never-put", None)])
    assert emu.calls["DeleteVectors"] == 2 and stored(s3v) == {}  # a missing key is no error


# --- search -------------------------------------------------------------------------------------------
@pytest.fixture
def filled(store: S3VectorsStore) -> S3VectorsStore:
    store.put(MAYA, "cat", {"summary": "Maya has a cat named Luna", "category": "Personal"})
    store.put(MAYA, "cat2", {"summary": "Maya feeds the cat twice a day", "category": "Personal"})
    store.put(MAYA, "budget", {"summary": "Maya saves for a cat sitter", "category": "Finance"})
    store.put(
        ("maya", "episodic"), "vet", {"summary": "Maya took the cat to the vet", "category": "Personal"}
    )
    store.put(("omar", "semantic"), "cat", {"summary": "Omar has a cat named Luna", "category": "Personal"})
    return store


def test_search_filters_user_type_and_category_in_the_service(filled: S3VectorsStore, s3v: Any) -> None:
    found = filled.search(MAYA, query="cat named Luna", filter={"category": "Personal"}, limit=10)
    assert [i.key for i in found] == ["cat", "cat2"]
    assert all(i.namespace == MAYA for i in found)
    vectors = {
        v["metadata"]["doc_key"] + v["metadata"]["ns_0"]: v["data"]["float32"] for v in stored(s3v).values()
    }
    query = HashEmbedder(DIMS).embed_one("cat named Luna")
    for item in found:  # similarity = 1 - cosine distance
        assert item.score == pytest.approx(cosine(query, vectors[item.key + "maya"]), abs=1e-5)
    assert {i.key for i in filled.search(MAYA, query="cat", limit=10)} == {"cat", "cat2", "budget"}
    assert [i.key for i in filled.search(("omar", "semantic"), query="cat")] == ["cat"]


def test_offset_is_emulated_by_slicing_a_larger_query(filled: S3VectorsStore) -> None:
    full = [i.key for i in filled.search(MAYA, query="cat", limit=3)]
    assert [i.key for i in filled.search(MAYA, query="cat", limit=2, offset=1)] == full[1:]
    assert filled.search(MAYA, query="cat", limit=2, offset=5) == []
    with pytest.raises(ValidationError, match="at most 100 results"):
        filled.search(MAYA, query="cat", limit=90, offset=20)


def test_search_is_semantic_only_and_needs_user_and_type(filled: S3VectorsStore) -> None:
    assert filled.search(MAYA) == [] and filled.search(MAYA, query="") == []
    with pytest.raises(InvalidNamespaceError, match="prefix of 2 label"):
        filled.search(("maya",), query="cat")
    with pytest.raises(BackendError, match="cannot list namespaces"):
        filled.list_namespaces()


def test_filters_on_fields_that_are_not_filterable_are_refused(
    s3v: Any, emu: S3VectorsEmulation, titan: FakeTitan
) -> None:
    store = open_store(s3v, titan, filterable_fields=("category", "importance"))
    store.put(MAYA, "a", {"summary": "Maya runs marathons", "importance": 5, "color": "red"})
    store.put(MAYA, "b", {"summary": "Maya runs on Sundays", "importance": 2})
    before = emu.calls["QueryVectors"]
    with pytest.raises(FilterError, match="cannot filter on 'color'"):
        store.search(MAYA, query="runs", filter={"color": "red"})
    with pytest.raises(FilterError, match="unsupported filter"):
        store.search(MAYA, query="runs", filter={"importance": {"$regex": "5"}})
    assert emu.calls["QueryVectors"] == before
    assert [i.key for i in store.search(MAYA, query="runs", filter={"importance": {"$gte": 3}})] == ["a"]
    assert [i.key for i in store.search(MAYA, query="runs", filter={"importance": {"$ne": 5}})] == ["b"]


def test_a_refused_filter_shape_is_retried_as_and_and_remembered(s3v: Any, titan: FakeTitan) -> None:
    emu = S3VectorsEmulation(s3v, implicit_and=False)
    store = open_store(s3v, titan)
    store.put(MAYA, "a", {"summary": "Maya likes jazz", "category": "Personal"})
    assert [i.key for i in store.search(MAYA, query="jazz")] == ["a"]
    assert emu.calls["QueryVectors"] == 2  # the shorthand refused, then $and
    assert [i.key for i in store.search(MAYA, query="jazz", filter={"category": "Personal"})] == ["a"]
    assert emu.calls["QueryVectors"] == 3


def test_the_filter_is_never_dropped(store: S3VectorsStore, emu: S3VectorsEmulation) -> None:
    store.put(MAYA, "a", {"summary": "Maya likes jazz"})
    sent: list[Any] = []
    store.index.client.meta.events.register(
        "provide-client-params.s3vectors.QueryVectors", lambda params, **_: sent.append(params.get("filter"))
    )
    emu.failures["QueryVectors"] = [("ValidationException", "no")] * 2
    with pytest.raises(ValidationError, match="nothing was written"):
        store.search(MAYA, query="jazz")
    assert len(sent) == 2 and all(f and "maya" in json.dumps(f) for f in sent)


# --- validation, limits, errors, metrics --------------------------------------------------------------
def test_init_validates_dims_distance_and_the_index(
    s3v: Any, emu: S3VectorsEmulation, titan: FakeTitan
) -> None:
    with pytest.raises(ValidationError, match="cosine or euclidean"):
        S3VectorsStore(s3v, titan, BUCKET, INDEX, dims=DIMS, distance="DOT", validate_index=False)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="Titan v2 dims"):
        S3VectorsStore(s3v, titan, BUCKET, INDEX, dims=384, validate_index=False)
    with pytest.raises(ValidationError, match="does not exist; create it .*create-index"):
        S3VectorsStore(s3v, titan, BUCKET, INDEX, dims=DIMS)
    open_store(s3v, titan)
    assert S3VectorsStore(s3v, titan, BUCKET, INDEX, dims=DIMS).dims == DIMS  # exists and matches
    with pytest.raises(ValidationError, match="dimension 256 \\(expected 512\\)"):
        S3VectorsStore(s3v, titan, BUCKET, INDEX, dims=512)
    with pytest.raises(ValidationError, match="distance cosine \\(expected euclidean\\)"):
        S3VectorsStore(s3v, titan, BUCKET, INDEX, dims=DIMS, distance="EUCLIDEAN")
    s3v.create_index(
        vectorBucketName=BUCKET,
        indexName="plain",
        dataType="float32",
        dimension=DIMS,
        distanceMetric="cosine",
    )
    with pytest.raises(
        ValidationError, match="non-filterable metadata keys \\[\\] \\(expected \\['value_json'\\]\\)"
    ):
        S3VectorsStore(s3v, titan, BUCKET, "plain", dims=DIMS)


def test_metadata_over_the_limits_is_refused_before_anything_is_sent(
    store: S3VectorsStore, s3v: Any, emu: S3VectorsEmulation
) -> None:
    with pytest.raises(ValidationError, match="filterable metadata is .* bytes, S3 Vectors allows 2048"):
        store.put(MAYA, "a", {"summary": "x", "category": "C" * 2100})
    with pytest.raises(ValidationError, match="S3 Vectors allows 40960"):
        store.put(MAYA, "b", {"summary": "x", "notes": "n" * 41_000})
    with pytest.raises(ValidationError, match="JSON-serialisable"):
        store.put(MAYA, "c", {"summary": "x", "when": object()})
    assert emu.calls["PutVectors"] == 0 and stored(s3v) == {}


def test_aws_errors_are_wrapped_with_what_to_do(store: S3VectorsStore, emu: S3VectorsEmulation) -> None:
    emu.failures["PutVectors"] = [("AccessDeniedException", "not authorized")]
    with pytest.raises(BackendError, match="grant the caller the IAM action s3vectors:PutVectors"):
        store.put(MAYA, "a", {"summary": "Maya likes jazz"})
    assert store.get(MAYA, "a") is None
    emu.failures["GetVectors"] = [("NotFoundException", "no such index")]
    with pytest.raises(BackendError, match="create the index"):
        store.get(MAYA, "a")
    emu.failures["QueryVectors"] = [("TooManyRequestsException", "slow down")]
    with pytest.raises(BackendError, match="S3V_MAX_ATTEMPTS"):
        store.search(MAYA, query="jazz")
    assert store.metrics.count("s3vectors", "PutVectors", "AccessDeniedException") == 1


def test_a_bedrock_failure_raises_unless_unindexed_storage_is_asked_for(
    s3v: Any, emu: S3VectorsEmulation, titan: FakeTitan
) -> None:
    store = open_store(s3v, titan)
    titan.failures = ["ThrottlingException"]
    with pytest.raises(ProviderError, match="ThrottlingException"):
        store.put(MAYA, "a", {"summary": "Maya likes jazz"})
    assert store.get(MAYA, "a") is None
    lenient = open_store(s3v, titan, on_embed_error="unindexed")
    titan.failures = ["ThrottlingException"]
    lenient.put(MAYA, "a", {"summary": "Maya likes jazz"})
    assert lenient.get(MAYA, "a") is not None and lenient.search(MAYA, query="jazz") == []


def test_latency_of_s3_vectors_and_bedrock_calls_is_recorded(filled: S3VectorsStore) -> None:
    filled.search(MAYA, query="cat")
    m = filled.metrics
    assert m.count("s3vectors", "PutVectors") == 5 and m.count("s3vectors", "QueryVectors") == 1
    assert m.count("bedrock-runtime", "embed") == 6
    assert m.registry.get_sample_value("memlane_s3vectors_query_results_count") == 1


async def test_async_variants_share_the_code_path(store: S3VectorsStore) -> None:
    await store.aput(MAYA, "a", {"summary": "Maya likes jazz", "category": "Personal"})
    got = await store.aget(MAYA, "a")
    assert got is not None and got.value["summary"] == "Maya likes jazz"
    assert [i.key for i in await store.asearch(MAYA, query="jazz", filter={"category": "Personal"})] == ["a"]
    await store.adelete(MAYA, "a")
    assert await store.aget(MAYA, "a") is None
