"""What a relevance cutoff in the context block keeps and leaves out: the measurement behind the
default of ``MEMORY_CONTEXT_MIN_RELEVANCE`` for the bundled embedder.

    PYTHONPATH=$PWD/src python benchmarks/relevance_cutoff_bench.py \
        ../shared/scenarios/dev.jsonl scenarios/holdout17.jsonl ... scenarios/holdout24.jsonl

Each scenario is replayed as ``memlane eval scenarios`` replays it (local embedder, the default rules
LLM, proposals accepted), then each of its queries builds the context block (as the chat proxy does)
at every cutoff. Per cutoff it prints, over the memory sections of the blocks (semantic, episodic,
shared; sessions and chat messages are not cut):

- ``answer``: queries whose expected memory (``top1_matches`` or ``any_matches``) is in the block;
- ``lost``: queries whose expected memory was in the block with no cutoff and is not any more;
- ``shown``: memories in the blocks; ``other``: those matching no expected pattern of their query;
- ``left out``: memories the cutoff removed from the blocks (of those shown with no cutoff), and how
  many of them matched no expected pattern (``unrelated``);
- ``wrong``: memories in the blocks matching a query's ``none_matches`` (an answer it must not give).

Queries whose expected memory is absent even with no cutoff count in none of the ``lost`` figures.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from memlane.engine.memory import Memory  # noqa: E402
from memlane.evaluation.scenarios import _match, load, replay  # noqa: E402
from memlane.model.config import Settings  # noqa: E402
from memlane.providers.embed import get_embedder  # noqa: E402
from memlane.retrieval.context import build_context  # noqa: E402

CUTOFFS = (0.0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)
BLIND = ("holdout25", "holdout26", "holdout27", "holdout28")


@dataclass
class Tally:
    answer: int = 0
    lost: int = 0
    shown: int = 0
    other: int = 0
    left_out: int = 0
    left_out_unrelated: int = 0
    wrong: int = 0
    lost_queries: list[str] = field(default_factory=list)


def block_memories(mem: Memory, settings: Settings, query: str, user: str, at: datetime) -> list[str]:
    block = build_context(
        mem.backend,
        mem.embedder,
        settings,
        query=query,
        user_id=user,
        thread_id=None,
        since_rev=None,
        budget_tokens=None,
        agent=None,
        now=at,
    )
    return [h.memory.summary for name in ("semantic", "episodic", "shared") for h in getattr(block, name)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenarios", nargs="+")
    args = parser.parse_args()
    for path in args.scenarios:
        if any(name in Path(path).name for name in BLIND):
            raise SystemExit(f"{path} is a blind set: it is not read here")
    scenarios = load(args.scenarios)
    embedder = get_embedder("local")
    tallies = {c: Tally() for c in CUTOFFS}
    queries = 0
    with tempfile.TemporaryDirectory(prefix="memlane-cutoff-") as tmp:
        for scenario in scenarios:
            db = str(Path(tmp) / f"{scenario['id']}.db")
            base = Settings()
            mem = Memory(db, embedder=embedder, settings=base)
            try:
                replay(mem, scenario, accept=True)
                last_at = scenario["steps"][-1]["at"] if scenario["steps"] else None
                for q in scenario.get("queries", []):
                    want = q.get("top1_matches") or q.get("any_matches")
                    if want is None and "none_matches" not in q:
                        continue
                    user = q.get("user", "u1")
                    at = datetime.fromisoformat(str(q.get("at", last_at)).replace("Z", "+00:00"))
                    queries += 1
                    before: list[str] = []
                    for cutoff in CUTOFFS:
                        settings = base.model_copy(update={"memory_context_min_relevance": cutoff})
                        shown = block_memories(mem, settings, q["query"], user, at)
                        if cutoff == 0.0:
                            before = shown
                        t = tallies[cutoff]
                        hit = want is not None and any(_match(want, s) for s in shown)
                        had = want is not None and any(_match(want, s) for s in before)
                        t.answer += hit
                        if had and not hit:
                            t.lost += 1
                            t.lost_queries.append(f"{scenario['id']}: {q['query']}")
                        t.shown += len(shown)
                        t.other += sum(not (want and _match(want, s)) for s in shown)
                        gone = [s for s in before if s not in shown]
                        t.left_out += len(gone)
                        t.left_out_unrelated += sum(not (want and _match(want, s)) for s in gone)
                        if "none_matches" in q:
                            t.wrong += sum(_match(q["none_matches"], s) for s in shown)
            finally:
                mem.close()
    with_answer = sum(
        1 for s in scenarios for q in s.get("queries", []) if q.get("top1_matches") or q.get("any_matches")
    )
    print(f"{len(scenarios)} scenarios, {queries} queries ({with_answer} with an expected memory)")
    print(
        f"{'cutoff':>6} {'answer':>7} {'lost':>5} {'shown':>6} {'other':>6} "
        f"{'left out':>9} {'unrelated':>10} {'wrong':>6}"
    )
    for cutoff, t in tallies.items():
        print(
            f"{cutoff:>6.2f} {t.answer:>7} {t.lost:>5} {t.shown:>6} {t.other:>6} "
            f"{t.left_out:>9} {t.left_out_unrelated:>10} {t.wrong:>6}"
        )
    for cutoff, t in tallies.items():
        for line in t.lost_queries[:8]:
            print(f"lost at {cutoff:.2f}: {line}")


if __name__ == "__main__":
    main()
