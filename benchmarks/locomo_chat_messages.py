"""LoCoMo evidence recall@10 of the group-chat message channel alone, on a slice of the dev file.

    python benchmarks/locomo_chat_messages.py 0 3   # conversations 1-3 (the tuning half)
    python benchmarks/locomo_chat_messages.py 3 5   # conversations 4-5 (held out)

Each conversation is recorded as a chat and the sessions task embeds its messages, as
``memlane eval locomo --sessions`` does; only the ``chat-messages`` method is asked (a minute a slice
instead of the whole run). Turn and question vectors are cached in /tmp/locomo-embed.db.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from memlane import Memory
from memlane.evaluation import locomo, locomo_data
from memlane.evaluation.embed_cache import DiskCachedEmbedder
from memlane.evaluation.metrics import recall_at
from memlane.model.config import Settings
from memlane.providers.embed.settings import embedder_from_settings

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo_dev.json"


def main(first: int, last: int) -> None:
    convs = locomo_data.load(DATA)[first:last]
    settings = locomo.eval_settings(Settings()).model_copy(update={"memlane_schedule": {"sessions": 1.0}})
    embedder = DiskCachedEmbedder(embedder_from_settings(settings), "/tmp/locomo-embed.db")
    recalls: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for conv in convs:
            with Memory(str(Path(tmp) / f"{conv.sample_id}.db"), embedder=embedder, settings=settings) as mem:
                refs = locomo.record_chat(mem, conv)
                for q in (q for q in conv.questions if q.evidence):
                    ranked, _ = locomo.chat_cited(mem, conv, q, "chat-messages", refs, 10)
                    for group in (q.category_name, "overall"):
                        recalls.setdefault(group, []).append(recall_at(ranked, q.evidence, 10))
    for group, values in sorted(recalls.items()):
        print(f"{group:12s} n={len(values):4d} R@10={sum(values) / len(values):.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
