"""Cold wall time of ``memlane add`` and ``memlane search`` (a new process each call, the bundled local
embedder, the offline judge) against a SQLite store of 1,000 memories.

    python benchmarks/cli_cold_bench.py --memories 1000 --runs 5 [--src before=/path/to/old/src --src after=src]

The store is filled once through the Python API (the bundled embedder, real vectors). Each call runs the
installed ``memlane`` entry point; with ``--src`` it runs once per source tree, interleaved, so every tree sees
the same machine load. Prints the median and best wall time per call and tree. Issue 32's target: at most
1.5 s each on this machine, idle.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from memlane.engine.memory import Memory

TOPICS = ("likes", "visited", "works with", "bought", "is reading about", "cooks", "plays", "collects")
THINGS = (
    "tea",
    "Lisbon",
    "a cello",
    "old maps",
    "chess",
    "sourdough",
    "Kyoto",
    "vinyl records",
    "orchids",
    "a Honda",
    "Dostoevsky",
    "salsa dancing",
    "marathons",
    "birds",
    "Rust",
    "pottery",
)


def fill(db: Path, count: int) -> None:
    items = [
        {
            "summary": f"User {TOPICS[n % len(TOPICS)]} {THINGS[n % len(THINGS)]} (note {n}).",
            "key": f"bench:{n}",
        }
        for n in range(count)
    ]
    with Memory(str(db)) as mem:
        for start in range(0, count, 250):
            mem.put_many(items[start : start + 250], user_id="maya")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--src",
        action="append",
        metavar="NAME=PATH",
        help="a source tree to time (repeat) [default: the installed memlane]",
    )
    args = parser.parse_args()
    trees = dict(item.split("=", 1) for item in args.src) if args.src else {"installed": ""}
    command = shutil.which("memlane")
    if command is None:
        raise SystemExit("no memlane command on PATH (pip install -e . first)")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "cold.db"
        fill(db, args.memories)
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMLANE_")}
        env["MEMLANE_CONFIG"] = os.devnull + ".toml"
        calls = {
            "add": [
                "add",
                "I moved to Porto last month and started a new job as a baker",
                "--user",
                "maya",
                "--db",
                str(db),
            ],
            "search": ["search", "where does the user live?", "--user", "maya", "--db", str(db)],
        }
        times: dict[tuple[str, str], list[float]] = {(c, t): [] for c in calls for t in trees}
        for _ in range(args.runs):
            for call, argv in calls.items():
                for name, path in trees.items():
                    run_env = {**env, "PYTHONPATH": os.path.abspath(path)} if path else env
                    start = time.perf_counter()
                    done = subprocess.run([command, *argv], env=run_env, capture_output=True, check=False)
                    times[(call, name)].append(time.perf_counter() - start)
                    if done.returncode != 0:
                        raise SystemExit(f"memlane {call} failed ({name}): {done.stderr.decode()[-400:]}")
    print(f"store: {args.memories} memories (SQLite, bundled embedder); {args.runs} runs")
    for call in calls:
        cells = [
            f"{name}: median {statistics.median(times[(call, name)]):.2f} s "
            f"(best {min(times[(call, name)]):.2f})"
            for name in trees
        ]
        print(f"{'memlane ' + call:<16}" + "  ".join(cells))


if __name__ == "__main__":
    main()
