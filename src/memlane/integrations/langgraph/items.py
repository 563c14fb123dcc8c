"""LangGraph items as memlane records, and back (the mapping is described in ``store.py``)."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memlane.model.category import normalise_category
from memlane.model.enums import MemoryType, Source
from memlane.model.ids import deterministic_id, is_valid_user_id
from memlane.model.record import MemoryRecord
from memlane.model.text import strip_controls

LG = "langgraph"  # the record.metadata entry a store-written record carries
HASHED_SCOPE = "lg:"  # user scopes of namespaces whose first label is not a valid user id
TYPES = frozenset(t.value for t in MemoryType)
# Where a value's human text lives: memlane's summary, LangMem's content (plain or "kind": "Memory").
SUMMARY_PATHS: tuple[tuple[str, ...], ...] = (("summary",), ("content",), ("content", "content"), ("text",))

Namespace = tuple[str, ...]


def scope_user(label: str) -> str:
    """The memlane user a namespace's first label names: itself when it is a valid user id, else a
    stable hash of it (``lg:<hex>``), so any label works and tenancy still holds per label."""
    if is_valid_user_id(label):
        return label
    return HASHED_SCOPE + hashlib.sha256(label.encode("utf-8")).hexdigest()[:40]


def namespace_type(namespace: Sequence[str]) -> MemoryType | None:
    """``(user, "semantic", ...)``: the second label fixes the record type when it names one."""
    return MemoryType(namespace[1]) if len(namespace) >= 2 and namespace[1] in TYPES else None


def user_position(spec: int | Sequence[str]) -> int:
    """The namespace label that names the user: an index, or a template such as LangMem's
    ``("memories", "{user_id}")`` whose ``{...}`` label marks it."""
    if isinstance(spec, int) and not isinstance(spec, bool):
        if spec < 0:
            raise ValueError(f"user_namespace_index must be 0 or more, got {spec}")
        return spec
    if isinstance(spec, str) or not isinstance(spec, Sequence):
        raise ValueError(f"user_namespace_index must be an index or a namespace template, got {spec!r}")
    marked = [
        n
        for n, label in enumerate(spec)
        if isinstance(label, str) and label.startswith("{") and label.endswith("}")
    ]
    if len(marked) != 1:
        raise ValueError(
            f"namespace template {tuple(spec)!r} must have exactly one '{{...}}' label for the user"
        )
    return marked[0]


def record_id(namespace: Namespace, key: str, user: str | None = None) -> tuple[str, str]:
    """``(user, id)`` of an item of ``user`` (default: the one the first label names). ``(user, type)``
    namespaces use memlane's keyed id ``uuid5(user|type::key)`` (the id a keyed put gets), so the store
    and ``Memory.put(key=...)`` address one record; other namespaces hash the whole path, which cannot
    collide across namespaces."""
    user = user or scope_user(namespace[0])
    if len(namespace) == 2 and namespace[1] in TYPES and scope_user(namespace[0]) == user:
        return user, deterministic_id(user, namespace[1], key)
    return user, str(uuid.uuid5(uuid.NAMESPACE_URL, json.dumps([*namespace, key], ensure_ascii=False)))


def address(record: MemoryRecord) -> tuple[Namespace, str]:
    """The (namespace, key) a record shows under: where the store wrote it, else
    ``(user_id, type)`` with the memory's key (or its id when it has none)."""
    meta = record.metadata.get(LG)
    if isinstance(meta, dict) and "ns" in meta:
        return tuple(meta["ns"]), str(meta["key"])
    return (record.user_id, record.type.value), record.key or record.id


def store_meta(record: MemoryRecord) -> dict[str, Any] | None:
    meta = record.metadata.get(LG)
    return meta if isinstance(meta, dict) and "ns" in meta else None


def _at(value: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    return value


def summary_source(value: dict[str, Any], max_chars: int) -> tuple[tuple[str, ...] | None, str | None]:
    for path in SUMMARY_PATHS:
        text = _at(value, path)
        if isinstance(text, str) and text.strip():
            return path, " ".join(strip_controls(text).split())[:max_chars]
    return None, None


def _tags(value: Any) -> list[str] | None:
    if isinstance(value, list) and all(isinstance(t, str) and t.strip() for t in value):
        return list(dict.fromkeys(t.strip() for t in value))
    return None


def _importance(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 5 else None


@dataclass(frozen=True)
class Derived:
    """The record fields a value sets (the rest of the value lives in metadata, verbatim)."""

    summary: str
    category: str
    tags: list[str]
    entities: list[str]
    importance: int
    pinned: bool
    source: Source
    type: MemoryType


def derive(
    value: dict[str, Any],
    namespace: Namespace,
    texts: Sequence[str],
    categories: Sequence[str],
    max_chars: int,
) -> Derived:
    _, summary = summary_source(value, max_chars)
    if summary is None:
        summary = strip_controls(
            texts[0] if texts else json.dumps(value, sort_keys=True, ensure_ascii=False)
        )[:max_chars]
    raw_type, raw_source = value.get("type"), value.get("source")
    mtype = namespace_type(namespace) or (MemoryType(raw_type) if raw_type in TYPES else MemoryType.SEMANTIC)
    category, pinned = value.get("category"), value.get("pinned")
    return Derived(
        summary=summary,
        category=normalise_category(category if isinstance(category, str) else None, categories),
        tags=_tags(value.get("tags")) or [],
        entities=_tags(value.get("entities")) or [],
        importance=_importance(value.get("importance")) or 3,
        pinned=pinned if isinstance(pinned, bool) else False,
        source=Source(raw_source) if raw_source in {s.value for s in Source} else Source.EXTERNAL,
        type=mtype,
    )


def item_value(record: MemoryRecord, categories: Sequence[str], max_chars: int) -> dict[str, Any]:
    """The value an item shows. A store-written record returns the value as put, except fields memlane
    has changed since (a merge's new summary, an edited category): those show the record's values."""
    meta = store_meta(record)
    if meta is None:
        return native_value(record)
    value: dict[str, Any] = meta["value"]
    path, summary = summary_source(value, max_chars)
    if path is not None and summary != record.summary:
        parent = _at(value, path[:-1]) if len(path) > 1 else value
        parent[path[-1]] = record.summary
    raw = value.get("category")
    if isinstance(raw, str) and normalise_category(raw, categories) != record.category:
        value["category"] = record.category
    if _tags(value.get("tags")) not in (None, record.tags):
        value["tags"] = list(record.tags)
    if _importance(value.get("importance")) not in (None, record.importance):
        value["importance"] = record.importance
    if isinstance(value.get("pinned"), bool) and value["pinned"] != record.pinned:
        value["pinned"] = record.pinned
    return value


def native_value(r: MemoryRecord) -> dict[str, Any]:
    """The item value of a memory memlane formed itself: the record's fields, times in ISO 8601."""
    return {
        "id": r.id,
        "user_id": r.user_id,
        "type": r.type.value,
        "summary": r.summary,
        "category": r.category,
        "tags": list(r.tags),
        "entities": list(r.entities),
        "importance": r.importance,
        "pinned": r.pinned,
        "source": r.source.value,
        "key": r.key,
        "created_at": r.created_at.isoformat(),
        "updated_at": r.updated_at.isoformat(),
        "last_accessed": r.last_accessed.isoformat() if r.last_accessed else None,
    }
