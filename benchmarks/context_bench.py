"""Issue 4 benchmark: context-block latency (``Memory.context``) per user store size, on each backend.

    python benchmarks/context_bench.py --sizes 1000,10000 --backends sqlite,postgres [--shared 50]

One user holds ``size`` memories (semantic across categories, episodic, insights, session summaries);
a few other users hold some too. A thread has change-log rows from formation, so the delta header is
built on every call. Each timed call embeds its query with the real local model (uncached: the
memories' vectors are computed once up front and reused for ingest, queries are always embedded).
Prints wall-clock p50/p95 (and this thread's CPU time, what an idle machine would show for the
in-process SQLite work) of: the context block for agent ``supervisor`` (allowlist filter), the block
with no agent, ``memory.query`` bullets, the query embedding alone, and the supervisor block with the
query vector already known (what memlane adds around the embedder).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from datetime import timedelta

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from benchmarks.common import QUERIES as COMMON_QUERIES
from benchmarks.common import postgres_url, sentences, sqlite_path, summary_ms  # noqa: E402
from memlane import Memory  # noqa: E402
from memlane.model.config import Settings  # noqa: E402
from memlane.model.record import utcnow  # noqa: E402
from memlane.providers.embed import Embedder, get_embedder  # noqa: E402

USER = "bench"
CATEGORIES = [
    "Personal",
    "Preferences",
    "Health",
    "Relationships",
    "Work",
    "Finance",
    "Goals",
    "Tasks",
    "Projects",
    "Travel",
    "Interests",
    "Other",
]
QUERIES = [
    *COMMON_QUERIES,
    "remind me what we discussed about the dog",
    "remind me of the user's goals",
    "how is the budget going?",
    "what are the open tasks?",
    "anything about the user's sister?",
    "plans for the weekend?",
]
FACTS = [
    "User's preferred name is Ana.",
    "User wants to ship v1 by September.",
    "User is lactose intolerant.",
    "User started learning Japanese.",
    "User's dog Luna is 4 years old.",
]


class Precomputed(Embedder):
    """Vectors of known texts from a table (computed once for every run); anything else (the timed
    queries) goes to the real model every time."""

    def __init__(self, inner: Embedder, table: dict[str, list[float]]) -> None:
        self.inner, self.table = inner, table
        self.name, self.model, self.dims = inner.name, inner.model, inner.dims

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        missing = [t for t in texts if t not in self.table]
        fresh = dict(zip(missing, self.inner.embed(missing), strict=True)) if missing else {}
        return [self.table.get(t) or fresh[t] for t in texts]


def items_for(user: str, size: int, seed: int) -> list[dict[str, object]]:
    rng = random.Random(seed)
    now = utcnow()
    out: list[dict[str, object]] = []
    for i, text in enumerate(sentences(size, seed=seed)):
        roll = rng.random()
        item: dict[str, object] = {
            "summary": text,
            "user_id": user,
            "category": rng.choice(CATEGORIES),
            "importance": rng.randint(1, 5),
        }
        if roll < 0.15:
            item.update(type="episodic", at=now - timedelta(days=rng.uniform(0, 180)))
        elif roll < 0.20:
            item.update(
                type="session",
                category="Conversation_Summary",
                tags=["topic", f"t{i % 40}"],
                at=now - timedelta(days=rng.uniform(0, 90)),
            )
        elif roll < 0.23:
            item.update(type="insight", category="Relationship_Dynamic")
        out.append(item)
    return out


def run(
    backend: str,
    size: int,
    calls: int,
    others: int,
    model: Embedder,
    table: dict[str, list[float]],
    shared: int = 0,
) -> None:
    ctx = sqlite_path() if backend == "sqlite" else postgres_url()
    with ctx as location:
        mem = Memory(location, embedder=Precomputed(model, table), settings=Settings(db=location))
        data = items_for(USER, size, seed=size) + [
            it for u in range(others) for it in items_for(f"other{u}", 500, seed=size + u + 1)
        ]
        for i in range(0, len(data), 256):
            mem.put_many(data[i : i + 256])
        mem.add_facts(
            [{"summary": f, "category": "Personal" if "name" in f else "Other"} for f in FACTS],
            user_id=USER,
            thread_id="t1",
            wait=True,
        )
        if shared:  # memories of another user shared with the bench user: its reads have a linked arm
            for rec in mem.list(user_id="other0", limit=shared):
                mem.sharing.share(rec.id, user_id="other0", with_users=[USER])
        rev = mem.context("warm up", user_id=USER, thread_id="t1").rev
        rng = random.Random(3)
        picks = [rng.choice(QUERIES) for _ in range(calls)]

        def series(fn: Callable[[str], object]) -> tuple[list[float], list[float]]:
            wall, cpu = [], []
            for q in picks:
                t0, c0 = time.perf_counter(), time.thread_time()
                fn(q)
                cpu.append((time.thread_time() - c0) * 1000)
                wall.append((time.perf_counter() - t0) * 1000)
            return wall, cpu

        since = max(0, rev - 3)
        rows = {
            "context(agent=supervisor)": series(
                lambda q: mem.context(q, user_id=USER, thread_id="t1", since_rev=since, agent="supervisor")
            ),
            "context(no agent)": series(
                lambda q: mem.context(q, user_id=USER, thread_id="t1", since_rev=since)
            ),
            "memory.query bullets (planner)": series(
                lambda q: mem.query(q, user_id=USER, agent="planner", top_k=3, budget_tokens=256)
            ),
            "query embedding alone": series(model.embed_one),
        }
        table.update(zip(QUERIES, model.embed(QUERIES), strict=True))  # from here on queries cost nothing
        rows["context(agent=supervisor), query vector known"] = series(
            lambda q: mem.context(q, user_id=USER, thread_id="t1", since_rev=since, agent="supervisor")
        )
        for q in QUERIES:
            del table[q]
        block = mem.context(picks[0], user_id=USER, thread_id="t1", since_rev=since, agent="supervisor")
        mem.close()
    print(
        f"{backend} {size:,} memories/user ({others} other users with 500, {shared} shared with it), {calls} calls, "
        "load average "
        f"{os.getloadavg()[0]:.1f}:"
    )
    for name, (wall, cpu) in rows.items():
        print(f"  {name:48s} {summary_ms(wall)}   (this thread's CPU: {summary_ms(cpu)})")
    print(
        f"  block: {block.tokens} tokens, {len(block.semantic)} semantic + {len(block.episodic)} episodic + "
        f"{len(block.sessions)} session items, {len(block.delta)} delta bullets",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--backends", default="sqlite,postgres")
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--others", type=int, default=2, help="other users with 500 memories each")
    ap.add_argument("--shared", type=int, default=0, help="memories of other0 shared with the bench user")
    ap.add_argument("--embedder", default="local", help="registry name of the query embedder (local, hash)")
    ap.add_argument(
        "--torch-threads",
        type=int,
        default=0,
        help="torch threads for the local model (0: its default, one per core); 1 is steadier on a busy machine",
    )
    args = ap.parse_args()
    model = get_embedder(args.embedder, cache_size=0)
    model.embed_one("load the model")
    if args.torch_threads:
        import torch

        torch.set_num_threads(args.torch_threads)
    sizes = [int(s) for s in args.sizes.split(",")]
    texts = list(
        dict.fromkeys(
            str(it["summary"])
            for size in sizes
            for it in items_for(USER, size, seed=size)
            + [x for u in range(args.others) for x in items_for(f"other{u}", 500, seed=size + u + 1)]
        )
    )
    table = {
        t: v
        for i in range(0, len(texts), 256)
        for t, v in zip(texts[i : i + 256], model.embed(texts[i : i + 256]), strict=True)
    }
    for backend in args.backends.split(","):
        for size in sizes:
            run(backend, size, args.calls, args.others, model, table, args.shared)


if __name__ == "__main__":
    main()
