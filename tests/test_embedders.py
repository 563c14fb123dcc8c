"""Embedders. ``local`` runs the real bundled all-MiniLM-L6-v2. ``openai`` and ``bedrock`` are tested at
the provider boundary only: a scripted OpenAI-compatible HTTP server on 127.0.0.1 and botocore's Stubber
on a real boto3 client. Neither talks to the hosted service."""

from __future__ import annotations

import io
import json
import math
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pydantic
import pytest

from memlane.model.config import Settings
from memlane.model.errors import ProviderError, ValidationError
from memlane.providers.embed import get_embedder
from memlane.providers.embed.base import CachedEmbedder, Embedder
from memlane.providers.embed.hash import HashEmbedder
from memlane.providers.embed.settings import embedder_from_settings


def cos(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def norm(v: Sequence[float]) -> float:
    return math.sqrt(sum(x * x for x in v))


class Counting(Embedder):
    """Passes through to ``inner`` and records every batch it is asked for."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.name, self.model, self.dims = inner, inner.name, inner.model, inner.dims
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return self.inner.embed(texts)


# --- local: the real bundled model -----------------------------------------------------------------


@pytest.fixture(scope="module")
def local() -> Embedder:
    from memlane.providers.embed.local import LocalEmbedder

    return LocalEmbedder()


def test_local_dims_known_without_loading() -> None:
    from memlane.providers.embed.local import LocalEmbedder

    e = LocalEmbedder()
    assert e.dims == 384 and e._st is None
    assert e.identity == "local:all-MiniLM-L6-v2:384"


def test_local_vectors_are_unit_384(local: Embedder) -> None:
    vectors = local.embed(["Luna is the user's cat.", "", "Ünïcødé and emoji 🐈 work too."])
    assert [len(v) for v in vectors] == [384, 384, 384]
    assert all(abs(norm(v) - 1) < 1e-5 for v in vectors)
    assert all(isinstance(x, float) for x in vectors[0])
    assert local.embed([]) == []


def test_local_paraphrases_closer_than_unrelated(local: Embedder) -> None:
    cases = [
        ("The user has a cat named Luna.", "Luna is the user's pet cat.", "The tax return is due in April."),
        ("She moved to Lisbon last year.", "Last year she relocated to Lisbon.", "He prefers green tea."),
        ("The user is allergic to peanuts.", "Peanuts make the user ill.", "The flight left late."),
    ]
    for anchor, para, other in cases:
        a, p, o = local.embed([anchor, para, other])
        assert cos(a, p) > cos(a, o) + 0.3, (anchor, cos(a, p), cos(a, o))


def test_local_batch_equals_single(local: Embedder) -> None:
    texts = ["short", "a much longer sentence that pads the batch with many more tokens than others", "mid"]
    batched = local.embed(texts)
    for text, vector in zip(texts, batched, strict=True):
        single = local.embed_one(text)
        assert max(abs(x - y) for x, y in zip(vector, single, strict=True)) < 1e-5


def test_cache_embeds_identical_texts_once(local: Embedder) -> None:
    counting = Counting(local)
    cached = CachedEmbedder(counting, max_items=100)
    first = cached.embed(["Luna is 3.", "Luna turned 4.", "Luna is 3."])
    second = cached.embed(["Luna turned 4.", "Luna is 3."])
    assert counting.calls == [["Luna is 3.", "Luna turned 4."]]
    assert first[0] == first[2] == second[1] and first[1] == second[0]
    assert (cached.hits, cached.misses) == (3, 2)


def test_local_other_model_directory_and_bad_path(tmp_path: os.PathLike[str]) -> None:
    from memlane.providers.embed.local import LocalEmbedder, bundled_model_dir

    e = LocalEmbedder(model=str(bundled_model_dir()), batch_size=8)
    assert e.dims == 384 and e.model == str(bundled_model_dir())  # a path is its own identity
    with pytest.raises(ValidationError, match="not a sentence-transformers model directory"):
        LocalEmbedder(model=str(tmp_path))
    with pytest.raises(ValidationError, match="local models only"):
        LocalEmbedder(model="BAAI/bge-small-en-v1.5")


def test_local_limits_threads_on_either_runtime(local: Embedder) -> None:
    import torch

    from memlane.providers.embed.local import LocalEmbedder, default_threads

    local.embed_one("load")  # MEMLANE_TORCH_THREADS unset: OMP_NUM_THREADS, else half the cores
    session = local._load().session._session  # type: ignore[attr-defined]
    assert session.get_session_options().intra_op_num_threads == default_threads()
    LocalEmbedder(runtime="torch").embed_one("load")
    assert torch.get_num_threads() == default_threads()


# --- hash ------------------------------------------------------------------------------------------


def test_hash_is_deterministic_and_unit() -> None:
    a, b = HashEmbedder(dims=64), HashEmbedder(dims=64)
    text = "Luna the cat turned four in May"
    assert a.embed_one(text) == b.embed_one(text)
    assert abs(norm(a.embed_one(text)) - 1) < 1e-9
    assert a.embed_one("") == [1.0] + [0.0] * 63
    with pytest.raises(ValueError):
        HashEmbedder(dims=4)


def test_hash_shared_words_are_closer() -> None:
    e = HashEmbedder(dims=256)
    a, same, other = e.embed(["the user owns a cat named Luna", "Luna is the cat the user owns", "tax due"])
    assert cos(a, same) > 0.5 > cos(a, other)


# --- openai: a scripted OpenAI-compatible server -------------------------------------------------

Reply = Callable[[dict[str, Any]], tuple[int, dict[str, Any]]]


class ScriptedServer:
    """Answers ``POST /v1/embeddings`` with ``reply(body)`` and records each request (path, headers, body)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.reply: Reply = self.vectors(4)
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                headers = {k.lower(): v for k, v in self.headers.items()}
                server.requests.append({"path": self.path, "headers": headers, "body": body})
                status, payload = server.reply(body)
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    @staticmethod
    def vectors(dims: int) -> Reply:
        """Input i gets a vector whose first two components are (i + 1, 1), listed in reverse index order."""

        def reply(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
            items = [
                {"object": "embedding", "index": i, "embedding": [float(i + 1), 1.0] + [0.0] * (dims - 2)}
                for i in range(len(body["input"]))
            ]
            usage = {"prompt_tokens": 1, "total_tokens": 1}
            return 200, {"object": "list", "data": items[::-1], "model": body["model"], "usage": usage}

        return reply


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    s = ScriptedServer()
    yield s
    s.httpd.shutdown()
    s.httpd.server_close()


def openai_embedder(server: ScriptedServer, **options: Any) -> Embedder:
    from memlane.providers.embed.openai import OpenAIEmbedder

    options = {"api_key": "sk-test-SECRET-123", "max_retries": 0, "timeout": 5.0, **options}
    return OpenAIEmbedder(base_url=server.url, **options)


def test_openai_boundary_request_shape_order_and_norm(server: ScriptedServer) -> None:
    e = openai_embedder(server, model="text-embedding-3-small", dims=4, batch_size=2)
    vectors = e.embed([f"text {k}" for k in range(5)])
    batches = [r["body"]["input"] for r in server.requests]
    assert batches == [["text 0", "text 1"], ["text 2", "text 3"], ["text 4"]]
    first = server.requests[0]
    assert first["path"] == "/v1/embeddings"
    assert first["headers"]["authorization"] == "Bearer sk-test-SECRET-123"
    expected = {"model": "text-embedding-3-small", "input": ["text 0", "text 1"]}
    assert first["body"] == {**expected, "encoding_format": "float", "dimensions": 4}
    # each batch came back in reverse index order; vector k of a batch has components (k + 1, 1)
    ratios = [round(v[0] / v[1]) for v in vectors]
    assert ratios == [1, 2, 1, 2, 1]
    assert all(abs(norm(v) - 1) < 1e-9 for v in vectors)


def test_openai_boundary_dimensions_only_for_text_embedding_3(server: ScriptedServer) -> None:
    e = openai_embedder(server, model="my-local-model", dims=4)
    e.embed(["a"])
    assert "dimensions" not in server.requests[0]["body"]
    server.reply = ScriptedServer.vectors(768)
    assert openai_embedder(server, model="nomic-embed-text:latest").dims == 768
    openai_embedder(server, model="nomic-embed-text:latest").embed(["b"])
    assert "dimensions" not in server.requests[1]["body"]


def test_openai_dims_validation() -> None:
    from memlane.providers.embed.openai import OpenAIEmbedder

    with pytest.raises(ValidationError, match="set dims"):
        OpenAIEmbedder(model="some-unknown-model", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ValidationError, match="cannot shorten"):
        OpenAIEmbedder(model="text-embedding-ada-002", dims=512, api_key="k")
    with pytest.raises(ValidationError, match="out of range"):
        OpenAIEmbedder(model="text-embedding-3-small", dims=4096, api_key="k")
    assert OpenAIEmbedder(model="text-embedding-3-large", api_key="k").dims == 3072


def test_openai_boundary_wrong_dims_is_provider_error(server: ScriptedServer) -> None:
    server.reply = ScriptedServer.vectors(3)
    e = openai_embedder(server, model="text-embedding-3-small", dims=4)
    with pytest.raises(ProviderError, match="returned 3 dims, expected 4"):
        e.embed(["a"])


def test_openai_boundary_http_errors_name_url_and_model_not_key(server: ScriptedServer) -> None:
    def fail(status: int) -> Reply:
        message = {"error": {"message": "boom for key sk-test-SECRET-123", "type": "server_error"}}
        return lambda body: (status, message)

    e = openai_embedder(server, model="text-embedding-3-small", dims=4)
    for status in (500, 401, 400):
        server.reply = fail(status)
        with pytest.raises(ProviderError) as info:
            e.embed(["a"])
        text = str(info.value)
        assert f"HTTP {status}" in text and server.url in text and "text-embedding-3-small" in text
        assert "SECRET" not in text


def test_openai_boundary_timeout_and_refused(server: ScriptedServer) -> None:
    def slow(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        time.sleep(1.0)
        return ScriptedServer.vectors(4)(body)

    server.reply = slow
    e = openai_embedder(server, model="text-embedding-3-small", dims=4, timeout=0.2)
    with pytest.raises(ProviderError, match="timed out"):
        e.embed(["a"])
    server.httpd.shutdown()
    server.httpd.server_close()
    with pytest.raises(ProviderError, match="cannot connect"):
        openai_embedder(server, model="text-embedding-3-small", dims=4).embed(["a"])


def test_openai_boundary_malformed_response(server: ScriptedServer) -> None:
    server.reply = lambda body: (200, {"object": "list", "data": [], "model": "m"})
    with pytest.raises(ProviderError, match="malformed response"):
        openai_embedder(server, model="m", dims=4).embed(["a"])


# --- bedrock: botocore Stubber on a real boto3 client --------------------------------------------


@pytest.fixture
def bedrock_client() -> Any:
    import boto3

    return boto3.client(
        "bedrock-runtime", region_name="eu-west-1", aws_access_key_id="test", aws_secret_access_key="test"
    )


def titan_response(vector: list[float]) -> dict[str, Any]:
    from botocore.response import StreamingBody

    raw = json.dumps({"embedding": vector, "inputTextTokenCount": 3}).encode()
    return {"body": StreamingBody(io.BytesIO(raw), len(raw)), "contentType": "application/json"}


def test_bedrock_boundary_request_body_and_order(bedrock_client: Any) -> None:
    from botocore.stub import ANY, Stubber

    from memlane.providers.embed.bedrock import BedrockEmbedder

    sent: list[dict[str, Any]] = []
    bedrock_client.meta.events.register(
        "provide-client-params.bedrock-runtime.InvokeModel", lambda params, **_: sent.append(dict(params))
    )
    e = BedrockEmbedder(dims=256, region="eu-west-1", client=bedrock_client, concurrency=1)
    expected = {
        "modelId": "amazon.titan-embed-text-v2:0",
        "body": ANY,
        "contentType": "application/json",
        "accept": "application/json",
    }
    with Stubber(bedrock_client) as stub:
        stub.add_response("invoke_model", titan_response([3.0, 4.0] + [0.0] * 254), expected)
        stub.add_response("invoke_model", titan_response([0.0, 1.0] + [0.0] * 254), expected)
        first, second = e.embed(["Luna is 3.", "Luna turned 4."])
        stub.assert_no_pending_responses()
    assert [json.loads(p["body"]) for p in sent] == [
        {"inputText": "Luna is 3.", "dimensions": 256, "normalize": True},
        {"inputText": "Luna turned 4.", "dimensions": 256, "normalize": True},
    ]
    assert first[:2] == [0.6, 0.8] and second[:2] == [0.0, 1.0]
    assert e.identity == "bedrock:amazon.titan-embed-text-v2:0:256"


def test_bedrock_dims_validation(bedrock_client: Any) -> None:
    from memlane.providers.embed.bedrock import BedrockEmbedder

    with pytest.raises(ValidationError, match="256, 512 or 1024"):
        BedrockEmbedder(dims=384, client=bedrock_client)


def test_bedrock_boundary_errors_name_model_and_region(bedrock_client: Any) -> None:
    from botocore.stub import Stubber

    from memlane.providers.embed.bedrock import BedrockEmbedder

    e = BedrockEmbedder(dims=512, region="eu-west-1", client=bedrock_client, concurrency=1)
    with Stubber(bedrock_client) as stub:
        stub.add_client_error("invoke_model", "ThrottlingException", "Slow down", http_status_code=429)
        with pytest.raises(ProviderError) as info:
            e.embed(["a"])
        stub.add_response("invoke_model", titan_response([1.0] * 256))
        with pytest.raises(ProviderError, match="returned 256 dims, expected 512"):
            e.embed(["b"])
    text = str(info.value)
    assert "ThrottlingException" in text and "amazon.titan-embed-text-v2:0" in text and "eu-west-1" in text


# --- settings -> embedder --------------------------------------------------------------------------


def test_embedder_from_settings(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    e = embedder_from_settings(Settings(embedder="deterministic", embed_dims=64, embed_cache_size=0))
    assert isinstance(e, HashEmbedder) and e.identity == "hash:hash-v1-64:64"

    e = embedder_from_settings(Settings(embedder="openai", openai_base_url=server.url, openai_api_key="k"))
    assert isinstance(e, CachedEmbedder) and e.identity == "openai:text-embedding-3-small:1536"

    e = embedder_from_settings(Settings(embedder="bedrock", aws_region="eu-central-1", embed_dims=512))
    assert isinstance(e, CachedEmbedder) and getattr(e.inner, "region", None) == "eu-central-1"
    assert e.identity == "bedrock:amazon.titan-embed-text-v2:0:512"

    monkeypatch.setenv("MISTRAL_API_KEY", "m")
    e = embedder_from_settings(Settings(embedder="mistral"))
    assert e.identity == "openai:mistral-embed:1024"
    assert isinstance(e, CachedEmbedder)
    assert getattr(e.inner, "base_url", "").startswith("https://api.mistral.ai/v1")

    assert embedder_from_settings(Settings(embedder="local")).identity == "local:all-MiniLM-L6-v2:384"
    with pytest.raises(ValidationError, match="unknown embedder"):
        embedder_from_settings(Settings(embedder="nope"))
    assert get_embedder("hash", cache_size=0, dims=None).dims == 256  # None options fall back to defaults


def test_local_model_is_loaded_once_per_process_and_encodes_safely_from_threads(local: Embedder) -> None:
    """The embedder, the rules judge's word kinds and its slot check share one loaded model (and its lock:
    tokenizers are not thread-safe); vectors from several threads equal the ones embedded alone."""
    from concurrent.futures import ThreadPoolExecutor

    from memlane.providers.embed.local import LocalEmbedder
    from memlane.providers.llm.rules import kind_of, slot_sense

    other = LocalEmbedder()
    assert other._st is None  # nothing loaded by building it
    texts = [f"User {verb} {n} kilometres on Sundays." for n in range(12) for verb in ("runs", "cycles")]
    alone = [local.embed_one(t) for t in texts]
    with ThreadPoolExecutor(max_workers=4) as pool:
        mixed = list(pool.map(lambda i: (other if i % 2 else local).embed_one(texts[i]), range(len(texts))))
    for a, b in zip(alone, mixed, strict=True):
        assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-5
    assert other._st is local._st is not None  # type: ignore[attr-defined]
    kind_of.kind_of("axolotl")  # an unlisted word: the judge asks the model
    slot_sense.masked_cosine("User's bedtime is 11 pm.", "User now goes to bed at 10 pm.")
    assert kind_of._model()._st is local._st is slot_sense._model()._st
    assert other._lock is local._lock


def test_the_embedding_timeout_and_input_limit_are_settings(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seed 004's knobs: a remote embedder gives up after MEMLANE_EMBED_TIMEOUT_S (a clear error), and texts
    are cut to MEMLANE_EMBED_MAX_INPUT_CHARS before any embedder sees them (the seed's names work too)."""
    from memlane.providers.embed.base import ClippedEmbedder
    from memlane.providers.embed.local import LocalEmbedder

    monkeypatch.setenv("VECTOR_EMBEDDING_TIMEOUT_S", "0.3")
    monkeypatch.setenv("VECTOR_EMBEDDING_MAX_INPUT_CHARS", "40")
    settings = Settings(
        embedder="openai",
        openai_base_url=server.url,
        openai_api_key="k",
        embed_cache_size=0,
        embed_model="my-local-embedder",
        embed_dims=4,
    )
    assert (settings.embed_timeout_s, settings.embed_max_input_chars) == (0.3, 40)
    remote = embedder_from_settings(settings)
    long = "User lives in Lisbon and works as a nurse at the Santa Maria hospital on night shifts."
    remote.embed([long, "short"])
    assert server.requests[-1]["body"]["input"] == ["User lives in Lisbon and works as a", "short"]

    def slow(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        time.sleep(1.0)
        return ScriptedServer.vectors(4)(body)

    server.reply = slow
    slow_client = embedder_from_settings(settings.model_copy(update={"embed_max_input_chars": None}))
    started = time.monotonic()
    with pytest.raises(ProviderError, match="timed out"):
        slow_client.embed(["User has a cat."])
    assert time.monotonic() - started < 3.0  # 0.3 s, three tries (max_retries=2), not the default 30 s

    clipped = ClippedEmbedder(LocalEmbedder(), 40)  # the real model: the vector of the cut text
    assert clipped.embed([long]) == LocalEmbedder().embed(["User lives in Lisbon and works as a"])
    assert clipped.clip("x" * 100) == "x" * 40  # no space near the cut: cut at the limit
    with pytest.raises(pydantic.ValidationError):
        Settings(embed_max_input_chars=3)
    with pytest.raises(pydantic.ValidationError):
        Settings(embed_timeout_s=0)
