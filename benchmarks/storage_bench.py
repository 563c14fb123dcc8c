"""Issue 2 benchmark: batched ingest vs raw embedder throughput, and per-user search latency.

    python benchmarks/storage_bench.py --sizes 10000,100000 --users 1000 --backends sqlite,postgres

Prints, per backend and size: ingest memories/s, raw embedder sentences/s (same run, same texts:
every fourth batch is embedded by a second copy of the model just before it is ingested) and their
ratio; search latency p50/p95 with the query embedding (local model) and without it.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from benchmarks.common import QUERIES, percentile, postgres_url, sentences, sqlite_path, summary_ms, timed  # noqa: E402
from memlane import Memory  # noqa: E402
from memlane.model.filters import Condition  # noqa: E402
from memlane.model.record import utcnow  # noqa: E402
from memlane.providers.embed import (
    CachedEmbedder,  # noqa: E402
    get_embedder,  # noqa: E402
)
from memlane.retrieval.search import SearchRequest, search  # noqa: E402

RAW_EVERY = 4


def run(backend: str, size: int, users: int, batch: int) -> None:
    texts = sentences(size, seed=size)
    ctx = sqlite_path() if backend == "sqlite" else postgres_url()
    with ctx as location:
        # The raw embedder is timed on every RAW_EVERY-th batch, right before that batch is ingested,
        # so both figures see the same machine load (a shared box's load drifts over a long run).
        raw = get_embedder("local", cache_size=0)
        raw.embed(texts[:batch])  # load the model before timing
        mem = Memory(location, embedder=get_embedder("local", cache_size=0))
        mem.embedder.embed(texts[:batch])
        items = [{"summary": s, "user_id": f"user{i % users}"} for i, s in enumerate(texts)]
        raw_s = ingest_s = 0.0
        raw_n = 0
        for n, i in enumerate(range(0, len(items), batch)):
            chunk = items[i : i + batch]
            if n % RAW_EVERY == 0:
                t0 = time.perf_counter()
                raw.embed([it["summary"] for it in chunk])
                raw_s += time.perf_counter() - t0
                raw_n += len(chunk)
            t0 = time.perf_counter()
            mem.put_many(chunk)
            ingest_s += time.perf_counter() - t0
        raw_rate, ingest_rate = raw_n / raw_s, size / ingest_s

        rng = random.Random(1)
        picks = [(f"user{rng.randrange(users)}", rng.choice(QUERIES)) for _ in range(200)]
        warm = CachedEmbedder(mem.embedder)  # the same model with the question vectors already computed
        warm.embed(QUERIES)
        active = [Condition("state", "$eq", "active")]

        def run_search(embedder: object, user: str, query: str) -> None:
            search(
                mem.backend,
                embedder,
                mem.settings,  # type: ignore[arg-type]
                SearchRequest(user_id=user, query=query, conditions=active, now=utcnow(), limit=10),
            )

        with_embed = [t for u, q in picks for t in timed(lambda u=u, q=q: run_search(mem.embedder, u, q), 1)]
        without = [t for u, q in picks for t in timed(lambda u=u, q=q: run_search(warm, u, q), 1)]
        mem.close()
    print(
        f"{backend:8s} {size:>7,} memories / {users} users: ingest {ingest_rate:7.1f}/s, raw embedder "
        f"{raw_rate:7.1f}/s, ratio {ingest_rate / raw_rate:.2f} | search with embedding {summary_ms(with_embed)}; "
        f"without {summary_ms(without)} (p99 {percentile(without, 99):.2f} ms)",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--users", type=int, default=1000)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--backends", default="sqlite,postgres")
    args = ap.parse_args()
    for backend in args.backends.split(","):
        for size in (int(s) for s in args.sizes.split(",")):
            run(backend, size, args.users, args.batch)


if __name__ == "__main__":
    main()
