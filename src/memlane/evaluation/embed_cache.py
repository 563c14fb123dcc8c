"""An on-disk embedding cache for benchmark runs (the same turns embedded once across runs)."""

from __future__ import annotations

import hashlib
import sqlite3
import struct
from collections.abc import Sequence
from pathlib import Path

from memlane.providers.embed.base import Embedder


class DiskCachedEmbedder(Embedder):
    """Wraps ``inner``; vectors are kept in a SQLite file keyed by the embedder's identity and text."""

    def __init__(self, inner: Embedder, path: str | Path) -> None:
        self.inner = inner
        self.name, self.model, self.dims = inner.name, inner.model, inner.dims
        Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(Path(path).expanduser()), check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vec BLOB NOT NULL)")

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.inner.identity}\n{text}".encode()).hexdigest()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        keys = [self._key(t) for t in texts]
        found: dict[str, list[float]] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" for _ in chunk)
            for key, blob in self._db.execute(f"SELECT key, vec FROM vectors WHERE key IN ({marks})", chunk):
                found[key] = list(struct.unpack(f"{len(blob) // 4}f", blob))
        todo = {k: t for k, t in zip(keys, texts, strict=True) if k not in found}
        if todo:
            vectors = self.inner.embed(list(todo.values()))
            rows = []
            for key, vec in zip(todo, vectors, strict=True):
                found[key] = vec
                rows.append((key, struct.pack(f"{len(vec)}f", *vec)))
            with self._db:
                self._db.executemany("INSERT OR REPLACE INTO vectors (key, vec) VALUES (?, ?)", rows)
        return [found[k] for k in keys]

    def close(self) -> None:
        self._db.close()
