"""Contextualized embeddings: what is embedded for a memory and for a query.

With ``MEMORY_EMBEDDING_HEADER`` on, a memory's summary is embedded with a short header built from
``MEMORY_EMBEDDING_HEADER_FIELDS`` (in this order, those the memory has):

- ``context``: ``metadata["context"]``, e.g. the message the memory's message answered, on its own line
- ``time``: the day it happened (``valid_from`` in the user's time zone), "On 8 May 2023"
- ``thread``: ``thread <thread_id>``
- ``topic``: the category, when it is not ``Other``
- ``speaker``: ``actor_id`` before the summary, ``"Caroline: ..."`` (not repeated when the summary
  already starts with it)

A query gets the same header from what the question has: its thread (when the search is scoped to
one) and its topic (when scoped to one category). Speaker, time and context describe a memory, not a
question, so a question carries none. With the header off, the summary alone is embedded.
"""

from __future__ import annotations

from collections.abc import Sequence

from memlane.model.config import Settings
from memlane.model.record import MemoryRecord
from memlane.model.time_buckets import zone

FIELDS = ("context", "time", "thread", "topic", "speaker")
CONTEXT_MAX_CHARS = 400


def header_fields(settings: Settings) -> tuple[str, ...]:
    if not settings.memory_embedding_header:
        return ()
    unknown = [f for f in settings.memory_embedding_header_fields if f not in FIELDS]
    if unknown:
        raise ValueError(
            f"unknown MEMORY_EMBEDDING_HEADER_FIELDS {', '.join(unknown)}; use {', '.join(FIELDS)}"
        )
    return tuple(f for f in FIELDS if f in settings.memory_embedding_header_fields)


def header_signature(settings: Settings) -> str:
    """Names what is embedded (for ``reembed`` to notice a change): ``summary`` or ``header:f1,f2``."""
    fields = header_fields(settings)
    return "header:" + ",".join(fields) if fields else "summary"


def _line(fields: Sequence[str], thread: str | None, topic: str | None, day: str | None) -> str:
    parts = []
    if "time" in fields and day:
        parts.append(f"On {day}")
    if "thread" in fields and thread:
        parts.append(f"thread {thread}")
    if "topic" in fields and topic and topic != "Other":
        parts.append(f"topic {topic}")
    return ", ".join(parts)


def memory_text(record: MemoryRecord, settings: Settings) -> str:
    """The text embedded for ``record``."""
    fields = header_fields(settings)
    if not fields:
        return record.summary
    lines = []
    context = record.metadata.get("context") if "context" in fields else None
    if isinstance(context, str) and context.strip():
        lines.append(" ".join(context.split())[:CONTEXT_MAX_CHARS])
    day = None
    if record.valid_from is not None:
        local = record.valid_from.astimezone(zone(settings.timezone))
        day = f"{local.day} {local:%B %Y}"
    head = _line(fields, record.thread_id, record.category, day)
    body = record.summary
    speaker = record.actor_id if "speaker" in fields else None
    if speaker and not body.startswith(f"{speaker}:"):
        body = f"{speaker}: {body}"
    lines.append(f"{head}. {body}" if head else body)
    return "\n".join(lines)


def query_text(
    query: str, settings: Settings, *, thread_id: str | None = None, topic: str | None = None
) -> str:
    """The text embedded for a question: the header fields a question can have, then the question."""
    head = _line(header_fields(settings), thread_id, topic, None)
    return f"{head}. {query}" if head else query
