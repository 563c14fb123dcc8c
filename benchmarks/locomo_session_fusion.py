"""How to blend the session channel into LoCoMo evidence retrieval: candidates dumped once, blends scored offline.

    python benchmarks/locomo_session_fusion.py dump 0 3 /tmp/sf13.json   # conversations 1-3 (tune here)
    python benchmarks/locomo_session_fusion.py grid /tmp/sf13.json

``dump`` records each conversation as ``memlane eval locomo --sessions`` does and keeps, per question,
memlane's ranked turns with their scores (50), the message channel's (50, the seed's reranker without
summaries) and the session summaries' (20, with the LoCoMo session each stands for). ``grid`` prints
R@10 (overall and multi-hop) of the blends tried (docs/locomo.md, "Session channel as a prior"):
memlane alone, the seed's reciprocal rank fusion with ``chat``, a weighted one with the message list,
memlane's own top sessions as the prior (a control: is it only concentration?), and the prior from
the messages, the summaries or both, by rank, over sessions and weights.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memlane import Memory
from memlane.evaluation import locomo, locomo_data
from memlane.evaluation.embed_cache import DiskCachedEmbedder
from memlane.evaluation.metrics import recall_at
from memlane.model.config import Settings
from memlane.model.enums import MemoryState, MemoryType
from memlane.model.filters import Condition
from memlane.providers.embed.settings import embedder_from_settings
from memlane.retrieval import chat_recall, session_prior
from memlane.retrieval.intent import plan_query
from memlane.retrieval.search import SearchRequest, search
from memlane.retrieval.session_blend import blend

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo_dev.json"


def dump(first: int, last: int, out: Path) -> None:
    convs = locomo_data.load(DATA)[first:last]
    settings = locomo.eval_settings(Settings()).model_copy(update={"memlane_schedule": {"sessions": 1.0}})
    embedder = DiskCachedEmbedder(embedder_from_settings(settings), "/tmp/locomo-embed.db")
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for conv in convs:
            with Memory(str(Path(tmp) / f"{conv.sample_id}.db"), embedder=embedder, settings=settings) as mem:
                locomo.ingest(mem, conv)
                refs = locomo.record_chat(mem, conv)
                user, now = conv.sample_id, conv.last_at + locomo.ASK_AFTER
                for q in (q for q in conv.questions if q.evidence):
                    conds = [
                        Condition("state", "$eq", MemoryState.ACTIVE.value),
                        Condition("type", "$eq", MemoryType.EPISODIC.value),
                    ]
                    req = SearchRequest(user_id=user, query=q.text, now=now, limit=50, conditions=conds)
                    hits = search(mem.backend, mem.embedder, mem.settings, req)
                    msg_hits = mem.backend.sessions.search_messages(
                        user,
                        text=q.text,
                        vector=mem.embedder.embed_one(q.text),
                        embedder=mem.embedder.identity,
                        limit=50,
                    )
                    plan = plan_query(q.text, now, tz=settings.timezone)
                    msgs = blend(q.text, plan, now, settings, msg_hits, [], max_messages=50, max_sessions=0)
                    sess = chat_recall.recall(
                        mem.backend,
                        mem.embedder,
                        settings,
                        query=q.text,
                        user_id=user,
                        chat_id=None,
                        now=now,
                        max_messages=0,
                        max_sessions=20,
                    )
                    chat, _ = locomo.chat_cited(mem, conv, q, "chat", refs, 25)
                    rows.append(
                        {
                            "cat": q.category_name,
                            "gold": q.evidence,
                            "mem": [[locomo.cited([h])[0], h.score] for h in hits],
                            "msgs": [[i.message.ref, i.score] for i in msgs if i.message is not None],
                            "sess": [
                                [
                                    [refs.get(x, "") for x in i.session.memory.metadata["session"]["quoted"]],
                                    i.score,
                                ]
                                for i in sess
                                if i.session is not None
                            ],
                            "chat": chat,
                        }
                    )
    out.write_text(json.dumps(rows))


def grid(path: Path) -> None:
    rows = json.loads(path.read_text())

    def show(name: str, rank: Callable[[dict[str, Any]], list[str]]) -> None:
        def r10(cat: str | None) -> float:
            values = [recall_at(rank(r), r["gold"], 10) for r in rows if cat in (None, r["cat"])]
            return sum(values) / len(values)

        print(f"{name:40s} R@10={r10(None):.4f} multi-hop={r10('multi-hop'):.4f}")

    show("memlane", lambda r: [d for d, _ in r["mem"]])
    show("seed: rrf(memlane, chat)", lambda r: rrf(r, [d for d, _ in r["mem"]], r["chat"], 1.0))
    for w in (0.1, 0.25, 0.5):
        show(
            f"rrf(memlane, {w} x chat-messages)",
            lambda r, w=w: rrf(r, [*map(first, r["mem"])], [*map(first, r["msgs"])], w),
        )
    for channel in ("self", "msgs", "sess", "both"):
        for top in (1, 2, 3, 5):
            for weight in (0.04, 0.08, 0.12, 0.16):
                show(
                    f"prior {channel} top={top} w={weight}",
                    lambda r, c=channel, t=top, w=weight: prior(r, c, t, w),
                )


def first(pair: list[Any]) -> Any:
    return pair[0]


def session(dia: str) -> str:
    return dia.split(":")[0]


def rrf(r: dict[str, Any], a: list[str], b: list[str], w: float) -> list[str]:
    score: dict[str, float] = {}
    for weight, ranked in ((1.0, a), (w, b)):
        for rank, d in enumerate(dict.fromkeys(ranked)):
            score[d] = score.get(d, 0.0) + weight / (60 + rank + 1)
    return sorted(score, key=lambda d: -score[d])


def prior(r: dict[str, Any], channel: str, top: int, weight: float) -> list[str]:
    scored: list[tuple[str | None, float]] = []
    if channel == "self":
        scored += [(session(d), s) for d, s in r["mem"]]
    if channel in ("msgs", "both"):
        scored += [(session(d), s) for d, s in r["msgs"]]
    if channel in ("sess", "both"):
        scored += [(session(q[0]) if q else None, s) for q, s in r["sess"]]
    ranks = session_prior.session_ranks(scored, top=top)
    lifted = sorted(((d, s + weight * ranks.get(session(d), 0.0)) for d, s in r["mem"]), key=lambda p: -p[1])
    return [d for d, _ in lifted]


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4]))
    else:
        grid(Path(sys.argv[2]))
