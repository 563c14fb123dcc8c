"""Cosine similarity of a query to stored vectors (retrieval's scoring, and the exact ranking the S3
Vectors channel does of the memories the index does not hold yet)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def cosines(query: Sequence[float], vectors: dict[str, list[float]]) -> dict[str, float]:
    """Cosine of ``query`` to each stored vector."""
    if not vectors:
        return {}
    ids = list(vectors)
    mat = np.asarray([vectors[i] for i in ids], dtype=np.float32)
    q = np.asarray(query, dtype=np.float32)
    norms = np.linalg.norm(mat, axis=1) * (float(np.linalg.norm(q)) or 1.0)
    sims = mat @ q / np.where(norms > 0, norms, 1.0)
    return {i: float(s) for i, s in zip(ids, sims, strict=True)}
