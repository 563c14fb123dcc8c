"""A scripted Bedrock runtime for tests: ``invoke_model`` answers Titan Text Embeddings v2 requests with
memlane's deterministic hash embedding of ``inputText`` (so texts sharing words are close), checks the
request is the shape Titan takes, and records every call. Scripted errors are botocore ClientErrors.
The real request/response shape is pinned separately with botocore's Stubber."""

from __future__ import annotations

import io
import json
import math
from typing import Any

from botocore.exceptions import ClientError

from memlane.providers.embed.hash import HashEmbedder


class FakeTitan:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self.failures: list[str] = []  # error codes to raise, in order

    def invoke_model(self, *, modelId: str, body: str, contentType: str, accept: str) -> dict[str, Any]:  # noqa: N803
        request = json.loads(body)
        self.calls.append({"modelId": modelId, **request})
        if self.failures:
            code = self.failures.pop(0)
            raise ClientError({"Error": {"Code": code, "Message": "scripted"}}, "InvokeModel")
        assert (contentType, accept) == ("application/json", "application/json")
        assert set(request) == {"inputText", "dimensions", "normalize"}, request
        vector = HashEmbedder(request["dimensions"]).embed_one(request["inputText"])
        if not request["normalize"]:
            vector = [x * 3.0 for x in vector]
        assert math.isclose(sum(x * x for x in vector), 1.0 if request["normalize"] else 9.0, rel_tol=1e-6)
        payload = {"embedding": vector, "inputTextTokenCount": len(request["inputText"].split())}
        return {"body": io.BytesIO(json.dumps(payload).encode()), "contentType": "application/json"}

    def texts(self) -> list[str]:
        return [c["inputText"] for c in self.calls]
