"""Cost of naming a memory by an id prefix in the CLI (:func:`memlane.cli.ids.resolve_id`): the user's
memories are read from the store and matched, so it grows with how many the user has.

    python benchmarks/id_prefix_bench.py --memories 1000 10000 --runs 5

A fresh SQLite file per size (hash embedder, one user); prints the median and best time of resolving a
unique prefix, next to ``Memory.get`` of the full id.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from memlane.cli.ids import resolve_id
from memlane.engine.memory import Memory


def timed(call: Callable[[], object], runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), min(times)


def measure(mem: Memory, size: int, runs: int) -> str:
    for start in range(0, size, 500):
        items = [
            {"summary": f"User noted fact number {n}.", "key": f"bench:{n}"}
            for n in range(start, min(size, start + 500))
        ]
        mem.put_many(items, user_id="maya")
    target = mem.list(user_id="maya", limit=1)[0].id
    prefix = target[:12]
    assert resolve_id(mem, "maya", prefix) == target
    med, best = timed(lambda: resolve_id(mem, "maya", prefix), runs)
    gmed, gbest = timed(lambda: mem.get(target, user_id="maya"), runs)
    return (
        f"{size:>7} memories: prefix {med:8.1f} ms median ({best:.1f} best); "
        f"get by full id {gmed:.2f} ms median ({gbest:.2f} best)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for size in args.memories:
        with tempfile.TemporaryDirectory() as tmp, Memory(str(Path(tmp) / "b.db"), embedder="hash") as mem:
            print(measure(mem, size, args.runs))


if __name__ == "__main__":
    main()
