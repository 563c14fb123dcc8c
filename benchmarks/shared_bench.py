"""Shared memories benchmark: what ``shared=True`` reads cost a user with no links, and one with links.

    python benchmarks/shared_bench.py --size 10000 --links 50 --backends sqlite,postgres

One user holds ``size`` memories (random 384-dim vectors, synthetic sentences); another user owns
``links`` memories shared with a second reader who holds as many. Each storage read that
retrieval makes (vector ids, keyword ids, records by id, list, count) is timed for each reader as
an own read (``shared=False``, what every read was before links existed) and as a shared read. The
four are interleaved call by call (each first in turn, each with a fresh query), so a busy
machine's drift falls on all of them alike. Prints p50 / p95 per read.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from benchmarks.common import postgres_url, sentences, sqlite_path, summary_ms  # noqa: E402
from memlane.model.filters import live  # noqa: E402
from memlane.model.link import MemoryLink  # noqa: E402
from memlane.model.record import MemoryRecord  # noqa: E402
from memlane.storage import open_backend  # noqa: E402
from memlane.storage.base import Backend, Upsert, WriteBatch  # noqa: E402

DIMS = 384
WORDS = ["jazz", "Lisbon", "budget", "marathon", "Python", "tea"]


def fill(b: Backend, user: str, texts: list[str], rng: np.random.Generator) -> list[str]:
    ids = []
    for i in range(0, len(texts), 500):
        chunk = texts[i : i + 500]
        vecs = rng.standard_normal((len(chunk), DIMS)).astype(np.float32)
        recs = [MemoryRecord(id=f"{user}-{i + n}", user_id=user, summary=t) for n, t in enumerate(chunk)]
        b.apply(WriteBatch(upserts=[Upsert(r, v.tolist()) for r, v in zip(recs, vecs, strict=True)]))
        ids += [r.id for r in recs]
    return ids


def run(kind: str, size: int, links: int, calls: int) -> None:
    ctx = sqlite_path() if kind == "sqlite" else postgres_url()
    rng = np.random.default_rng(1)
    with ctx as location:
        b = open_backend(location)
        b.bind_embedder(f"bench:random:{DIMS}", DIMS)
        own = {
            "lone": fill(b, "lone", sentences(size, seed=1), rng),
            "linked": fill(b, "linked", sentences(size, seed=2), rng),
        }
        shared = fill(b, "owner", sentences(links, seed=3), rng)
        b.apply(
            WriteBatch(links=[MemoryLink(user_id="linked", memory_id=m, linked_by="owner") for m in shared])
        )
        pick = random.Random(2)
        cases: dict[str, Callable[[str, bool, np.ndarray, str], object]] = {
            "vector_ids (pool 24)": lambda u, s, q, w: b.memories.vector_ids(
                u, q.tolist(), live(), limit=24, shared=s
            ),
            "keyword_ids (pool 24)": lambda u, s, q, w: b.memories.keyword_ids(
                u, w, live(), limit=24, shared=s
            ),
            "get_many (24 ids)": lambda u, s, q, w: b.memories.get_many(u, pick.sample(own[u], 24), shared=s),
            "list (newest 10)": lambda u, s, q, w: b.memories.list(u, live(), limit=10, shared=s),
            "count (live)": lambda u, s, q, w: b.memories.count(u, live(), shared=s),
        }
        variants = [
            ("no links: own", "lone", False),
            ("shared", "lone", True),
            (f"{links} links: own", "linked", False),
            ("shared", "linked", True),
        ]
        print(
            f"{kind}: {size:,} memories per reader, {calls} calls each, load average {os.getloadavg()[0]:.1f}"
        )
        for name, fn in cases.items():
            samples: list[list[float]] = [[] for _ in variants]
            for n in range(calls):
                for k in [(n + i) % len(variants) for i in range(len(variants))]:  # each goes first in turn
                    _, user, flag = variants[k]
                    q, w = rng.standard_normal(DIMS).astype(np.float32), pick.choice(WORDS)  # no memo hits
                    t0 = time.perf_counter()
                    fn(user, flag, q, w)
                    samples[k].append((time.perf_counter() - t0) * 1000)
            print(
                f"  {name:22s} "
                + " | ".join(f"{v[0]}: {summary_ms(s)}" for v, s in zip(variants, samples, strict=True))
            )
        b.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=10_000)
    ap.add_argument("--links", type=int, default=50)
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--backends", default="sqlite,postgres")
    args = ap.parse_args()
    for kind in args.backends.split(","):
        run(kind, args.size, args.links, args.calls)


if __name__ == "__main__":
    main()
