"""How far below the best match do answers lie? The measurement behind ``MEMORY_PIN_MARGIN``.

    python benchmarks/pin_margin.py --locomo ../shared/data/locomo/locomo_dev.json \
        --scenarios ../shared/scenarios/dev.jsonl --embed-cache /tmp/locomo-embed.sqlite

A pin counts in a search when the pinned memory's cosine to the question is within the margin of the
best candidate's cosine, or within twice the margin when it shares a word with the question (keyword
evidence). For each question this ranks the candidate pool as search does (no memory pinned) and
prints, per margin, the share of answers and of the other candidates that lie within that reach: LoCoMo's evidence turns among the pool of
``memlane eval locomo`` (top 25), and the memories matching a scenario query's ``top1_matches`` /
``any_matches`` among the others of its user. A margin should take in most answers and few others.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from memlane.engine.memory import Memory  # noqa: E402
from memlane.evaluation import locomo_data  # noqa: E402
from memlane.evaluation.locomo import ASK_AFTER, cited, eval_settings, ingest  # noqa: E402
from memlane.evaluation.scenarios import load, replay  # noqa: E402
from memlane.model.config import Settings  # noqa: E402
from memlane.model.filters import Condition  # noqa: E402
from memlane.model.record import SearchHit  # noqa: E402
from memlane.providers.embed import Embedder, get_embedder  # noqa: E402
from memlane.retrieval.search import SearchRequest, search  # noqa: E402

MARGINS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4)


Gap = tuple[float, bool, int]  # (best cosine - cosine, shares a word with the question, rank by cosine)


def gaps(hits: list[SearchHit]) -> list[Gap]:
    cosine = [h.breakdown.similarity - h.breakdown.keyword for h in hits]
    best = max(cosine, default=0.0)
    rank = {i: r for r, i in enumerate(sorted(range(len(cosine)), key=lambda i: -cosine[i]), start=1)}
    return [
        (best - c, h.breakdown.keyword > 0, rank[i])
        for i, (h, c) in enumerate(zip(hits, cosine, strict=True))
    ]


def locomo_gaps(path: str, emb: Embedder, tmp: Path) -> tuple[list[Gap], list[Gap]]:
    answers: list[Gap] = []
    others: list[Gap] = []
    for conv in locomo_data.load(path):
        mem = Memory(str(tmp / f"{conv.sample_id}.db"), embedder=emb, settings=eval_settings(Settings()))
        try:
            ingest(mem, conv)
            for q in (q for q in conv.questions if q.evidence):
                req = SearchRequest(
                    user_id=conv.sample_id,
                    query=q.text,
                    now=conv.last_at + ASK_AFTER,
                    limit=25,
                    conditions=[Condition("state", "$eq", "active")],
                )
                hits = search(mem.backend, mem.embedder, mem.settings, req)
                for h, gap in zip(hits, gaps(hits), strict=True):
                    hit_is_answer = any(d in q.evidence for d in cited([h]))
                    (answers if hit_is_answer else others).append(gap)
        finally:
            mem.close()
    return answers, others


def scenario_gaps(paths: list[str], emb: Embedder, tmp: Path) -> tuple[list[Gap], list[Gap]]:
    answers: list[Gap] = []
    others: list[Gap] = []
    for sc in load(paths):
        queries = [q for q in sc.get("queries", []) if "top1_matches" in q or "any_matches" in q]
        if not queries:
            continue
        mem = Memory(str(tmp / f"{sc['id']}.db"), embedder=emb)
        try:
            replay(mem, sc)
            for q in queries:
                pattern = q.get("top1_matches") or q["any_matches"]
                hits = mem.search(
                    q["query"], user_id=q.get("user", "u1"), limit=50, at=q.get("at", sc["steps"][-1]["at"])
                )
                for h, gap in zip(hits, gaps(hits), strict=True):
                    hit_is_answer = re.search(pattern, h.memory.summary, re.IGNORECASE) is not None
                    (answers if hit_is_answer else others).append(gap)
        except AssertionError:  # a scenario op found nothing to act on: its extraction failed
            pass
        finally:
            mem.close()
    return answers, others


def within(found: list[Gap], margin: float, widen: float, top: int = 10**9) -> float:
    return sum(
        gap <= margin * (widen if shares else 1.0) + 1e-9 and rank <= top for gap, shares, rank in found
    ) / max(len(found), 1)


def report(name: str, answers: list[Gap], others: list[Gap]) -> None:
    print(f"{name}: {len(answers)} answers, {len(others)} other candidates")
    print(
        "  margin  answers within  others within  (x2 with a shared word: answers  others)"
        "  (and among the 3 closest: answers  others)"
    )
    for m in MARGINS:
        share_a, share_o = within(answers, m, 1.0), within(others, m, 1.0)
        wide_a, wide_o = within(answers, m, 2.0), within(others, m, 2.0)
        top_a, top_o = within(answers, m, 2.0, 3), within(others, m, 2.0, 3)
        print(
            f"  {m:6.2f}  {share_a:14.3f}  {share_o:13.3f}  {wide_a:31.3f}  {wide_o:6.3f}  {top_a:32.3f}  {top_o:6.3f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", help="a LoCoMo JSON file")
    parser.add_argument("--scenarios", nargs="*", default=[], help="scenario JSONL files")
    parser.add_argument("--embedder", default="local")
    parser.add_argument("--embed-cache", help="SQLite file caching embeddings across runs")
    args = parser.parse_args()
    emb = get_embedder(args.embedder)
    if args.embed_cache:
        from memlane.evaluation.embed_cache import DiskCachedEmbedder

        emb = DiskCachedEmbedder(emb, Path(args.embed_cache))
    with tempfile.TemporaryDirectory(prefix="memlane-pin-") as tmp:
        if args.locomo:
            report("LoCoMo evidence", *locomo_gaps(args.locomo, emb, Path(tmp)))
        if args.scenarios:
            report("scenario answers", *scenario_gaps(args.scenarios, emb, Path(tmp)))


if __name__ == "__main__":
    main()
