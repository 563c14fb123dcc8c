"""The query's embedding, computed in a worker thread while the caller does the work that needs no
vector (the keyword channel, the context block's delta and listings). The embedder releases the GIL
while it computes (torch, or waiting on an HTTP provider), and so does SQLite while it queries, so
the two overlap and a search costs about max(embedding, keyword work) + the vector work."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

from memlane.providers.embed import Embedder

_WORKERS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="memlane-query-embedding")


def embed_in_background(embedder: Embedder, text: str) -> Future[list[float]]:
    """A future of ``embedder.embed_one(text)``; its ``result()`` re-raises the embedder's error."""
    return _WORKERS.submit(embedder.embed_one, text)
