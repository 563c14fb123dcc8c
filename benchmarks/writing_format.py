"""How many extracted candidates keep the writing constraints on the first pass (seed 001 §9: >= 95 %).

Runs the offline rules extractor over every user turn of the scenario files' chat steps and over the
LoCoMo conversations' turns (each turn as the user's message, with the turn before it as context), then
checks each candidate with :func:`memlane.formation.writing.problems` before any validator runs.

    python benchmarks/writing_format.py --scenarios ../shared/scenarios/dev.jsonl \
        --locomo ../shared/data/locomo/locomo_dev.json
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

from memlane.model.candidate import ChatMessage
from memlane.model.writing import problems
from memlane.providers.llm.rules import RulesLLM


def scenario_turns(paths: Iterable[str]) -> Iterator[list[ChatMessage]]:
    for path in paths:
        for line in Path(path).read_text().splitlines():
            if line.strip():
                before: list[ChatMessage] = []
                for step in json.loads(line).get("steps", []):
                    if step.get("role") == "assistant" and step.get("text"):
                        before = [ChatMessage(role="assistant", content=step["text"])]
                    elif step.get("role") == "user" and step.get("text"):
                        yield [*before, ChatMessage(role="user", content=step["text"])]
                        before = []


def locomo_turns(path: str) -> Iterator[list[ChatMessage]]:
    from memlane.evaluation.locomo_data import load

    for conv in load(path):
        for before, turn in zip([None, *conv.turns], conv.turns, strict=False):
            context = [ChatMessage(role="assistant", content=before.text)] if before is not None else []
            yield [*context, ChatMessage(role="user", content=turn.text)]


def measure(name: str, turns: Iterable[list[ChatMessage]]) -> None:
    llm = RulesLLM()
    total, failing, by_problem, by_type, examples = 0, 0, Counter[str](), Counter[str](), {}
    for messages in turns:
        for cand in llm.extract(messages).candidates:
            total += 1
            by_type[cand.type.value] += 1
            found = problems(cand.summary, cand.type)
            failing += bool(found)
            for p in found:
                by_problem[p] += 1
                examples.setdefault(p, cand.summary)
    rate = 1 - failing / total if total else 0.0
    print(f"{name}: {total} candidates ({dict(by_type)}), first-pass format rate {rate:.3f}")
    for p, n in by_problem.most_common():
        print(f"  {p}: {n}  e.g. {examples[p]!r}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenarios", nargs="*", default=[])
    ap.add_argument("--locomo")
    args = ap.parse_args()
    if args.scenarios:
        measure("scenarios", scenario_turns(args.scenarios))
    if args.locomo:
        measure("locomo", locomo_turns(args.locomo))


if __name__ == "__main__":
    main()
