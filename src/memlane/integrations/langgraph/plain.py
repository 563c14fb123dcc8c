"""The memory tools and nodes over a plain LangGraph ``BaseStore`` (``S3VectorsStore``, LangGraph's
``InMemoryStore``, ``PostgresStore``, ...): the path taken when the graph's store is not memlane's.

Items live in the namespaces the integration uses for memlane's own memories, ``(user_id, "semantic")``
and ``(user_id, "episodic")``; the value is ``{"summary", "type", "category", "tags", "importance",
"pinned", "source", "thread_id"}``, put with ``index=["summary"]``, so a store with an index config
(or ``S3VectorsStore``, which embeds ``summary``) searches it by meaning. Only the ``BaseStore`` API is
used: ``search``, ``put``, ``get``.

What a plain store cannot do, since it has no memlane engine behind it:

- **no formation**: nothing is extracted, deduplicated, merged or superseded; a put writes exactly the
  summary it is given (a put with the same key replaces the item, the only way to correct one);
- **no history**: an update overwrites the item; there is no previous version, no actor, no restore;
- **ranking** is the store's own (its vector similarity), not memlane's rerank (keyword, importance,
  recency, pinned); a search with no query lists only where the store can (``S3VectorsStore``
  returns nothing);
- **no** ``memory_query``, ``procedure_save``, consent, shared memories or ``memory.*`` events;
- the nodes: ``memory_hotpath`` forms nothing; ``memory_context`` adds the best matches of the user's
  semantic and episodic items as a plain bullet list (no delta header, ``memory_rev`` untouched);
  ``episodic_capture`` keeps every finished turn that has an answer as one episodic item (no outcome
  filter, no merging of a thread's turns), its text cut to :data:`TURN_CHARS` characters.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from langgraph.store.base import BaseStore, Item, SearchItem

from memlane.model.category import normalise_category
from memlane.model.enums import MemoryType
from memlane.model.errors import NotFoundError, ValidationError

TURN_CHARS = 2000  # an episodic item's text at most (S3 Vectors' metadata cap and Titan's input)
CONTEXT_HEADER = "What you remember about the user (from the memory store):"


def namespace(user: str, mtype: MemoryType) -> tuple[str, str]:
    return (user, mtype.value)


def _when(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def as_dict(item: Item, score: float | None = None) -> dict[str, Any]:
    """An item as the tools show it: the same keys as a memlane memory (the key doubles as the id)."""
    value = item.value or {}
    out = {
        "key": item.key,
        "id": item.key,
        "type": value.get("type") or (item.namespace[1] if len(item.namespace) > 1 else None),
        "category": value.get("category"),
        "summary": value.get("summary"),
        "shared_by": None,
        "tags": list(value.get("tags") or []),
        "importance": value.get("importance"),
        "pinned": bool(value.get("pinned", False)),
        "created_at": _when(item.created_at),
        "updated_at": _when(item.updated_at),
    }
    return out if score is None else {**out, "score": round(score, 4)}


def search(
    store: BaseStore, user: str, mtype: MemoryType, query: str | None, topic: str | None, limit: int
) -> list[dict[str, Any]]:
    """The user's items of ``mtype`` best matching ``query`` (the store's listing when there is none)."""
    filters = {"category": normalise_category(topic)} if topic else None
    hits: list[SearchItem] = store.search(
        namespace(user, mtype), query=query or None, filter=filters, limit=limit
    )
    return [as_dict(h, h.score) for h in hits]


def put(
    store: BaseStore,
    user: str,
    mtype: MemoryType,
    summary: str,
    *,
    category: str | None = None,
    key: str | None = None,
    thread_id: str | None = None,
) -> dict[str, Any]:
    """Write one item (a new key when none is given; the same key replaces the item)."""
    if not summary or not summary.strip():
        raise ValidationError("a memory needs a summary: 1-2 sentences about the user")
    value: dict[str, Any] = {
        "summary": summary.strip(),
        "type": mtype.value,
        "category": normalise_category(category),
        "tags": [],
        "importance": 3,
        "pinned": False,
        "source": "chat",
        "thread_id": thread_id,
    }
    return _write(store, namespace(user, mtype), key or uuid.uuid4().hex, value)


def _write(store: BaseStore, ns: tuple[str, str], key: str, value: dict[str, Any]) -> dict[str, Any]:
    store.put(ns, key, value, index=["summary"])
    item = store.get(ns, key)
    if item is None:  # a store that loses a put it acknowledged: say so, never pretend
        raise NotFoundError(f"the store did not keep the item {key!r} it was given in {ns!r}")
    return as_dict(item)


def update(
    store: BaseStore,
    user: str,
    mtype: MemoryType,
    key: str,
    *,
    summary: str | None = None,
    category: str | None = None,
) -> dict[str, Any]:
    """Change an item's summary and/or category (``get``, then ``put`` of the changed value)."""
    ns = namespace(user, mtype)
    item = store.get(ns, key)
    if item is None:
        raise NotFoundError(f"no {mtype.value} memory with key {key!r}; search for it first")
    value = dict(item.value)
    if summary is not None:
        if not summary.strip():
            raise ValidationError("a memory's summary cannot be empty")
        value["summary"] = summary.strip()
    if category is not None:
        value["category"] = normalise_category(category)
    return _write(store, ns, key, value)


def context_text(store: BaseStore, user: str, query: str, limit: int = 5) -> str:
    """A context block: the best matching semantic and episodic items, as bullets ("" when none)."""
    found: list[dict[str, Any]] = []
    for mtype in (MemoryType.SEMANTIC, MemoryType.EPISODIC):
        found.extend(search(store, user, mtype, query, None, limit))
    found.sort(key=lambda d: -(d.get("score") or 0.0))
    lines = [
        f"- [{(d['category'] or 'other').lower()}] {d['summary']}" for d in found[:limit] if d["summary"]
    ]
    return "\n".join([CONTEXT_HEADER, *lines]) if lines else ""


def capture_turn(
    store: BaseStore, user: str, turn: list[dict[str, str]], *, thread_id: str | None = None
) -> dict[str, Any] | None:
    """Keep a finished turn (user message to answer) as one episodic item; None when it had no answer."""
    said = next((m["content"] for m in turn if m["role"] == "user"), "")
    answers = [m["content"] for m in turn if m["role"] == "assistant"]
    if not said or not answers:
        return None
    text = f"User said: {said.strip()}\nAssistant answered: {answers[-1].strip()}"
    if len(text) > TURN_CHARS:
        text = text[: TURN_CHARS - 3].rstrip() + "..."
    return put(store, user, MemoryType.EPISODIC, text, category="Conversation_Summary", thread_id=thread_id)
