"""The embedder contract and the cache every embedder is wrapped in."""

from __future__ import annotations

import hashlib
import threading
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Sequence

from memlane.model.errors import ValidationError


class Embedder(ABC):
    """Turns texts into unit-length vectors of ``dims`` floats."""

    name: str  # registry name: "local", "hash", "openai", "bedrock"
    model: str  # model identifier, part of the cache key and recorded in the store
    dims: int

    @abstractmethod
    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order. Implementations batch internally."""

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]

    @property
    def identity(self) -> str:
        """What the store records to notice a change of embedder: ``name:model:dims``."""
        return f"{self.name}:{self.model}:{self.dims}"


class ClippedEmbedder(Embedder):
    """Cuts each text to ``max_chars`` characters before ``inner`` sees it (at the last space of the last
    quarter, when there is one), so a long memory or message never meets a provider's input limit."""

    def __init__(self, inner: Embedder, max_chars: int) -> None:
        if max_chars < 1:
            raise ValidationError("max_chars must be at least 1")
        self.inner, self.max_chars = inner, max_chars
        self.name, self.model, self.dims = inner.name, inner.model, inner.dims

    def clip(self, text: str) -> str:
        if len(text) <= self.max_chars:
            return text
        cut = text[: self.max_chars]
        space = cut.rfind(" ", self.max_chars - self.max_chars // 4)
        return cut[:space] if space > 0 else cut

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return self.inner.embed([self.clip(t) for t in texts])


class CachedEmbedder(Embedder):
    """Computes the embedding of an identical text once: an LRU keyed by model and text hash."""

    def __init__(self, inner: Embedder, max_items: int = 10_000) -> None:
        self.inner = inner
        self.name, self.model, self.dims = inner.name, inner.model, inner.dims
        self._max = max_items
        self._cache: OrderedDict[str, list[float]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def _key(self, text: str) -> str:
        return self.model + ":" + hashlib.sha256(text.encode("utf-8")).hexdigest()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        keys = [self._key(t) for t in texts]
        found: dict[str, list[float]] = {}
        with self._lock:
            for k in keys:
                if k in self._cache:
                    self._cache.move_to_end(k)
                    found[k] = self._cache[k]
        todo: dict[str, str] = {}
        for k, t in zip(keys, texts, strict=True):
            if k not in found and k not in todo:
                todo[k] = t
        self.hits += len(keys) - len(todo)
        self.misses += len(todo)
        if todo:
            vectors = self.inner.embed(list(todo.values()))
            with self._lock:
                for k, v in zip(todo, vectors, strict=True):
                    found[k] = v
                    self._cache[k] = v
                    self._cache.move_to_end(k)
                while len(self._cache) > self._max:
                    self._cache.popitem(last=False)
        return [found[k] for k in keys]
