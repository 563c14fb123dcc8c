"""Any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, Ollama, vLLM, Mistral, ...)."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

from memlane.model.errors import MissingExtraError, ProviderError, ValidationError
from memlane.providers.embed.base import Embedder

try:
    import openai
except ImportError as e:  # pragma: no cover - depends on the environment
    raise MissingExtraError("the openai embedder needs the openai SDK: pip install 'memlane[openai]'") from e

# Native output size of well-known models; anything else needs ``dims``.
KNOWN_DIMS: dict[str, int] = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
    "mistral-embed": 1024,
    "nomic-embed-text": 768,
}


def _known_dims(model: str) -> int | None:
    # "openai/text-embedding-3-small" (routers) and "nomic-embed-text:v1.5" (Ollama tags) count too
    return KNOWN_DIMS.get(model.rsplit("/", 1)[-1].split(":", 1)[0])


def _shortenable(model: str) -> bool:
    """Models that accept the ``dimensions`` parameter."""
    return "text-embedding-3" in model


class OpenAIEmbedder(Embedder):
    name = "openai"

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        base_url: str | None = None,
        api_key: str | None = None,
        dims: int | None = None,
        batch_size: int = 128,
        timeout: float = 30.0,
        max_retries: int = 2,
    ) -> None:
        native = _known_dims(model)
        size = dims if dims is not None else native
        if size is None:
            raise ValidationError(
                f"openai embedder: the output size of model {model!r} is not known; "
                "set dims (MEMLANE_EMBED_DIMS) to the number of dimensions it returns"
            )
        if size < 1 or (native is not None and size > native):
            raise ValidationError(f"openai embedder: dims={size} is out of range for {model!r}")
        if native is not None and size != native and not _shortenable(model):
            raise ValidationError(
                f"openai embedder: {model!r} returns {native} dims and cannot shorten them; "
                f"drop dims or set it to {native}"
            )
        if batch_size < 1:
            raise ValidationError("batch_size must be at least 1")
        self._secret = api_key or os.environ.get("OPENAI_API_KEY") or None
        if self._secret is None and base_url is None:
            raise ValidationError(
                "openai embedder: no API key; set MEMLANE_OPENAI_API_KEY or OPENAI_API_KEY, "
                "or set MEMLANE_OPENAI_BASE_URL for a local server that needs none"
            )
        self.model = model
        self.dims = size
        self._send_dims = dims is not None and _shortenable(model)
        self.batch_size = batch_size
        # local servers (Ollama, vLLM) ignore the key, but the SDK insists on one
        self._client = openai.OpenAI(
            api_key=self._secret or "unused", base_url=base_url, timeout=timeout, max_retries=max_retries
        )
        self.base_url = str(self._client.base_url)

    def _fail(self, what: str) -> ProviderError:
        if self._secret:
            what = what.replace(self._secret, "***")
        return ProviderError(f"openai embedder ({self.base_url}, model {self.model}): {what}")

    def _call(self, batch: list[str]) -> list[list[float]]:
        try:
            if self._send_dims:
                resp = self._client.embeddings.create(
                    model=self.model, input=batch, encoding_format="float", dimensions=self.dims
                )
            else:
                resp = self._client.embeddings.create(model=self.model, input=batch, encoding_format="float")
        except openai.AuthenticationError as e:  # its message may quote part of the key
            raise self._fail(
                f"authentication failed (HTTP {e.status_code}); check MEMLANE_OPENAI_API_KEY / OPENAI_API_KEY"
            ) from None
        except openai.APITimeoutError as e:
            raise self._fail("request timed out; raise the timeout or check the server") from e
        except openai.APIConnectionError as e:
            raise self._fail(f"cannot connect ({e}); check MEMLANE_OPENAI_BASE_URL and that it is up") from e
        except openai.APIStatusError as e:
            raise self._fail(f"HTTP {e.status_code}: {e.message}") from e
        except openai.OpenAIError as e:
            raise self._fail(str(e)) from e
        data = getattr(resp, "data", None)
        n = len(batch)
        indices = {getattr(d, "index", None) for d in data} if isinstance(data, list) else set()
        if not isinstance(data, list) or len(data) != n or indices != set(range(n)):
            raise self._fail(f"malformed response: expected {n} embeddings indexed 0..{n - 1}")
        return [self._unit(d.embedding) for d in sorted(data, key=lambda d: d.index)]

    def _unit(self, vector: object) -> list[float]:
        if not isinstance(vector, list):
            raise self._fail(f"malformed embedding ({type(vector).__name__}); expected a list of floats")
        if len(vector) != self.dims:
            raise self._fail(f"returned {len(vector)} dims, expected {self.dims}; set dims to match")
        norm = math.sqrt(sum(x * x for x in vector))
        if norm == 0:
            raise self._fail("returned a zero vector")
        return [float(x) / norm for x in vector]

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for i in range(0, len(texts), self.batch_size):
            out.extend(self._call(list(texts[i : i + self.batch_size])))
        return out
