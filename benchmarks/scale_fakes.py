"""The fakes of ``pg_scale_bench.py``, at the provider boundary: a scripted LLM that answers after a delay,
as a remote model would (``memlane worker`` processes run with it: ``python benchmarks/scale_fakes.py
WORKER-ARGS``), and seeded hash vectors under the local embedder's identity for the load."""

from __future__ import annotations

import hashlib
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memlane.model.candidate import (  # noqa: E402
    ChatMessage,
    ConflictVerdict,
    Extraction,
    SameFact,
)
from memlane.providers.embed.base import Embedder  # noqa: E402
from memlane.providers.llm.base import MemoryLLM  # noqa: E402

# --- the scripted LLM and the worker launcher ----------------------------------------------------


class DelayedScriptedLLM(MemoryLLM):
    """A provider that answers every call after ``PG_SCALE_LLM_DELAY`` seconds (200 ms by default),
    as a remote model would, and deterministically: the last user message as the one candidate, every
    stored neighbour "new" (both facts hold), never the same fact. A fake, honestly named: it stands in
    for the model so the benchmark measures the queue, not a model on this machine's cores."""

    name = "scripted"
    remote = True

    def __init__(self) -> None:
        self.delay = float(os.environ.get("PG_SCALE_LLM_DELAY", "0.2"))

    def _wait(self) -> None:
        time.sleep(self.delay)

    def extract(self, messages: Sequence[ChatMessage], existing: Sequence[str] = ()) -> Extraction:
        self._wait()
        text = messages[-1].content if messages else ""
        return Extraction(should_create=bool(text), candidates=[{"summary": text}] if text else [])  # type: ignore[list-item]

    def same_fact(self, existing: str, candidate: str, category: str | None = None) -> SameFact:
        self._wait()
        return SameFact(same_fact=False, reason="scripted")

    def classify_conflict(self, existing: str, candidate: str) -> ConflictVerdict:
        self._wait()
        return ConflictVerdict(relation="new", reason="scripted")

    def judge(self, candidate: str, existing: Sequence[str]) -> list[ConflictVerdict]:
        if not existing:
            return []
        self._wait()  # one call for all the neighbours, as a model judge answers them
        return [ConflictVerdict(relation="new", reason="scripted") for _ in existing]


def run_worker(argv: list[str]) -> None:
    """``scale_fakes.py ARGS``: ``memlane worker ARGS`` with the scripted LLM registered."""
    from memlane.cli.app import app
    from memlane.providers.llm.registry import REGISTRY

    REGISTRY["scripted"] = "benchmarks.scale_fakes:DelayedScriptedLLM"  # imported by that name
    app(["worker", *argv], prog_name="memlane")


# --- vectors for the load --------------------------------------------------------------------------


class SeededVectors(Embedder):
    """Deterministic unit vectors seeded by each text's hash, under ``like``'s identity (its name, model
    and size): the load does not run the model, and the store stays bound to the real embedder."""

    def __init__(self, like: Embedder) -> None:
        self.name, self.model, self.dims = like.name, like.model, like.dims

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for t in texts:
            seed = int.from_bytes(hashlib.blake2b(t.encode(), digest_size=8).digest(), "little")
            v = np.random.default_rng(seed).standard_normal(self.dims)
            out.append((v / np.linalg.norm(v)).astype(np.float32).tolist())
        return out


if __name__ == "__main__":
    run_worker(sys.argv[1:])
