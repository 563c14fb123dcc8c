"""What the context block's relevance floor (``MEMORY_CONTEXT_MIN_RELEVANCE``) costs in evidence recall on
LoCoMo: each question's search results, cut at each floor as the block cuts them (a memory stays when its
similarity with the keyword evidence reaches the floor), scored as ``memlane eval locomo`` scores them.

    PYTHONPATH=$PWD/src python benchmarks/locomo_relevance_floor.py \
        --data ../shared/data/locomo/locomo_dev.json --first 3 --embed-cache /tmp/locomo-embed.db

The floor's default (0.10 for the bundled embedder) was measured on the scenario sets
(``benchmarks/relevance_cutoff_bench.py``); this reads it against the evidence turns of conversations.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from memlane.engine.memory import Memory  # noqa: E402
from memlane.evaluation.embed_cache import DiskCachedEmbedder  # noqa: E402
from memlane.evaluation.locomo import ASK_AFTER, cited, eval_settings, ingest  # noqa: E402
from memlane.evaluation.locomo_data import load  # noqa: E402
from memlane.evaluation.metrics import recall_at  # noqa: E402
from memlane.model.config import Settings  # noqa: E402
from memlane.model.filters import Condition  # noqa: E402
from memlane.model.record import SearchHit  # noqa: E402
from memlane.providers.embed.settings import embedder_from_settings  # noqa: E402
from memlane.retrieval.search import SearchRequest, search  # noqa: E402

FLOORS = (0.0, 0.05, 0.10, 0.15, 0.20, 0.30)
POOL = 50  # results read per question before the cut


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--first", type=int, default=None, help="only the first N conversations")
    ap.add_argument("--skip", type=int, default=0, help="leave out the first N conversations")
    ap.add_argument("--embed-cache", default=None)
    args = ap.parse_args()
    settings = eval_settings(Settings())
    emb = embedder_from_settings(settings)
    if args.embed_cache:
        emb = DiskCachedEmbedder(emb, args.embed_cache)
    asked: list[tuple[str, tuple[str, ...], list[SearchHit]]] = []
    with tempfile.TemporaryDirectory(prefix="memlane-floor-") as tmp:
        for conv in load(args.data)[args.skip :][: args.first]:
            mem = Memory(str(Path(tmp) / f"{conv.sample_id}.db"), embedder=emb, settings=settings)
            try:
                ingest(mem, conv)
                for q in conv.questions:
                    if q.evidence:
                        req = SearchRequest(
                            user_id=conv.sample_id,
                            query=q.text,
                            now=conv.last_at + ASK_AFTER,
                            limit=POOL,
                            conditions=[Condition("state", "$eq", "active")],
                        )
                        hits = search(mem.backend, mem.embedder, mem.settings, req)
                        asked.append((q.category_name, q.evidence, hits))
            finally:
                mem.close()
    print(f"{len(asked)} questions; recall@10 by category, with the results under each floor left out")
    for floor in FLOORS:
        by: dict[str, list[float]] = defaultdict(list)
        for category, evidence, hits in asked:
            kept = [h for h in hits if h.breakdown.similarity >= floor]
            r = recall_at(cited(kept), evidence, 10)
            by["overall"].append(r)
            by[category].append(r)
        cells = "  ".join(f"{c} {sum(v) / len(v):.3f}" for c, v in sorted(by.items()))
        print(f"floor {floor:.2f}: {cells}")


if __name__ == "__main__":
    main()
