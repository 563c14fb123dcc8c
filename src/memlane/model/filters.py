"""Metadata filters: parse a user's filter dict into validated conditions.

Shape: ``{"category": "Finance", "importance": {"$gte": 3}, "tags": {"$in": ["a", "b"]},
"updated_after": "2026-01-01"}``. A bare value means ``$eq`` (a bare list means ``$in``). An unknown
field or operator is a :class:`FilterError`, never silently ignored. Backends compile the conditions
to SQL (``storage/filter_sql.py``) so filtering happens in the database.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from typing import Any, Literal

from memlane.model.enums import MemoryState, MemoryType, Source
from memlane.model.errors import FilterError
from memlane.model.record import as_utc
from memlane.model.text import check_text

Kind = Literal["str", "int", "bool", "datetime", "tags", "type", "state", "source"]

FIELDS: dict[str, Kind] = {
    "id": "str",
    "type": "type",
    "category": "str",
    "state": "state",
    "source": "source",
    "key": "str",
    "agent_id": "str",
    "run_id": "str",
    "actor_id": "str",
    "thread_id": "str",
    "chat_id": "str",
    "source_ref": "str",
    "superseded_by": "str",
    "pinned": "bool",
    "importance": "int",
    "tags": "tags",
    "created_at": "datetime",
    "updated_at": "datetime",
    "valid_from": "datetime",
    "last_accessed": "datetime",
    "purge_at": "datetime",
    "date_iso": "str",
    "week": "int",
    "year": "int",
}
OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin")
SHORTHANDS: dict[str, tuple[str, str]] = {
    "importance_min": ("importance", "$gte"),
    "importance_max": ("importance", "$lte"),
    "updated_after": ("updated_at", "$gte"),
    "updated_before": ("updated_at", "$lt"),
    "created_after": ("created_at", "$gte"),
    "created_before": ("created_at", "$lt"),
}
# Filter fields other libraries have that memlane's records cannot answer, and why
NOT_FILTERS = {
    "role": "memories have no message role: memlane keeps what the user said and never stores the "
    "assistant's words as memories; filter on source (chat, external, system), actor_id or "
    "agent_id instead"
}
_ORDERED_KINDS = {"int", "datetime", "str"}
UNEXPIRED = "$unexpired"  # not a filter operator users write: ``expires_at`` is null or after the value


@dataclass(frozen=True)
class Condition:
    field: str
    op: str
    value: Any


def live(now: datetime | None = None) -> list[Condition]:
    """What a read of current memories asks for: active, and not past ``expires_at`` (at ``now``).
    Expired memories are left out in the database query, like soft-deleted ones."""
    return [
        Condition("state", "$eq", MemoryState.ACTIVE.value),
        Condition("expires_at", UNEXPIRED, as_utc(now or datetime.now(UTC))),
    ]


def _coerce_one(field: str, kind: Kind, value: Any) -> Any:
    try:
        if kind == "type":
            return MemoryType(value).value
        if kind == "state":
            return MemoryState(value).value
        if kind == "source":
            return Source(value).value
        if kind == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in ("true", "false"):
                return value.lower() == "true"
            raise ValueError("expected true or false")
        if kind == "int":
            if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                raise ValueError("expected an integer")
            number = int(value)
            if not -(2**63) <= number < 2**63:
                raise ValueError("out of range")
            return number
        if kind == "datetime":
            if isinstance(value, datetime):
                return as_utc(value)
            if isinstance(value, date):
                return as_utc(datetime.combine(value, time.min))
            return as_utc(datetime.fromisoformat(str(value).replace("Z", "+00:00")))
        if not isinstance(value, str):
            raise ValueError("expected a string")
        return check_text("the text", value)
    except (ValueError, TypeError, OverflowError) as exc:
        raise FilterError(f"filter {field!r}: invalid value {value!r} ({exc})") from None


def _conditions_for(field: str, spec: Any) -> list[Condition]:
    if field in NOT_FILTERS:
        raise FilterError(f"filter {field!r} is not supported: {NOT_FILTERS[field]}")
    if field not in FIELDS:
        raise FilterError(
            f"unknown filter field {field!r}; known fields: {', '.join(sorted([*FIELDS, *SHORTHANDS]))}"
        )
    kind = FIELDS[field]
    if isinstance(spec, Mapping):
        if not spec:
            raise FilterError(f"filter {field!r}: empty operator object")
        ops = dict(spec)
    elif isinstance(spec, list | tuple | set):
        ops = {"$in": list(spec)}
    else:
        ops = {"$eq": spec}
    out: list[Condition] = []
    for op, raw in ops.items():
        if op not in OPERATORS:
            raise FilterError(f"filter {field!r}: unknown operator {op!r}; use one of {', '.join(OPERATORS)}")
        if op in ("$gt", "$gte", "$lt", "$lte") and kind not in _ORDERED_KINDS:
            raise FilterError(f"filter {field!r}: operator {op} needs an ordered field (numbers, dates)")
        if op in ("$in", "$nin"):
            if not isinstance(raw, list | tuple | set) or not raw:
                raise FilterError(f"filter {field!r}: {op} needs a non-empty list")
            value: Any = [_coerce_one(field, kind if kind != "tags" else "str", v) for v in raw]
        elif raw is None:
            if op not in ("$eq", "$ne") or kind in ("tags", "type", "state"):
                raise FilterError(f"filter {field!r}: null is only allowed with $eq/$ne on optional fields")
            value = None
        else:
            value = _coerce_one(field, kind if kind != "tags" else "str", raw)
        out.append(Condition(field, op, value))
    return out


def parse_filters(filters: Mapping[str, Any] | None, *, user_id: str | None = None) -> list[Condition]:
    """Validate ``filters`` and return its conditions. ``user_id`` is the scope, never a filter:
    a ``user_id`` entry is accepted only when it names the same user."""
    if filters is None:
        return []
    if not isinstance(filters, Mapping):
        raise FilterError(f"filters must be an object mapping field to value, got {type(filters).__name__}")
    out: list[Condition] = []
    for field, spec in filters.items():
        if field == "user_id":
            if spec != user_id:
                raise FilterError("filters.user_id must equal the user scope; search one user at a time")
            continue
        if field in SHORTHANDS:
            if spec is None:
                continue
            target, op = SHORTHANDS[field]
            out.append(Condition(target, op, _coerce_one(field, FIELDS[target], spec)))
            continue
        out.extend(_conditions_for(field, spec))
    return out
