"""Extraction latency: the learned extractor and the rules on labelled user messages, one at a time.

    python benchmarks/extraction_bench.py --messages data/extraction/dev --repeat 2 [--threads 1] [--weights DIR]

Prints the load time and p50/p95 ms per message (the assistant's message before it included, as
formation calls it) for the learned extractor and for the rules. Target: at most 30 ms per message on
this CPU.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from benchmarks.common import percentile  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=Path, default=Path("data/extraction/dev"))
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--weights", type=Path, default=None, help="a folder of trained weights (default: shipped)"
    )
    args = parser.parse_args()

    import torch

    from memlane.model.candidate import ChatMessage
    from memlane.providers.llm.learned import LearnedLLM
    from memlane.providers.llm.rules import RulesLLM
    from memlane.training.extraction_data import read_messages

    torch.set_num_threads(args.threads)
    rows = read_messages([args.messages])
    turns = [
        ([ChatMessage(role="assistant", content=r.assistant)] if r.assistant else [])
        + [ChatMessage(role="user", content=r.message)]
        for r in rows
    ]
    started = time.perf_counter()
    learned = LearnedLLM(weights=args.weights)
    learned.extract(turns[0])
    print(
        f"load + first call: {(time.perf_counter() - started) * 1000:.0f} ms; torch threads {args.threads}; "
        f"{len(rows)} messages, {statistics.mean(len(r.message.split()) for r in rows):.0f} words on average"
    )
    for name, llm in (("learned", learned), ("rules", RulesLLM())):
        times = []
        for _ in range(args.repeat):
            for turn in turns:
                t0 = time.perf_counter()
                llm.extract(turn)
                times.append((time.perf_counter() - t0) * 1000)
        print(
            f"{name:8s} p50 {statistics.median(times):6.2f} ms, p95 {percentile(times, 95):6.2f} ms per message "
            f"({len(times)} calls)"
        )


if __name__ == "__main__":
    main()
