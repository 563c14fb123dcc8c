"""Compile filter conditions to a SQL ``WHERE`` fragment, for SQLite and PostgreSQL alike."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from memlane.model.consent import ProposalFilter
from memlane.model.filters import FIELDS, UNEXPIRED, Condition
from memlane.model.session import SessionFilter

_CMP = {"$eq": "=", "$ne": "!=", "$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}
_NOT_NULL = {
    "type",
    "category",
    "state",
    "source",
    "pinned",
    "importance",
    "tags",
    "created_at",
    "updated_at",
}


@dataclass(frozen=True)
class Dialect:
    name: Literal["sqlite", "postgres"]
    placeholder: str  # "?" or "%s"

    def value(self, v: Any) -> Any:
        if self.name == "sqlite":
            if isinstance(v, datetime):
                return iso(v)
            if isinstance(v, bool):
                return int(v)
        return v


SQLITE = Dialect("sqlite", "?")
POSTGRES = Dialect("postgres", "%s")


def iso(value: datetime) -> str:
    """Fixed-width UTC ISO text, so SQLite compares timestamps as strings correctly (naive = UTC)."""
    offset = value.utcoffset()
    if offset is None:
        value = value.replace(tzinfo=UTC)
    elif offset:
        value = value.astimezone(UTC)
    return value.isoformat(timespec="microseconds")


def _tags(cond: Condition, col: str, d: Dialect) -> tuple[str, list[Any]]:
    p = d.placeholder
    values = cond.value if isinstance(cond.value, list) else [cond.value]
    if d.name == "sqlite":
        marks = ",".join(p for _ in values)
        has = f"EXISTS (SELECT 1 FROM json_each({col}) WHERE json_each.value IN ({marks}))"
        params = list(values)
    else:
        has = f"{col} && {p}::text[]"
        params = [list(values)]
    negate = cond.op in ("$ne", "$nin")
    return (f"NOT ({has})" if negate else has), params


def compile_conditions(
    conditions: Sequence[Condition], d: Dialect, *, alias: str = "m"
) -> tuple[str, list[Any]]:
    """``("a = ? AND b IN (?, ?)", [..])``; ``("1=1", [])`` when there is nothing to filter."""
    parts: list[str] = []
    params: list[Any] = []
    p = d.placeholder
    for cond in conditions:
        if cond.op == UNEXPIRED:
            parts.append(f"({alias}.{cond.field} IS NULL OR {alias}.{cond.field} > {p})")
            params.append(d.value(cond.value))
            continue
        if cond.field not in FIELDS:  # parse_filters already refuses these; belt and braces
            raise ValueError(f"unknown filter field {cond.field!r}")
        col = f"{alias}.{cond.field}"
        if FIELDS[cond.field] == "tags":
            sql, ps = _tags(cond, col, d)
            parts.append(sql)
            params.extend(ps)
            continue
        nullable = cond.field not in _NOT_NULL
        if cond.op in ("$in", "$nin"):
            marks = ",".join(p for _ in cond.value)
            sql = f"{col} {'NOT IN' if cond.op == '$nin' else 'IN'} ({marks})"
            if cond.op == "$nin" and nullable:
                sql = f"({col} IS NULL OR {sql})"
            parts.append(sql)
            params.extend(d.value(v) for v in cond.value)
        elif cond.value is None:
            parts.append(f"{col} IS {'NOT ' if cond.op == '$ne' else ''}NULL")
        elif d.name == "sqlite" and cond.op == "$eq" and isinstance(cond.value, bool):
            parts.append(
                f"{col} = {int(cond.value)}"
            )  # a literal, so the partial index on pinned = 1 applies
        elif cond.op == "$ne" and nullable:
            parts.append(f"({col} IS NULL OR {col} != {p})")
            params.append(d.value(cond.value))
        else:
            parts.append(f"{col} {_CMP[cond.op]} {p}")
            params.append(d.value(cond.value))
    return (" AND ".join(parts) if parts else "1=1"), params


def proposal_where(user_id: str, f: ProposalFilter, d: Dialect) -> tuple[str, list[Any]]:
    """The ``WHERE`` of a read of the user's proposals (the ``proposals`` table)."""
    p = d.placeholder
    given = [
        (f"status = {p}", f.status and f.status.value),
        (f"memory_id = {p}", f.memory_id),
        (f"expires_at > {p}", f.expires_after),
        (f"expires_at <= {p}", f.expires_before),
    ]
    chosen = [(sql, value) for sql, value in given if value is not None]
    return " AND ".join([f"user_id = {p}", *(sql for sql, _ in chosen)]), [
        user_id,
        *(d.value(v) for _, v in chosen),
    ]


def session_where(user_id: str, f: SessionFilter, d: Dialect) -> tuple[str, list[Any]]:
    """The ``WHERE`` of a read of the user's chat sessions (the ``sessions`` table)."""
    p = d.placeholder
    given = [
        (f"chat_id = {p}", f.chat_id),
        (f"ended_at < {p}", f.ended_before),
        (f"updated_at < {p}", f.updated_before),
        (f"message_count >= {p}", f.min_messages),
        (f"summary_version < {p}", f.version_below),
    ]
    chosen = [(sql, value) for sql, value in given if value is not None]
    parts = [f"user_id = {p}", *(sql for sql, _ in chosen)]
    params = [user_id, *(d.value(v) for _, v in chosen)]
    if f.ids:
        parts.append(f"id IN ({', '.join(p for _ in f.ids)})")
        params.extend(f.ids)
    if f.statuses:
        parts.append(f"status IN ({', '.join(p for _ in f.statuses)})")
        params.extend(s.value for s in f.statuses)
    return " AND ".join(parts), params
