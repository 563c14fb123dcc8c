"""Amazon Titan Text Embeddings v2 on Bedrock (``bedrock-runtime`` ``InvokeModel``, one text per call)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from memlane.model.errors import MissingExtraError, ProviderError, ValidationError
from memlane.providers.embed.base import Embedder

try:
    import boto3
    from botocore.config import Config
    from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError
except ImportError as e:  # pragma: no cover - depends on the environment
    raise MissingExtraError("the bedrock embedder needs boto3: pip install 'memlane[aws]'") from e

TITAN_V2_DIMS = (256, 512, 1024)


class BedrockEmbedder(Embedder):
    name = "bedrock"

    def __init__(
        self,
        model: str = "amazon.titan-embed-text-v2:0",
        dims: int = 1024,
        normalize: bool = True,
        region: str = "us-east-1",
        client: Any = None,
        timeout: float = 30.0,
        concurrency: int = 4,
    ) -> None:
        if dims not in TITAN_V2_DIMS:
            raise ValidationError(f"bedrock embedder: Titan v2 dims must be 256, 512 or 1024, not {dims}")
        if concurrency < 1:
            raise ValidationError("concurrency must be at least 1")
        self.model, self.dims, self.normalize, self.region = model, dims, normalize, region
        self.concurrency = concurrency
        self._client = client or boto3.client(
            "bedrock-runtime",
            region_name=region,
            config=Config(connect_timeout=10, read_timeout=timeout, retries={"mode": "standard"}),
        )

    def _fail(self, what: str) -> ProviderError:
        return ProviderError(f"bedrock embedder (model {self.model}, region {self.region}): {what}")

    def _one(self, text: str) -> list[float]:
        body = {"inputText": text, "dimensions": self.dims, "normalize": self.normalize}
        try:
            resp = self._client.invoke_model(
                modelId=self.model,
                body=json.dumps(body),
                contentType="application/json",
                accept="application/json",
            )
            payload = json.loads(resp["body"].read())
        except NoCredentialsError as e:
            raise self._fail("no AWS credentials; configure a profile, role or AWS_* variables") from e
        except ClientError as e:
            err = e.response.get("Error", {})
            raise self._fail(f"{err.get('Code', 'error')}: {err.get('Message', e)}") from e
        except BotoCoreError as e:  # timeouts, connection and endpoint errors
            raise self._fail(str(e)) from e
        except (ValueError, KeyError) as e:
            raise self._fail(f"unreadable response body: {e}") from e
        vector = payload.get("embedding") if isinstance(payload, dict) else None
        if not isinstance(vector, list):
            raise self._fail("response has no 'embedding' list")
        if len(vector) != self.dims:
            raise self._fail(f"returned {len(vector)} dims, expected {self.dims}")
        # Titan normalises when asked; the Embedder contract is unit vectors either way.
        norm = math.sqrt(sum(x * x for x in vector))
        if norm == 0:
            raise self._fail("returned a zero vector")
        return [float(x) / norm for x in vector]

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if self.concurrency == 1 or len(texts) <= 1:
            return [self._one(t) for t in texts]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(texts))) as pool:
            return list(pool.map(self._one, texts))  # keeps order; re-raises the first error
