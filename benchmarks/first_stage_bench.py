"""How many judge calls the decision model saves as a first stage in front of a model judge.

    python benchmarks/first_stage_bench.py scenarios/holdout17.jsonl ... [--threshold 0.97 0.99]

Replays the facts-mode scenarios of the files (the decision path; chat mode would need a model's
extraction) with ``MEMLANE_LLM=openai`` against a scripted OpenAI-compatible server on loopback
(tests/scripted_chat_server.py), once without a first stage and once per ``--threshold``
(``MEMLANE_LLM_FIRST_STAGE``). The scripted model answers every pair "new" (both hold): it stands for
the model's cost, not its judgement, so only the counts are meaningful. Prints, per run, the model calls
by kind (judge, same-fact, conflict) and the pairs the decision model decided.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.scripted_chat_server import Reply, ScriptedChatServer  # noqa: E402

ANSWERS: dict[str, dict[str, Any]] = {
    "SameFact": {"same_fact": False, "reason": "scripted"},
    "ConflictVerdict": {"relation": "new", "reason": "scripted"},
    "Extraction": {"should_create": False, "candidates": [], "reason": "scripted"},
    "Insights": {"insights": []},
    "Episode": {"should_create": False},
}


def _schema(request: dict[str, Any]) -> str:
    return str(request.get("response_format", {}).get("json_schema", {}).get("name", ""))


def _stored(request: dict[str, Any]) -> list[str]:
    """The numbers of the stored memories a judge request lists."""
    return re.findall(
        r"^(\d+)\. ", request["messages"][-1]["content"].split("Stored:", 1)[-1], flags=re.MULTILINE
    )


def scripted(request: dict[str, Any]) -> Reply:
    schema = _schema(request)
    if schema == "Judgements":
        verdicts = [{"index": int(n), "reasoning": "scripted", "relation": "new"} for n in _stored(request)]
        return Reply(json.dumps({"judgements": verdicts}))
    return Reply(json.dumps(ANSWERS[schema])) if schema in ANSWERS else Reply(None, status=500)


def run(files: list[Path], threshold: float | None) -> tuple[Counter[str], int]:
    """(model calls by schema, pairs the model was asked about) for one replay of the facts scenarios."""
    from memlane.evaluation import scenarios
    from memlane.model.config import Settings
    from memlane.providers.embed.settings import embedder_from_settings

    server = ScriptedChatServer()
    server.otherwise = scripted
    server.thread.start()
    os.environ.update({"MEMLANE_LLM": "openai", "OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "scripted"})
    os.environ.pop("MEMLANE_LLM_FIRST_STAGE", None)
    if threshold is not None:
        os.environ["MEMLANE_LLM_FIRST_STAGE"] = str(threshold)
    try:
        items = [s for s in scenarios.load(files) if s.get("mode") == "facts"]
        scenarios.run(items, embedder_from_settings(Settings()), llm="openai")
    finally:
        server.httpd.shutdown()
    requests = [r["json"] for r in server.requests]
    pairs = sum(
        len(_stored(r)) if _schema(r) == "Judgements" else _schema(r) in ("SameFact", "ConflictVerdict")
        for r in requests
    )
    return Counter(_schema(r) or "?" for r in requests), pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--threshold", nargs="*", type=float, default=[0.97, 0.99])
    args = parser.parse_args()
    base, base_pairs = run(args.files, None)
    base_total = sum(base.values())
    print(f"no first stage: {base_total} model calls ({dict(base)}) about {base_pairs} pairs")
    for threshold in args.threshold:
        calls, pairs = run(args.files, threshold)
        total = sum(calls.values())
        print(
            f"first stage at {threshold}: {total} model calls ({dict(calls)}), {base_total - total} saved "
            f"({(base_total - total) / max(base_total, 1):.0%}); the LLM asked about {pairs} pairs"
        )


if __name__ == "__main__":
    main()
