"""Issue 5 load benchmark: ``memlane serve`` on loopback under 50 concurrent clients.

    python benchmarks/load_bench.py --backends sqlite,postgres --clients 50 --seconds 20

For each backend: seeds ``--memories`` memories over ``--users`` users, starts ``memlane serve`` in a
subprocess on 127.0.0.1 (a free port; nothing else is contacted), then for each operation runs
``--clients`` concurrent keep-alive clients for ``--seconds`` and prints requests/s and p50/p95:

- ``search``: ``POST /v1/memory/search`` (embeds the query, hybrid search, rerank);
- ``add``: ``POST /v1/memory/turns`` (a chat turn: committed as a job, extraction, candidates back;
  the decisions run in the server's background worker, whose backlog is drained and timed after).

Bounded: every phase stops after ``--seconds``; the server is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from benchmarks.common import QUERIES, percentile, postgres_url, sentences, sqlite_path  # noqa: E402
from memlane import Memory  # noqa: E402

TURNS = [
    "I just started learning Portuguese.",
    "My sister Ana moved to Porto last month.",
    "I'm allergic to peanuts.",
    "We adopted a cat called Miso.",
    "I prefer window seats on flights.",
    "I run 10k every Sunday morning.",
    "My manager is called Ruth.",
    "I'm saving for a trip to Peru.",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def served(location: str, embedder: str) -> Iterator[str]:
    port = free_port()
    cmd = [
        sys.executable,
        "-c",
        "from memlane.cli.app import main; main()",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--db",
        location,
        "--embedder",
        embedder,
        "--log-level",
        "warning",
    ]
    env = {**os.environ, "MEMLANE_API_KEYS": "", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, f"memlane serve exited: {proc.stderr.read() if proc.stderr else ''}"
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            assert time.monotonic() < deadline, "memlane serve did not start"
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()


async def phase(url: str, op: str, clients: int, seconds: float, users: int) -> tuple[int, int, list[float]]:
    stop = time.monotonic() + seconds
    latencies: list[float] = []
    errors = 0

    async def client(n: int) -> None:
        nonlocal errors
        rng = random.Random(n)
        async with httpx.AsyncClient(base_url=url, timeout=60) as http:
            while time.monotonic() < stop:
                user = f"user{rng.randrange(users)}"
                if op == "search":
                    req = ("/v1/memory/search", {"query": rng.choice(QUERIES), "limit": 10})
                else:
                    req = ("/v1/memory/turns", {"messages": rng.choice(TURNS), "thread_id": f"t{n}"})
                t0 = time.perf_counter()
                resp = await http.post(req[0], json=req[1], headers={"X-Memlane-User": user})
                latencies.append((time.perf_counter() - t0) * 1000)
                if resp.status_code >= 400:
                    errors += 1

    started = time.monotonic()
    await asyncio.gather(*(client(n) for n in range(clients)))
    return len(latencies), errors, [time.monotonic() - started, *latencies]


def pending(url: str) -> int:
    text = httpx.get(f"{url}/metrics", timeout=30).text
    found = re.search(r'memlane_job_queue_depth\{status="pending"\} (\S+)', text)
    return int(float(found.group(1))) if found else 0


def run(backend: str, args: argparse.Namespace) -> None:
    ctx = sqlite_path() if backend == "sqlite" else postgres_url()
    with ctx as location:
        mem = Memory(location, embedder=args.embedder)
        texts = sentences(args.memories, seed=5)
        for i in range(0, len(texts), 256):
            mem.put_many(
                [
                    {"summary": s, "user_id": f"user{(i + j) % args.users}"}
                    for j, s in enumerate(texts[i : i + 256])
                ]
            )
        mem.close()
        with served(location, args.embedder) as url:
            asyncio.run(phase(url, "search", 4, 2, args.users))  # warm up connections and caches
            for op in args.ops.split(","):
                count, errors, (elapsed, *lat) = asyncio.run(
                    phase(url, op, args.clients, args.seconds, args.users)
                )
                print(
                    f"{backend:8s} {op:6s} {args.clients} clients, {args.embedder} embedder, {args.memories:,} "
                    f"memories / {args.users} users: {count / elapsed:7.1f} req/s, p50 {percentile(lat, 50):6.1f} ms, "
                    f"p95 {percentile(lat, 95):6.1f} ms, {errors} errors ({count} requests in {elapsed:.1f} s)",
                    flush=True,
                )
                if op == "add":
                    t0, backlog = time.monotonic(), pending(url)
                    while pending(url) and time.monotonic() - t0 < args.seconds * 10:
                        time.sleep(0.5)
                    print(
                        f"{backend:8s} formation backlog after add: {backlog} pending jobs, drained in "
                        f"{time.monotonic() - t0:.1f} s (left: {pending(url)})",
                        flush=True,
                    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backends", default="sqlite,postgres")
    ap.add_argument("--ops", default="search,add")
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--memories", type=int, default=5000)
    ap.add_argument("--users", type=int, default=100)
    ap.add_argument("--embedder", default="local", help="local (the default model) or hash")
    args = ap.parse_args()
    for backend in args.backends.split(","):
        run(backend, args)


if __name__ == "__main__":
    main()
