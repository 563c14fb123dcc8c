"""Issue 3 benchmark: formation hot-path latency and end-to-end formation throughput.

    python benchmarks/formation_bench.py --turns 300 --users 20 --backends sqlite,postgres

Rules extractor and the bundled local embedder (all-MiniLM-L6-v2), on a fresh store per backend.

* hot path: ``Memory.add(text, user_id=..., at=...)`` per user turn with the worker paused, i.e.
  validation, rules extraction, the durable turn job, the candidate jobs and ``memory.candidate``
  events; decisions are left queued. p50/p95/p99 in ms (target p95 <= 50 ms).
* end to end: the same N turns submitted, then every job drained with ``process_jobs()`` (embedding,
  neighbour search, same-fact and conflict checks, the atomic write): turns/s over submit + drain.
* hot path with the worker on: ``Memory.add`` as shipped, one turn every ``--pace-ms``, the background
  worker deciding in the same process meanwhile (the embedded default), on a second fresh store; and
  the backlog of undecided jobs when the last turn was accepted.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from functools import partial

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("MEMLANE_CONFIG", os.devnull + ".toml")  # no ~/.memlane/config.toml here

from benchmarks.common import percentile, postgres_url, sqlite_path, timed  # noqa: E402
from memlane import Memory  # noqa: E402
from memlane.model.config import Settings  # noqa: E402
from memlane.model.jobs import JobStatus  # noqa: E402
from memlane.providers.embed import get_embedder  # noqa: E402
from memlane.providers.embed.base import CachedEmbedder, Embedder  # noqa: E402

PETS = ["Rex", "Nala", "Pepper", "Otis", "Mochi", "Bruno", "Kiwi", "Juno"]
CITIES = ["Oslo", "Bergen", "Lyon", "Porto", "Austin", "Denver", "Kyoto", "Accra", "Quito", "Tallinn"]
JOBS = [
    ("teacher", "Lincoln High"),
    ("nurse", "City General"),
    ("designer", "Figma"),
    ("chef", "Chez Marie"),
    ("accountant", "Deloitte"),
    ("developer", "Shopify"),
    ("pharmacist", "Boots"),
]
ALLERGENS = ["peanuts", "shellfish", "penicillin", "cats", "pollen", "gluten"]
HOBBIES = ["playing chess", "climbing", "baking bread", "birdwatching", "playing the guitar", "sailing"]
LANGS = ["Spanish", "Japanese", "German", "Portuguese", "Korean"]
DRINKS = [("tea", "coffee"), ("coffee", "tea"), ("sparkling water", "soda"), ("red wine", "beer")]
KIDS = ["Zoe", "Liam", "Ava", "Noah", "Mia"]
SIBLINGS = ["Maria", "Tom", "Ines", "Kofi", "Hana"]

FACTS = [
    "My dog {pet} is {n} years old.",
    "I live in {city}.",
    "I'm allergic to {allergen}.",
    "I work as a {job} at {org}.",
    "My sister {sib} lives in {city2}.",
    "I prefer {d1} over {d2}.",
    "I love {hobby} on weekends.",
    "I'm learning {lang}.",
    "I live in {city} and I work as a {job} at {org}.",
    "I'm saving for a new car, my budget is {k}k.",
]
UPDATES = [
    "{pet} turned {n1} last week.",
    "We moved to {city2} last month.",
    "I'm vegan now.",
    "I just got promoted to senior {job}!",
    "My sister {sib} moved to {city}.",
]
EVENTS = [
    "My daughter {kid} started school today.",
    "I ran a half marathon on Sunday.",
    "I just got back from a week of {hobby} in {city2}.",
    "My son {kid} lost his first tooth today.",
]
CHATTER = [
    "Thanks, that's helpful.",
    "What's the weather like in {city}?",
    "Can you summarise this for me?",
    "haha ok",
    "Please answer in {lang} from now on.",
    "How do I boil an egg?",
]


def turns(n: int, users: int, seed: int = 3) -> list[tuple[str, str, datetime]]:
    """``n`` user turns over ``users`` users, in time order: facts, later updates and repeats, episodes,
    chit-chat (about a fifth yields no candidate)."""
    rng = random.Random(seed)
    profiles = []
    for _ in range(users):
        job, org = rng.choice(JOBS)
        d1, d2 = rng.choice(DRINKS)
        age = rng.randint(1, 12)
        profiles.append(
            {
                "pet": rng.choice(PETS),
                "n": age,
                "n1": age + 1,
                "city": rng.choice(CITIES),
                "city2": rng.choice(CITIES),
                "allergen": rng.choice(ALLERGENS),
                "job": job,
                "org": org,
                "sib": rng.choice(SIBLINGS),
                "d1": d1,
                "d2": d2,
                "hobby": rng.choice(HOBBIES),
                "lang": rng.choice(LANGS),
                "kid": rng.choice(KIDS),
                "k": rng.randint(5, 40),
            }
        )
    start = datetime(2026, 1, 5, 9, tzinfo=UTC)
    out = []
    for i in range(n):
        user = i % users
        progress = i / n
        pool = (FACTS * 3 + EVENTS + CHATTER) if progress < 0.5 else (FACTS + UPDATES * 2 + EVENTS + CHATTER)
        text = rng.choice(pool).format(**profiles[user])
        out.append((f"user{user}", text, start + timedelta(minutes=37 * i)))
    return out


class Timed(Embedder):
    """Counts the seconds spent embedding (inside the text cache: cache hits cost nothing)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.name, self.model, self.dims = inner, inner.name, inner.model, inner.dims
        self.seconds = 0.0

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        t0 = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - t0


class HotPathOnly(Memory):
    """``Memory`` whose ``add`` leaves the background worker off: the benchmark drains the queue itself."""

    def start_worker(self) -> None:
        return None


def open_memory(location: str, embedder: Embedder, worker: bool) -> Memory:
    settings = Settings(memory_write_rate_limit_per_hour=1_000_000)  # measure formation, not the cap
    cls = Memory if worker else HotPathOnly
    mem = cls(location, embedder=embedder, settings=settings, llm="rules")
    mem.add("My dog Warmup is 2 years old.", user_id="warmup", wait=True)  # tables, model, rules: loaded
    return mem


def ms(samples: list[float]) -> str:
    return (
        f"p50 {statistics.median(samples):6.2f} ms, p95 {percentile(samples, 95):6.2f} ms, "
        f"p99 {percentile(samples, 99):6.2f} ms"
    )


def submit(
    mem: Memory, items: list[tuple[str, str, datetime]], every: float = 0.0
) -> tuple[list[float], int]:
    """``Memory.add`` each turn (one every ``every`` seconds when set); latencies in ms, candidates."""
    samples, candidates = [], 0
    start = time.perf_counter()
    for i, (user, text, at) in enumerate(items):
        time.sleep(max(0.0, start + i * every - time.perf_counter()))
        t0 = time.perf_counter()
        candidates += len(mem.add(text, user_id=user, at=at))
        samples.append((time.perf_counter() - t0) * 1000)
    return samples, candidates


def wait_idle(mem: Memory, timeout: float = 900.0) -> float:
    """Seconds until no job is pending or running (the background worker has decided everything)."""
    t0 = time.perf_counter()
    while any(
        mem.jobs.list(status, limit=1) for status in (JobStatus.PENDING.value, JobStatus.RUNNING.value)
    ):
        if time.perf_counter() - t0 > timeout:
            raise RuntimeError(f"the worker did not finish within {timeout:.0f} s")
        time.sleep(0.05)
    return time.perf_counter() - t0


def states(mem: Memory, users: int) -> str:
    counts: dict[str, int] = {}
    for u in range(users):
        for rec in mem.list(user_id=f"user{u}", include_inactive=True, limit=10_000):
            counts[rec.state.value] = counts.get(rec.state.value, 0) + 1
    parked = len(mem.jobs.list(JobStatus.PARKED.value, limit=10_000))
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + f"; parked jobs {parked}"


def reference(model: Embedder) -> str:
    """Single-text embedding latency and the load average, to read the figures against."""
    texts = [f"User's note number {i} about the garden." for i in range(30)]
    samples = [timed(partial(model.embed, [text]), 1)[0] for text in texts]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"reference: one local embedding p50 {statistics.median(samples):.1f} ms; load average {load}"


def run(backend: str, n: int, users: int, pace_ms: float, model: Embedder) -> None:
    """``model`` is the uncached local embedder, loaded once; each store gets its own text cache."""
    items = turns(n, users)
    print(f"{backend:8s} {reference(model)}", flush=True)
    ctx = sqlite_path() if backend == "sqlite" else postgres_url()
    with ctx as location:
        timing = Timed(model)
        mem = open_memory(location, CachedEmbedder(timing), worker=False)
        t0 = time.perf_counter()
        samples, candidates = submit(mem, items)
        submitted = time.perf_counter() - t0
        timing.seconds = 0.0
        jobs = mem.process_jobs()
        drained = time.perf_counter() - t0 - submitted
        outcome = states(mem, users)
        mem.close()
    print(
        f"{backend:8s} hot path ({n} turns, {users} users, {candidates} candidates): {ms(samples)}",
        flush=True,
    )
    print(
        f"{backend:8s} end to end: submit {submitted:.2f} s + drain {jobs} jobs {drained:.2f} s = "
        f"{n / (submitted + drained):.1f} turns/s ({candidates / drained:.1f} decisions/s; embedding "
        f"{timing.seconds:.2f} s of the drain, the rest {(drained - timing.seconds) / jobs * 1000:.1f} ms/job); "
        f"{outcome}",
        flush=True,
    )
    if pace_ms <= 0:
        return
    ctx = sqlite_path() if backend == "sqlite" else postgres_url()
    with ctx as location:
        mem = open_memory(location, CachedEmbedder(model), worker=True)
        t0 = time.perf_counter()
        samples, candidates = submit(mem, items, every=pace_ms / 1000)
        backlog = len(mem.jobs.list(JobStatus.PENDING.value, limit=100_000))
        lag = wait_idle(mem)
        total = time.perf_counter() - t0
        mem.close()
    print(
        f"{backend:8s} hot path with the worker deciding meanwhile (a turn every {pace_ms:g} ms): {ms(samples)}; "
        f"backlog after the last turn {backlog} jobs, all decided {lag:.2f} s later ({n / total:.1f} turns/s)",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=300)
    ap.add_argument("--users", type=int, default=20)
    ap.add_argument("--backends", default="sqlite,postgres")
    ap.add_argument(
        "--pace-ms",
        type=float,
        default=50.0,
        help="one turn every this many ms in the run with the background worker on (0: skip that run)",
    )
    args = ap.parse_args()
    model = get_embedder("local", cache_size=0)
    for backend in args.backends.split(","):
        run(backend, args.turns, args.users, args.pace_ms, model)


if __name__ == "__main__":
    main()
