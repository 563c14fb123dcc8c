"""LangGraph items as S3 Vectors vectors, and back (the seed's layout; see ``s3v_store.py``).

One vector per item, keyed ``uuid5(NAMESPACE_URL, "ns_0|ns_1|...::key")``. Its metadata:

- filterable (2 KB in all): ``doc_key`` (the item key), ``namespace`` (the labels, a list),
  ``ns_depth``, ``ns_0``, ``ns_1``, ... (one per label), ``created_at`` and ``updated_at`` (ISO 8601,
  UTC), ``is_indexed`` (false for ``index=False`` items, whose vector is a placeholder), and the value's
  top-level fields named in ``filterable_fields`` (``category`` by default) when they hold a string,
  number, boolean or list of those;
- non-filterable: ``value_json``, the whole value as JSON (up to the 40 KB metadata cap).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import NAMESPACE_URL, uuid5

from memlane.model.errors import BackendError, ValidationError

VALUE_JSON = "value_json"
NON_FILTERABLE = (VALUE_JSON,)
SYSTEM = frozenset({"doc_key", "namespace", "ns_depth", "created_at", "updated_at", "is_indexed", VALUE_JSON})

Namespace = tuple[str, ...]


def join_namespace(namespace: Sequence[str]) -> str:
    return "|".join(namespace)


def point_key(namespace: Sequence[str], key: str) -> str:
    """The vector key of an item: deterministic, so a put is idempotent per ``(namespace, key)``."""
    return str(uuid5(NAMESPACE_URL, f"{join_namespace(namespace)}::{key}"))


def utc_now_iso() -> str:
    return datetime.now(UTC).isoformat()


def check_filterable_fields(fields: Sequence[str]) -> list[str]:
    bad = [f for f in fields if f in SYSTEM or f.startswith("ns_") or not f]
    if bad:
        raise ValidationError(f"filterable field {bad[0]!r} is a name the store uses for itself")
    return list(fields)


def metadata(
    namespace: Namespace,
    key: str,
    value: Mapping[str, Any],
    *,
    is_indexed: bool,
    created_at: str,
    updated_at: str,
    filterable_fields: Sequence[str],
) -> dict[str, Any]:
    try:
        value_json = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError) as e:
        raise ValidationError(f"item {key!r}: the value must be JSON-serialisable ({e})") from e
    meta: dict[str, Any] = {"doc_key": key, "namespace": list(namespace), "ns_depth": len(namespace)}
    meta.update((f"ns_{n}", label) for n, label in enumerate(namespace))
    meta.update(created_at=created_at, updated_at=updated_at, is_indexed=is_indexed)
    for field in filterable_fields:
        if _flat(value.get(field)):
            meta[field] = value[field]
    meta[VALUE_JSON] = value_json
    return meta


def _flat(v: Any) -> bool:
    if isinstance(v, list):
        return bool(v) and all(isinstance(x, str | int | float | bool) for x in v)
    return isinstance(v, str | int | float | bool)


@dataclass(frozen=True)
class StoredItem:
    namespace: Namespace
    key: str
    value: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    is_indexed: bool


def read(meta: Mapping[str, Any] | None) -> StoredItem:
    """The item a vector's metadata holds; a BackendError names what is missing."""
    if not isinstance(meta, Mapping):
        raise BackendError(
            "an S3 Vectors vector came back without metadata; was it written by S3VectorsStore?"
        )
    try:
        depth = int(meta["ns_depth"])
        namespace = tuple(str(meta[f"ns_{n}"]) for n in range(depth))
        value = json.loads(meta[VALUE_JSON])
        return StoredItem(
            namespace,
            str(meta["doc_key"]),
            value,
            _when(meta["created_at"]),
            _when(meta["updated_at"]),
            bool(meta.get("is_indexed", False)),
        )
    except (KeyError, TypeError, ValueError) as e:
        raise BackendError(
            f"an S3 Vectors vector's metadata is not an item's ({e}); was it written by S3VectorsStore?"
        ) from e


def _when(text: Any) -> datetime:
    when = datetime.fromisoformat(str(text))
    return when if when.tzinfo else when.replace(tzinfo=UTC)
