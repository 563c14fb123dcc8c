"""Prometheus metrics: request latency, formation events, job queue depth, embedder and LLM latency,
chat sessions opened, summarised and failed; formation's decisions (:mod:`metrics_decisions`) and the
stored memories' totals (:mod:`metrics_totals`).

Each app has its own registry (several apps in one process, as in tests, do not collide). Labels never
carry user ids or texts: routes are the templates (``/v1/memory/{memory_id}``), not the paths. The one
exception is opt-in and bounded: ``MEMLANE_METRICS_TOP_USERS`` names that many users (metrics_totals.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memlane.engine.memory import Memory
from memlane.ledger.events import MemoryEvent
from memlane.model.candidate import ChatMessage, ConflictVerdict, Extraction, SameFact
from memlane.model.jobs import JobStatus
from memlane.model.session import SessionDigest
from memlane.providers.embed.base import Embedder
from memlane.providers.llm.base import MemoryLLM
from memlane.server.metrics_decisions import DecisionMetrics
from memlane.server.metrics_totals import MemoryTotalsCollector

FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
SLOW = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
QUEUE_CAP = 10_000  # the gauge counts at most this many jobs per status


class ServerMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Histogram(
            "memlane_http_request_duration_seconds",
            "Time to the response headers, by route template and status",
            ["method", "route", "status"],
            buckets=FAST,
            registry=r,
        )
        self.formation = Counter(
            "memlane_formation_events_total",
            "Formation events: candidates, decisions (created, updated, merged, "
            "changed_fact, deleted) and errors",
            ["type"],
            registry=r,
        )
        self.embed = Histogram(
            "memlane_embedder_duration_seconds",
            "Embedder call latency (texts per call vary)",
            ["embedder"],
            buckets=FAST,
            registry=r,
        )
        self.llm = Histogram(
            "memlane_llm_duration_seconds",
            "Memory LLM call latency by task",
            ["llm", "task"],
            buckets=SLOW,
            registry=r,
        )
        self.upstream = Histogram(
            "memlane_upstream_duration_seconds",
            "Chat proxy upstream LLM latency: to the first byte and in total",
            ["phase"],
            buckets=SLOW,
            registry=r,
        )
        self.proxy = Counter(
            "memlane_chat_requests_total", "Chat proxy requests by memory mode", ["mode"], registry=r
        )
        self.background_failures = Counter(
            "memlane_chat_formation_failures_total",
            "Chat turns whose formation could not be started",
            registry=r,
        )
        # group-chat sessions, from the session.* events of this process's engine and worker
        self.sessions = {
            kind: Counter(f"memlane_sessions_{kind}_total", text, registry=r)
            for kind, text in (
                ("opened", "Chat sessions opened by recorded messages"),
                ("closed", "Chat sessions closed after CONTEXT_SESSION_GAP_MINUTES of silence"),
                (
                    "skipped",
                    "Closed chat sessions not summarised: fewer messages than CONTEXT_SESSION_MIN_MESSAGES",
                ),
                ("summarized", "Chat sessions summarised by the sessions task"),
                ("failed", "Chat session summaries that failed (retried by a later run)"),
            )
        }
        self.decided = DecisionMetrics(r)  # fed by Formation.decisions (see watch_formation)

    def on_event(self, event: MemoryEvent) -> None:
        kind, _, what = event.type.partition(".")
        if kind == "session":
            if what in self.sessions:
                self.sessions[what].inc()
            return
        self.formation.labels(event.type).inc()

    def watch_queue(self, memory: Memory) -> None:
        self.registry.register(QueueDepth(memory))

    def watch_totals(self, memory: Memory, top_users: int = 0) -> None:
        self.registry.register(MemoryTotalsCollector(memory, top_users))

    def watch_formation(self, memory: Memory) -> Callable[[], None]:
        """Count the memory's decisions from now on; returns the unsubscribe."""
        return memory.formation.decisions.subscribe(self.decided.on_decision)


class QueueDepth(Collector):
    def __init__(self, memory: Memory) -> None:
        self.memory = memory

    def collect(self) -> Iterator[GaugeMetricFamily]:
        gauge = GaugeMetricFamily(
            "memlane_job_queue_depth",
            f"Formation jobs by status (counted up to {QUEUE_CAP})",
            labels=["status"],
        )
        for status in (JobStatus.PENDING, JobStatus.RUNNING, JobStatus.PARKED):
            gauge.add_metric([status.value], len(self.memory.jobs.list(status.value, limit=QUEUE_CAP)))
        yield gauge


class TimedEmbedder(Embedder):
    """Wraps an embedder to time every call; same identity, so the store sees no change."""

    def __init__(self, inner: Embedder, histogram: Histogram) -> None:
        self.inner = inner
        self.name, self.model, self.dims = inner.name, inner.model, inner.dims
        self._timer = histogram.labels(inner.name)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        with self._timer.time():
            return self.inner.embed(texts)


class TimedLLM(MemoryLLM):
    def __init__(self, inner: MemoryLLM, histogram: Histogram) -> None:
        self.inner, self.name, self._h = inner, inner.name, histogram
        self.remote = inner.remote

    def _timed(self, task: str, fn: Callable[[], Any]) -> Any:
        with self._h.labels(self.name, task).time():
            return fn()

    def extract(self, messages: Sequence[ChatMessage], existing: Sequence[str] = ()) -> Extraction:
        result: Extraction = self._timed("extract", lambda: self.inner.extract(messages, existing))
        return result

    def same_fact(self, existing: str, candidate: str, category: str | None = None) -> SameFact:
        result: SameFact = self._timed(
            "same_fact", lambda: self.inner.same_fact(existing, candidate, category)
        )
        return result

    def classify_conflict(self, existing: str, candidate: str) -> ConflictVerdict:
        result: ConflictVerdict = self._timed(
            "classify_conflict", lambda: self.inner.classify_conflict(existing, candidate)
        )
        return result

    def judge(self, candidate: str, existing: Sequence[str]) -> list[ConflictVerdict]:
        result: list[ConflictVerdict] = self._timed("judge", lambda: self.inner.judge(candidate, existing))
        return result  # the inner model's one batched call, not one classify_conflict per pair

    def implied_terms(self, candidate: str) -> list[str]:
        return self.inner.implied_terms(candidate)

    def lookup_terms(self, turn: str) -> list[str]:
        return self.inner.lookup_terms(turn)

    def summarize_session(self, messages: Sequence[ChatMessage]) -> SessionDigest | None:
        result: SessionDigest | None = self._timed(
            "summarize_session", lambda: self.inner.summarize_session(messages)
        )
        return result


def instrument_embedder(memory: Memory, metrics: ServerMetrics) -> None:
    """Time the memory's embedder (search and formation share it)."""
    if not isinstance(memory.embedder, TimedEmbedder):
        timed = TimedEmbedder(memory.embedder, metrics.embed)
        memory.embedder = timed
        memory.formation.embedder = timed


class RequestTimer:
    """Pure ASGI middleware (streams pass through untouched): observes the time to response start."""

    def __init__(self, app: ASGIApp, metrics: ServerMetrics) -> None:
        self.app, self.metrics = app, metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        seen = False

        async def timed_send(message: Message) -> None:
            nonlocal seen
            if message["type"] == "http.response.start" and not seen:
                seen = True
                route = getattr(scope.get("route"), "path", "unmatched")
                self.metrics.requests.labels(scope["method"], route, str(message["status"])).observe(
                    time.perf_counter() - start
                )
            await send(message)

        await self.app(scope, receive, timed_send)
