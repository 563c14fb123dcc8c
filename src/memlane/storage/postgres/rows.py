"""Convert between records and PostgreSQL rows (``text[]`` lists, ``jsonb`` dicts, ``timestamptz``)."""

from __future__ import annotations

from enum import Enum
from typing import Any

from psycopg.types.json import Jsonb
from pydantic_core import to_jsonable_python

from memlane.model.record import HistoryEntry, MemoryRecord, Relation, as_utc

RECORD_FIELDS: tuple[str, ...] = tuple(MemoryRecord.model_fields)
RECORD_COLUMNS = ", ".join(f"m.{f}" for f in RECORD_FIELDS)  # for SELECTs aliasing memories as m
_ARRAY_FIELDS = {"tags", "entities", "merged_from", "related"}

# `%s::text[]` so an empty list is typed; psycopg cannot infer an element type from [].
_VALUES = ", ".join("%s::text[]" if f in _ARRAY_FIELDS else "%s" for f in RECORD_FIELDS)
_UPDATES = ", ".join(f"{f} = EXCLUDED.{f}" for f in RECORD_FIELDS if f != "id")
# The WHERE keeps an id owned by another user untouched; RETURNING then yields no row for it.
UPSERT_RECORD = (
    f"INSERT INTO memories ({', '.join(RECORD_FIELDS)}) VALUES ({_VALUES}) "
    f"ON CONFLICT (id) DO UPDATE SET {_UPDATES} WHERE memories.user_id = EXCLUDED.user_id RETURNING id"
)
INSERT_HISTORY = (
    "INSERT INTO history (id, memory_id, user_id, event, old_value, new_value, reason, actor, at) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
)
HISTORY_COLUMNS = "id, memory_id, user_id, event, old_value, new_value, reason, actor, at"
INSERT_RELATION = (
    "INSERT INTO relations (from_id, to_id, user_id, relation_type, strength, created_at) "
    "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (from_id, to_id) DO NOTHING"
)
RELATION_COLUMNS = "from_id, to_id, user_id, relation_type, strength, created_at"


def _json(value: dict[str, Any] | None) -> Jsonb | None:
    return None if value is None else Jsonb(to_jsonable_python(value))


def cell(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return _json(value)
    return value


def record_params(record: MemoryRecord) -> list[Any]:
    return [cell(getattr(record, f)) for f in RECORD_FIELDS]


def record_from_row(row: dict[str, Any]) -> MemoryRecord:
    return MemoryRecord.model_validate({f: row[f] for f in RECORD_FIELDS})


def history_params(entry: HistoryEntry) -> list[Any]:
    return [
        entry.id, entry.memory_id, entry.user_id, entry.event.value,
        _json(entry.old_value), _json(entry.new_value), entry.reason, entry.actor, entry.at,
    ]


def history_from_row(row: dict[str, Any]) -> HistoryEntry:
    return HistoryEntry.model_validate(row)


def relation_params(rel: Relation) -> list[Any]:
    return [rel.from_id, rel.to_id, rel.user_id, rel.relation_type, rel.strength, rel.created_at]


def relation_from_row(row: dict[str, Any]) -> Relation:
    # Relation has no UTC validator; psycopg returns the session's time zone.
    return Relation.model_validate({**row, "created_at": as_utc(row["created_at"])})
