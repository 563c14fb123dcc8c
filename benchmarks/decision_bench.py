"""Decision model latency: the learned judge on stored/candidate pairs, one pair and ten at a time.

    python benchmarks/decision_bench.py --pairs scenarios/pairs_holdout.jsonl --repeat 3 [--threads 1]

Prints the load time, p50/p95 ms per judge call with 1 stored memory and with 10 (one call judges all
of them in one forward pass, as formation does), and ms per pair; the rules judge on the same pairs
for comparison. Target: at most 10 ms per pair on this CPU.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=Path, default=Path("scenarios/pairs_holdout.jsonl"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()

    os.environ["OMP_NUM_THREADS"] = str(args.threads)  # read by the model's ONNX Runtime session at load
    from memlane.formation.calibrate import load_pairs
    from memlane.providers.llm.learned import LearnedLLM
    from memlane.providers.llm.rules import RulesLLM

    pairs = load_pairs(args.pairs)
    started = time.perf_counter()
    learned = LearnedLLM()
    learned.judge("User lives in Leeds.", ["User lives in York."])
    print(f"load + first call: {(time.perf_counter() - started) * 1000:.0f} ms; threads {args.threads}")
    for name, llm in (("learned", learned), ("rules", RulesLLM())):
        for width in (1, 10):
            times = []
            for _ in range(args.repeat):
                for start in range(0, len(pairs) - width + 1, width):
                    chunk = pairs[start : start + width]
                    t0 = time.perf_counter()
                    llm.judge(chunk[0].text_b, [p.text_a for p in chunk])
                    times.append((time.perf_counter() - t0) * 1000)
            print(
                f"{name:8s} {width:2d} stored per call: p50 {statistics.median(times):6.2f} ms, "
                f"p95 {_pct(times, 0.95):6.2f} ms, per pair {statistics.median(times) / width:5.2f} ms "
                f"({len(times)} calls)"
            )


if __name__ == "__main__":
    main()
