"""OpenTelemetry spans, caught with the SDK's in-memory exporter around a real Memory (SQLite, the local
embedder, the rules extractor): search, context, query, formation (extract, decide, capture), jobs and
the periodic tasks each leave a span with counts; no span holds a user id, memory text or a query."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from memlane import Memory
from memlane.model.config import Settings
from memlane.model.record import utcnow
from memlane.telemetry import WORDS, record, span
from tests.formation_helpers import local_embedder

USER = "maya-7f3a"
SECRETS = (USER, "Lisbon", "Luna", "vegetarian", "where does she live", "cook tonight")
EXPORTER = InMemorySpanExporter()


@pytest.fixture(scope="module", autouse=True)
def provider() -> None:
    """The SDK, installed once for the process (OpenTelemetry allows one global provider)."""
    current = trace.get_tracer_provider()
    if not isinstance(current, TracerProvider):
        current = TracerProvider()
        trace.set_tracer_provider(current)
    current.add_span_processor(SimpleSpanProcessor(EXPORTER))


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    EXPORTER.clear()
    yield EXPORTER


def named(found: list[ReadableSpan], name: str) -> list[ReadableSpan]:
    return [s for s in found if s.name == name]


def test_search_formation_and_tasks_leave_spans_with_counts_and_no_text(
    tmp_path: Path, spans: InMemorySpanExporter
) -> None:
    db = str(tmp_path / "otel.db")
    with Memory(db, embedder=local_embedder(), llm="rules", settings=Settings(db=db, worker=False)) as mem:
        mem.add("I live in Lisbon and my cat Luna is 3. I'm vegetarian.", user_id=USER, wait=True)
        mem.add("Luna turned 4 last week.", user_id=USER, wait=True)
        hits = mem.search("where does she live", user_id=USER, limit=5)
        block = mem.context("What should I cook tonight?", user_id=USER)
        result = mem.query("where does she live", user_id=USER, agent="supervisor", top_k=2)
        mem.capture_turn(
            [
                {"role": "user", "content": "I booked the flight to Lisbon for Friday."},
                {"role": "assistant", "content": "Great, it's booked."},
            ],
            user_id=USER,
            wait=True,
        )
        mem.run_tasks()  # seeds the user's runs; none is due before a day has passed
        ran = mem.run_tasks(at=utcnow() + timedelta(days=2))
    found = list(spans.get_finished_spans())

    extract = named(found, "memlane.formation.extract")
    assert [(s.attributes or {}).get("memlane.candidates") for s in extract] == [3, 1]
    decisions = [(s.attributes or {})["memlane.action"] for s in named(found, "memlane.formation.decide")]
    assert decisions[:4] == ["create", "create", "create", "supersede"]  # the capture's episode may follow
    jobs = named(found, "memlane.job")
    kinds = [(s.attributes or {})["memlane.kind"] for s in jobs]
    assert kinds.count("candidate") == len(decisions) and kinds.count("capture") == 1
    decide_parents = {s.parent.span_id for s in named(found, "memlane.formation.decide") if s.parent}
    assert decide_parents <= {s.context.span_id for s in jobs}  # a decision is a child of its job
    (search,) = named(found, "memlane.search")
    assert (search.attributes or {})["memlane.limit"] == 5
    assert (search.attributes or {})["memlane.results"] == len(hits) > 0
    (context,) = named(found, "memlane.context")
    assert (context.attributes or {})["memlane.semantic"] == len(block.semantic) > 0
    (query,) = named(found, "memlane.query")
    assert (query.attributes or {})["memlane.results"] == len(result.items)
    assert len(named(found, "memlane.formation.capture")) == 1
    tasks = named(found, "memlane.task")
    assert len(tasks) == ran and {(s.attributes or {})["memlane.task"] for s in tasks} >= {"ttl", "purge"}

    for s in found:
        for name, value in (s.attributes or {}).items():
            assert name.startswith("memlane.") or name == "error.type"
            if isinstance(value, str):
                assert name.removeprefix("memlane.") in WORDS, (s.name, name, value)
                assert not any(secret.lower() in value.lower() for secret in SECRETS), (s.name, name, value)
        assert not s.events  # no exception messages (they may quote text)


def test_a_failure_marks_its_span_with_the_exception_type_only(spans: InMemorySpanExporter) -> None:
    with pytest.raises(ValueError), span("search", limit=3):
        raise ValueError("summary 'I live in Lisbon' is too long")
    (failed,) = spans.get_finished_spans()
    assert failed.status.status_code is StatusCode.ERROR and not failed.status.description
    assert dict(failed.attributes or {}) == {"memlane.limit": 3, "error.type": "ValueError"}
    assert not failed.events


def test_free_text_cannot_become_an_attribute(spans: InMemorySpanExporter) -> None:
    with span("search") as current, pytest.raises(TypeError, match="free text"):
        record(current, query="where does she live")
    with pytest.raises(TypeError, match="free text"), span("search", user="maya"):
        pass
