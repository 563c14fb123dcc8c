"""Convert between records and SQLite rows (JSON text for lists/dicts, ISO text for times)."""

from __future__ import annotations

import json
import struct
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from memlane.model.enums import MemoryState, MemoryType, Source
from memlane.model.record import HistoryEntry, MemoryRecord, Relation
from memlane.storage.filter_sql import iso

JSON_FIELDS = ("tags", "entities", "merged_from", "related", "metadata")
RECORD_FIELDS: tuple[str, ...] = tuple(MemoryRecord.model_fields)


def _enum(value: Any) -> Any:
    return value.value


_ENUMS: dict[str, type[Any]] = {"type": MemoryType, "source": Source, "state": MemoryState}
_TIMES = frozenset(
    f for f, info in MemoryRecord.model_fields.items() if info.annotation in (datetime, datetime | None)
)


def _dumps(value: Any) -> str:
    return json.dumps(value) if value else "[]" if isinstance(value, list) else "{}"  # most are empty


def _json(text: str) -> Any:
    return [] if text == "[]" else {} if text == "{}" else json.loads(text)  # most are empty


Convert = Callable[[Any], Any] | None  # None: the value as it is


def _codec(name: str) -> tuple[Convert, Convert]:
    """How a record field becomes an SQLite value, and back."""
    if name in JSON_FIELDS:
        return _dumps, _json
    if name == "pinned":
        return int, bool
    if name in _ENUMS:
        return _enum, _ENUMS[name]
    if name in _TIMES:
        return iso, datetime.fromisoformat  # UTC ISO text, see iso()
    return None, None


_CONVERTERS = [(f, _codec(f)[0]) for f in RECORD_FIELDS]
_READERS = [(f, _codec(f)[1]) for f in RECORD_FIELDS]


def vector_blob(embedding: Sequence[float]) -> bytes:
    """sqlite-vec's float32 blob. A numpy vector is copied as it is: going through a Python float per
    element cost 15 us; a list is packed directly (numpy's conversion of a list is slower)."""
    if isinstance(embedding, np.ndarray):
        return embedding.astype(np.float32, copy=False).tobytes()
    return struct.pack(f"{len(embedding)}f", *embedding)


def record_params(record: MemoryRecord) -> list[Any]:
    values = record.__dict__
    return [values[f] if conv is None or values[f] is None else conv(values[f]) for f, conv in _CONVERTERS]


def record_from_row(row: Any) -> MemoryRecord:
    """A record from a row whose last columns are :data:`RECORD_FIELDS` in order (every query selects
    them last). Values are converted here, by position: pydantic then only checks them, which is
    several times cheaper than parsing text (search decodes dozens of rows per query)."""
    values = row[len(row) - len(RECORD_FIELDS) :]
    return MemoryRecord.model_validate(
        {
            f: v if read is None or v is None else read(v)
            for (f, read), v in zip(_READERS, values, strict=True)
        }
    )


def history_params(entry: HistoryEntry) -> list[Any]:
    return [
        entry.id,
        entry.memory_id,
        entry.user_id,
        entry.event.value,
        None if entry.old_value is None else json.dumps(entry.old_value),
        None if entry.new_value is None else json.dumps(entry.new_value),
        entry.reason,
        entry.actor,
        iso(entry.at),
    ]


def history_from_row(row: Any) -> HistoryEntry:
    return HistoryEntry(
        id=row["id"],
        memory_id=row["memory_id"],
        user_id=row["user_id"],
        event=row["event"],
        old_value=None if row["old_value"] is None else json.loads(row["old_value"]),
        new_value=None if row["new_value"] is None else json.loads(row["new_value"]),
        reason=row["reason"],
        actor=row["actor"],
        at=datetime.fromisoformat(row["at"]),
    )


def relation_from_row(row: Any) -> Relation:
    return Relation(
        from_id=row["from_id"],
        to_id=row["to_id"],
        user_id=row["user_id"],
        relation_type=row["relation_type"],
        strength=row["strength"],
        created_at=datetime.fromisoformat(row["created_at"]),
    )
