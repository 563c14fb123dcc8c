"""Start-up time of the ``memlane`` command: help, a usage error, and ``serve`` on a taken port.

    python benchmarks/cli_startup_bench.py --src before=/path/to/old/src --src after=src --runs 5

Each call runs the installed ``memlane`` entry point with ``PYTHONPATH`` set to each source tree in
turn (interleaved, so every tree sees the same machine load), without MEMLANE_* settings. Prints the
median and best wall time per call and tree.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--src", action="append", required=True, metavar="NAME=PATH", help="a source tree to time (repeat)"
    )
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    trees = dict(item.split("=", 1) for item in args.src)
    command = shutil.which("memlane")
    if command is None:
        raise SystemExit("no memlane command on PATH (pip install -e . first)")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        calls = {
            "--help": ["--help"],
            "search --bogus": ["search", "--bogus"],
            "serve (port taken)": ["serve", "--port", port, "--db", os.devnull + ".db"],
        }
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMLANE_")}
        env["MEMLANE_CONFIG"] = os.devnull + ".toml"
        times: dict[tuple[str, str], list[float]] = {(c, t): [] for c in calls for t in trees}
        for _ in range(args.runs):
            for call, argv in calls.items():
                for name, path in trees.items():
                    t0 = time.perf_counter()
                    subprocess.run(
                        [command, *argv],
                        env={**env, "PYTHONPATH": os.path.abspath(path)},
                        capture_output=True,
                        check=False,
                    )
                    times[(call, name)].append(time.perf_counter() - t0)
    for call in calls:
        cells = [
            f"{name}: median {statistics.median(times[(call, name)]):.2f} s (best {min(times[(call, name)]):.2f})"
            for name in trees
        ]
        print(f"{'memlane ' + call:<28}" + "  ".join(cells))


if __name__ == "__main__":
    main()
