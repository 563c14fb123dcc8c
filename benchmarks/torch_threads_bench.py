"""Embedding throughput of the local model (all-MiniLM-L6-v2) by ``MEMLANE_TORCH_THREADS``.

    python benchmarks/torch_threads_bench.py --texts 512 --singles 100 --busy 0,1

Each setting (1, 2 and unset: memlane's default) runs in a fresh process, as a user would set it, with
the embedding cache off. Printed: the threads torch ended up with, batched throughput (sentences/s over
``--texts`` sentences in batches of 64) and the latency of one sentence (p50/p95). ``--busy N`` runs N
busy-looping processes meanwhile: a shared box where other work (a web server, a worker, another
user's job) holds cores.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("MEMLANE_CONFIG", os.devnull + ".toml")  # no ~/.memlane/config.toml here

from benchmarks.common import percentile, sentences, timed  # noqa: E402

SETTINGS = ("1", "2", "default")


def child(texts: int, singles: int) -> dict[str, float]:
    """Measure in this process with the environment's MEMLANE_TORCH_THREADS."""
    import torch

    from memlane.model.config import Settings
    from memlane.providers.embed.settings import embedder_from_settings

    embedder = embedder_from_settings(Settings(embedder="local", embed_cache_size=0))
    embedder.embed(sentences(64, seed=1))  # load the model and warm up
    batch = sentences(texts, seed=2)
    t0 = time.perf_counter()
    embedder.embed(batch)
    seconds = time.perf_counter() - t0
    one = iter(sentences(singles, seed=3))
    lat = timed(lambda: embedder.embed([next(one)]), singles)
    return {
        "threads": torch.get_num_threads(),
        "per_s": texts / seconds,
        "p50": percentile(lat, 50),
        "p95": percentile(lat, 95),
    }


def spin(stop: float) -> None:
    while time.time() < stop:
        pass


def run(setting: str, texts: int, singles: int, busy: int) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k != "MEMLANE_TORCH_THREADS"}
    if setting != "default":
        env["MEMLANE_TORCH_THREADS"] = setting
    hogs = [multiprocessing.Process(target=spin, args=(time.time() + 600,), daemon=True) for _ in range(busy)]
    for h in hogs:
        h.start()
    try:
        out = subprocess.run(
            [sys.executable, __file__, "--child", "--texts", str(texts), "--singles", str(singles)],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    finally:
        for h in hogs:
            h.terminate()
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=512, help="sentences in the batched run")
    parser.add_argument("--singles", type=int, default=100, help="one-sentence calls timed")
    parser.add_argument("--busy", default="0,1", help="comma-separated counts of busy processes meanwhile")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.texts, args.singles)))
        return
    print(
        f"cores available: {len(os.sched_getaffinity(0))}; {args.texts} sentences batched, "
        f"{args.singles} single calls"
    )
    print(
        f"{'busy':>4}  {'MEMLANE_TORCH_THREADS':<22} {'threads':>7} {'sentences/s':>12} {'one p50 ms':>11} "
        f"{'one p95 ms':>11}"
    )
    for busy in (int(b) for b in args.busy.split(",")):
        for setting in SETTINGS:
            r = run(setting, args.texts, args.singles, busy)
            print(
                f"{busy:>4}  {setting:<22} {r['threads']:>7} {r['per_s']:>12.0f} {r['p50']:>11.1f} "
                f"{r['p95']:>11.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
