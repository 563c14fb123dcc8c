"""Embeddings for the LangGraph store: a memlane embedder over LangChain ``Embeddings``, the texts an
item's ``index`` fields select, compact vector encoding for records' metadata, and scoring."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings
from langgraph.store.base import ensure_embeddings, get_text_at_path, tokenize_path

from memlane.model.errors import DimensionMismatchError, MissingSummaryError
from memlane.providers.embed.base import Embedder

DISTANCES = ("cosine", "inner_product", "l2")


class LangChainEmbedder(Embedder):
    """A memlane :class:`Embedder` over a LangGraph ``IndexConfig["embed"]`` (an ``Embeddings``, a
    function, or a ``"provider:model"`` string), so the store's vectors and memlane's are one space."""

    name = "langchain"

    def __init__(self, embed: Embeddings | Any, dims: int) -> None:
        self.source = embed
        self.embeddings = ensure_embeddings(embed)
        self.dims = int(dims)
        self.model = embed if isinstance(embed, str) else type(self.embeddings).__name__

    def _check(self, vectors: Sequence[Sequence[float]]) -> list[list[float]]:
        out = [[float(x) for x in v] for v in vectors]
        for v in out:
            if len(v) != self.dims:
                raise DimensionMismatchError(
                    f"the index embedder returned {len(v)}-dim vectors but the index config says dims={self.dims}"
                )
        return out

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return self._check(self.embeddings.embed_documents(list(texts))) if texts else []

    def embed_query(self, text: str) -> list[float]:
        return self._check([self.embeddings.embed_query(text)])[0]


def embed_query(embedder: Embedder, text: str) -> list[float]:
    """Queries go through ``embed_query`` where the model distinguishes them from documents."""
    if isinstance(embedder, LangChainEmbedder):
        return embedder.embed_query(text)
    return embedder.embed_one(text)


def index_texts(value: dict[str, Any], fields: Sequence[str]) -> list[str]:
    """The texts LangGraph embeds for ``value`` under ``fields`` (``"$"`` is the whole value as JSON;
    a path matching several values, such as ``"items[*].text"``, yields one text each)."""
    texts: list[str] = []
    for path in fields:
        found = get_text_at_path(value, path if path == "$" else tokenize_path(path))
        texts.extend(t for t in found if t.strip())
    return texts


def require_text(key: str, value: dict[str, Any], fields: Sequence[str], has_summary: bool = False) -> None:
    """An indexed put must have text to embed: at one of its index ``fields``, or (``has_summary``) a
    summary the store embeds. Else a :class:`MissingSummaryError` naming the field to add."""
    if has_summary or index_texts(value, fields):
        return
    field = next((f for f in fields if f != "$"), "summary")
    raise MissingSummaryError(
        f"item {key!r} is indexed on {list(fields)} but its value has no text there to embed: add a "
        f"{field!r} field (a 1-2 sentence summary), or put it with index=False; nothing was stored",
        field,
    )


def encode(vector: Sequence[float]) -> str:
    """A vector as base64 little-endian float32 (a quarter of its JSON size)."""
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def decode(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<f4").astype(np.float64)


def as_array(vector: Sequence[float]) -> np.ndarray:
    return np.asarray(vector, dtype=np.float64)


def best_scores(
    query: Sequence[float], vectors: Sequence[Sequence[np.ndarray]], distance: str
) -> list[float | None]:
    """Per item, the best score of its vectors (max pooling), or None for an item with none.
    Scores as LangGraph reports them: cosine similarity, inner product, or negative L2 distance."""
    q = np.asarray(query, dtype=np.float64)
    qn = float(np.linalg.norm(q))
    out: list[float | None] = []
    for item in vectors:
        if not len(item):
            out.append(None)
            continue
        m = np.vstack(item)
        if distance == "inner_product":
            scores = m @ q
        elif distance == "l2":
            scores = -np.linalg.norm(m - q, axis=1)
        else:
            norms = np.linalg.norm(m, axis=1) * qn
            scores = np.divide(m @ q, norms, out=np.zeros(len(m)), where=norms > 0)
        out.append(float(scores.max()))
    return out
