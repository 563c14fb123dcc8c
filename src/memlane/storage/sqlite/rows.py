"""Convert between records and SQLite rows (JSON text for lists/dicts, ISO text for times)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from memlane.model.record import HistoryEntry, MemoryRecord, Relation
from memlane.storage.filter_sql import iso

JSON_FIELDS = ("tags", "entities", "merged_from", "related", "metadata")
RECORD_FIELDS: tuple[str, ...] = tuple(MemoryRecord.model_fields)


def _cell(value: Any) -> Any:
    if isinstance(value, datetime):
        return iso(value)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, list | dict):
        return json.dumps(value)
    if hasattr(value, "value"):  # enums
        return value.value
    return value


def record_params(record: MemoryRecord) -> list[Any]:
    return [_cell(getattr(record, f)) for f in RECORD_FIELDS]


def record_from_row(row: Any) -> MemoryRecord:
    data = {f: row[f] for f in RECORD_FIELDS}
    for f in JSON_FIELDS:
        data[f] = json.loads(data[f]) if data[f] else ([] if f != "metadata" else {})
    data["pinned"] = bool(data["pinned"])
    return MemoryRecord.model_validate(data)


def history_params(entry: HistoryEntry) -> list[Any]:
    return [
        entry.id, entry.memory_id, entry.user_id, entry.event.value,
        None if entry.old_value is None else json.dumps(entry.old_value),
        None if entry.new_value is None else json.dumps(entry.new_value),
        entry.reason, entry.actor, iso(entry.at),
    ]


def history_from_row(row: Any) -> HistoryEntry:
    return HistoryEntry(
        id=row["id"], memory_id=row["memory_id"], user_id=row["user_id"], event=row["event"],
        old_value=None if row["old_value"] is None else json.loads(row["old_value"]),
        new_value=None if row["new_value"] is None else json.loads(row["new_value"]),
        reason=row["reason"], actor=row["actor"], at=datetime.fromisoformat(row["at"]),
    )


def relation_from_row(row: Any) -> Relation:
    return Relation(
        from_id=row["from_id"], to_id=row["to_id"], user_id=row["user_id"],
        relation_type=row["relation_type"], strength=row["strength"],
        created_at=datetime.fromisoformat(row["created_at"]),
    )
