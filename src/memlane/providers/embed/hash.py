"""Deterministic, dependency-free embedder (a fallback without model files; fast tests).

Feature hashing of lower-cased word unigrams and character trigrams into ``dims`` buckets with a
signed hash, then L2 normalisation. Texts sharing words land close; it knows no synonyms.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence

from memlane.providers.embed.base import Embedder

_WORD = re.compile(r"[a-z0-9]+")


class HashEmbedder(Embedder):
    name = "hash"

    def __init__(self, dims: int = 256) -> None:
        if dims < 8:
            raise ValueError("hash embedder needs at least 8 dims")
        self.dims = dims
        self.model = f"hash-v1-{dims}"

    def _features(self, text: str) -> list[str]:
        words = _WORD.findall(text.lower())
        feats = [f"w:{w}" for w in words]
        for w in words:
            padded = f"#{w}#"
            feats.extend(f"c:{padded[i : i + 3]}" for i in range(len(padded) - 2))
        return feats

    def _vector(self, text: str) -> list[float]:
        vec = [0.0] * self.dims
        for feat in self._features(text):
            digest = hashlib.blake2b(feat.encode(), digest_size=8).digest()
            idx = int.from_bytes(digest[:4], "little") % self.dims
            sign = 1.0 if digest[4] & 1 else -1.0
            vec[idx] += sign * (2.0 if feat.startswith("w:") else 0.5)
        norm = math.sqrt(sum(v * v for v in vec))
        if norm == 0:
            vec[0] = 1.0
            return vec
        return [v / norm for v in vec]

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]
