"""LangGraph store search against the engine's own search, one user, in one run.

    python benchmarks/langgraph_search_bench.py --size 5000 --backends sqlite,postgres

One user holds ``size`` memories put through ``MemlaneStore`` (no index config: each item's summary
vector is the memory's). The hash embedder keeps the query embedding out of the figures, so both
columns are what memlane adds. Prints p50/p95 of ``store.search((user,), query=..., limit=10)`` and of
``Memory.search(query, limit=10)``, and their ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from langgraph.store.base import PutOp  # noqa: E402

from benchmarks.common import postgres_url, sentences, sqlite_path, summary_ms, timed  # noqa: E402
from memlane import Memory  # noqa: E402
from memlane.integrations.langgraph import MemlaneStore  # noqa: E402
from memlane.providers.embed.hash import HashEmbedder  # noqa: E402

USER = "bench"
QUERIES = ["what does the user's dog like?", "where does the user travel?", "what music does the user like?"]


def run(location: str, size: int, repeat: int) -> str:
    mem = Memory(location, embedder=HashEmbedder(384))
    store = MemlaneStore(mem)
    texts = sentences(size)
    for start in range(0, size, 500):  # LangGraph's batch of puts: one transaction per 500 items
        store.batch(
            [
                PutOp((USER, "semantic"), f"k{n}", {"summary": text})
                for n, text in enumerate(texts[start : start + 500], start=start)
            ]
        )
    queries = iter(QUERIES * repeat)
    store_ms = timed(lambda: store.search((USER,), query=next(queries), limit=10), repeat)
    queries = iter(QUERIES * repeat)
    engine_ms = timed(lambda: mem.search(next(queries), user_id=USER, limit=10), repeat)
    mem.close()
    ratio = statistics.median(store_ms) / statistics.median(engine_ms)
    return f"store.search {summary_ms(store_ms)} | Memory.search {summary_ms(engine_ms)} | ratio {ratio:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=60)
    parser.add_argument("--backends", default="sqlite")
    args = parser.parse_args()
    for backend in args.backends.split(","):
        with sqlite_path() if backend == "sqlite" else postgres_url() as location:
            print(f"{backend:9} {args.size:,} memories: {run(location, args.size, args.repeat)}", flush=True)


if __name__ == "__main__":
    main()
