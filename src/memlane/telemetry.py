"""OpenTelemetry spans for search, formation and background work (docs/observability.md).

memlane depends on ``opentelemetry-api`` only: without an SDK configured by the application every span
is a no-op. Spans carry counts and closed vocabularies (a job's kind, a decision's action, a task's
name), never user ids, memory text or queries; an error is recorded as its exception type alone
(an exception's message may quote the text it refused).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from opentelemetry import trace
from opentelemetry.trace import Span, Status, StatusCode

from memlane import __version__

PREFIX = "memlane."
# The only string attributes a span may carry: names from closed vocabularies, never free text.
WORDS = frozenset({"kind", "action", "task", "type", "embedder", "backend"})

__all__ = ["Span", "failed", "record", "span"]

tracer = trace.get_tracer("memlane", __version__)


def _attributes(values: dict[str, int | float | bool | str | None]) -> dict[str, int | float | bool | str]:
    out: dict[str, int | float | bool | str] = {}
    for name, value in values.items():
        if value is None:
            continue
        if isinstance(value, str) and name not in WORDS:
            raise TypeError(f"span attribute {name!r} takes a number: free text never goes into a span")
        out[PREFIX + name] = value
    return out


def record(span: Span, **values: int | float | bool | str | None) -> None:
    """Add counts (or a word from a closed vocabulary, for the names in ``WORDS``) to ``span``."""
    span.set_attributes(_attributes(values))


def failed(
    exc: BaseException, current: Span | None = None, **values: int | float | bool | str | None
) -> None:
    """Mark ``current`` (default: the active span) failed with the exception's type, plus counts."""
    current = current or trace.get_current_span()
    current.set_status(Status(StatusCode.ERROR))
    current.set_attribute("error.type", type(exc).__name__)
    record(current, **values)


@contextmanager
def span(name: str, **values: int | float | bool | str | None) -> Iterator[Span]:
    """A span named ``memlane.<name>`` around the block; an exception marks it failed, by type only."""
    with tracer.start_as_current_span(
        PREFIX + name, attributes=_attributes(values), record_exception=False, set_status_on_exception=False
    ) as current:
        try:
            yield current
        except BaseException as exc:
            failed(exc, current)
            raise
