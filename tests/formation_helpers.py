"""Shared helpers of the formation tests: scripted LLMs at the provider boundary, the real local
embedder (loaded once per test session), event capture and bounded waits.

The scripted LLMs are fakes of the *provider*, honestly named: they answer what a test declared and
record every question, so a test can force a decision branch without depending on a model's (or the
rule-based extractor's) wording. Everything below them (formation, storage, embeddings) is real.
"""

from __future__ import annotations

import functools
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel

from memlane import Memory
from memlane.ledger.events import MemoryEvent
from memlane.model.candidate import (
    Candidate,
    ChatMessage,
    ConflictVerdict,
    Extraction,
    InsightProposal,
    Insights,
    Relation,
    SameFact,
)
from memlane.model.config import Settings
from memlane.model.errors import ProviderError
from memlane.providers.embed import Embedder, get_embedder
from memlane.providers.llm.base import MemoryLLM
from memlane.providers.llm.structured import MalformedOutputError, StructuredLLM

__all__ = [
    "EventLog",
    "Rendezvous",
    "ScriptedLLM",
    "ScriptedTransportLLM",
    "cosine",
    "extraction_json",
    "local_embedder",
    "malformed",
    "open_memory",
    "timeout",
    "wait_until",
]


@functools.cache
def local_embedder() -> Embedder:
    """The real bundled all-MiniLM-L6-v2 embedder; it takes seconds to load, so it is built once."""
    emb = get_embedder("local")
    emb.embed_one("warm up")
    return emb


def cosine(emb: Embedder, a: str, b: str) -> float:
    va, vb = (np.asarray(v, dtype=np.float64) for v in emb.embed([a, b]))
    return float(va @ vb / (np.linalg.norm(va) * np.linalg.norm(vb)))


def open_memory(location: str, llm: MemoryLLM, **settings: Any) -> Memory:
    """A Memory on a real store (SQLite file or PostgreSQL URL) with the local embedder."""
    return Memory(location, embedder=local_embedder(), llm=llm, settings=Settings(db=location, **settings))


def wait_until(
    predicate: Callable[[], bool], *, timeout: float = 10.0, interval: float = 0.02, what: str = "condition"
) -> None:
    """Poll ``predicate`` until it holds; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g}s waiting for {what}")
        time.sleep(interval)


class EventLog:
    """Collects the ``memory.*`` events a Memory publishes."""

    def __init__(self, mem: Memory) -> None:
        self.events: list[MemoryEvent] = []
        self._lock = threading.Lock()
        self.unsubscribe = mem.events.subscribe(self._record)

    def _record(self, event: MemoryEvent) -> None:
        with self._lock:
            self.events.append(event)

    def of(self, kind: str) -> list[MemoryEvent]:
        with self._lock:
            return [e for e in self.events if e.type == kind]

    def kinds(self) -> list[str]:
        with self._lock:
            return [e.type for e in self.events]


def _fact(item: Candidate | Mapping[str, Any] | str) -> Candidate:
    if isinstance(item, Candidate):
        return item
    if isinstance(item, str):
        return Candidate(summary=item)
    return Candidate.model_validate(item)


class Rendezvous:
    """Holds each caller until ``parties`` callers have arrived, or ``wait`` seconds have passed.

    Put in a scripted model's path, it makes a race deterministic: decisions that are (wrongly) not
    serialised all meet inside the model call at once; serialised ones each wait out ``wait`` alone.
    ``most_inside`` tells how many callers were inside at the same time."""

    def __init__(self, parties: int = 2, wait: float = 1.0) -> None:
        self.parties, self.wait = parties, wait
        self._cond = threading.Condition()
        self.arrived = 0
        self.inside = 0
        self.most_inside = 0

    def __call__(self) -> None:
        with self._cond:
            self.arrived += 1
            self.inside += 1
            self.most_inside = max(self.most_inside, self.inside)
            self._cond.notify_all()
            self._cond.wait_for(lambda: self.arrived >= self.parties, timeout=self.wait)
            self.inside -= 1


class ScriptedLLM(MemoryLLM):
    """A MemoryLLM that answers from a script.

    * ``extract``: the queued extractions in order (an Exception in the queue is raised); with the
      queue empty, "nothing to remember".
    * ``classify_conflict`` / ``same_fact``: the answer declared for the (existing, candidate) pair,
      else the defaults (``"unsure"`` / not the same fact) - which leave the choice to the bands.

    Every call is recorded in ``calls`` as ``(task, args)``.
    """

    name = "scripted"

    def __init__(self, *, default_relation: Relation = "unsure", default_same: bool = False) -> None:
        self.default_relation: Relation = default_relation
        self.default_same = default_same
        self.extractions: deque[Extraction | Exception] = deque()
        self.insight_replies: deque[Insights] = deque()
        self.verdicts: dict[tuple[str, str], ConflictVerdict] = {}
        self.same: dict[tuple[str, str], SameFact] = {}
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.on_extract: Callable[[Sequence[ChatMessage]], None] | None = None
        self.on_decide: Callable[[], None] | None = None  # called inside same_fact / classify_conflict
        self._lock = threading.Lock()

    # --- the script -----------------------------------------------------------------------
    def will_extract(self, *facts: Candidate | Mapping[str, Any] | str) -> ScriptedLLM:
        cands = [_fact(f) for f in facts]
        self.extractions.append(Extraction(should_create=bool(cands), candidates=cands, reason="scripted"))
        return self

    def will_fail(self, error: Exception) -> ScriptedLLM:
        self.extractions.append(error)
        return self

    def will_infer(self, *insights: str | Mapping[str, Any]) -> ScriptedLLM:
        """Queue one ``insights`` reply (the queue empty: no insights)."""
        items = [
            InsightProposal(summary=i) if isinstance(i, str) else InsightProposal.model_validate(i)
            for i in insights
        ]
        self.insight_replies.append(Insights(insights=items))
        return self

    def relation(
        self, existing: str, candidate: str, relation: Relation, reason: str = "scripted"
    ) -> ScriptedLLM:
        self.verdicts[(existing, candidate)] = ConflictVerdict(relation=relation, reason=reason)
        return self

    def same_fact_answer(self, existing: str, candidate: str, same: bool) -> ScriptedLLM:
        self.same[(existing, candidate)] = SameFact(same_fact=same, reason="scripted")
        return self

    def asked(self, task: str) -> list[tuple[Any, ...]]:
        with self._lock:
            return [args for name, args in self.calls if name == task]

    # --- the MemoryLLM contract ------------------------------------------------------------
    def extract(self, messages: Sequence[ChatMessage], existing: Sequence[str] = ()) -> Extraction:
        with self._lock:
            self.calls.append(("extract", (tuple(m.content for m in messages),)))
            answer = self.extractions.popleft() if self.extractions else None
        if self.on_extract is not None:
            self.on_extract(messages)
        if isinstance(answer, Exception):
            raise answer
        return answer or Extraction(should_create=False, reason="scripted: nothing queued")

    def same_fact(self, existing: str, candidate: str, category: str | None = None) -> SameFact:
        with self._lock:
            self.calls.append(("same_fact", (existing, candidate)))
        if self.on_decide is not None:
            self.on_decide()
        return self.same.get(
            (existing, candidate), SameFact(same_fact=self.default_same, reason="scripted default")
        )

    def insights(self, activity: Sequence[str], new_facts: Sequence[str], snippet: str = "") -> Insights:
        with self._lock:
            self.calls.append(("insights", (tuple(activity), tuple(new_facts), snippet)))
            return self.insight_replies.popleft() if self.insight_replies else Insights()

    def classify_conflict(self, existing: str, candidate: str) -> ConflictVerdict:
        with self._lock:
            self.calls.append(("classify_conflict", (existing, candidate)))
        if self.on_decide is not None:
            self.on_decide()
        return self.verdicts.get(
            (existing, candidate), ConflictVerdict(relation=self.default_relation, reason="scripted default")
        )


# --- a StructuredLLM whose transport is a script of raw replies --------------------------------


def malformed(text: str = '{"should_create": "perhaps"') -> MalformedOutputError:
    """What a transport raises for a reply that holds no usable JSON (the script may also just give
    the malformed text itself; the structured base then fails to parse it)."""
    return MalformedOutputError(f"no JSON in reply: {text[:40]}")


def timeout(seconds: float = 20.0) -> ProviderError:
    return ProviderError(f"scripted transport timed out after {seconds:g}s")


class ScriptedTransportLLM(StructuredLLM):
    """The real :class:`StructuredLLM` (prompts, JSON validation, one retry, writing constraints)
    over a scripted transport: each call to ``_complete`` takes the next raw reply (a JSON string)
    from the script, or raises it when it is an exception. An exhausted script fails the test."""

    name = "scripted-transport"
    model = "scripted-model"

    def __init__(self, replies: Iterable[str | Exception] = ()) -> None:
        super().__init__()
        self.replies: deque[str | Exception] = deque(replies)
        self.requests: list[tuple[str, str]] = []  # (schema name, user prompt)
        self._lock = threading.Lock()

    def script(self, *replies: str | Exception) -> ScriptedTransportLLM:
        with self._lock:
            self.replies.extend(replies)
        return self

    def _complete(self, system: str, user: str, schema: type[BaseModel]) -> str:
        with self._lock:
            self.requests.append((schema.__name__, user))
            if not self.replies:
                raise AssertionError(f"the scripted transport has no reply left for {schema.__name__}")
            reply = self.replies.popleft()
        if isinstance(reply, Exception):
            raise reply
        return reply

    def count(self, schema_name: str) -> int:
        with self._lock:
            return sum(1 for name, _ in self.requests if name == schema_name)


def extraction_json(*summaries: str, **fields: Any) -> str:
    """A valid raw ``Extraction`` reply proposing ``summaries``."""
    return Extraction(
        should_create=bool(summaries), candidates=[Candidate(summary=s, **fields) for s in summaries]
    ).model_dump_json()
