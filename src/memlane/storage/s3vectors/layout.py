"""A memory's vector in the S3 Vectors index of the vector channel, and the filters pushed to it.

Key: the memory id (unique in a store: the database refuses a second user's memory of the same id).
Metadata, all filterable: ``user_id`` (the tenancy filter of every query), ``state``, ``type``,
``category``, ``importance``, ``pinned`` and ``source``. They are short by construction (a user id has at
most 128 characters, the rest are enum values, a configured category, a number and a boolean), so a
vector stays far below the 2 KB filterable cap; :func:`vector` still checks the caps before sending.
No text of the memory (summary, tags, entities, key) goes to AWS.

Conditions on those fields with the operators S3 Vectors has are pushed into the query; every other
condition (dates, tags, ids, scopes, the expiry) is applied by the relational database to the
candidates S3 Vectors returns.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from memlane.model.filters import Condition
from memlane.model.record import MemoryRecord
from memlane.storage.s3vectors import limits
from memlane.storage.s3vectors.filters import Clause, clause
from memlane.storage.s3vectors.index import Vector

PUSHED = {
    "state": ("$eq", "$ne", "$in", "$nin"),
    "type": ("$eq", "$ne", "$in", "$nin"),
    "category": ("$eq", "$ne", "$in", "$nin"),
    "source": ("$eq", "$ne", "$in", "$nin"),
    "importance": ("$eq", "$ne", "$in", "$nin", "$gt", "$gte", "$lt", "$lte"),
    "pinned": ("$eq", "$ne"),
}


def metadata(record: MemoryRecord) -> dict[str, Any]:
    return {
        "user_id": record.user_id,
        "state": record.state.value,
        "type": record.type.value,
        "category": record.category,
        "importance": record.importance,
        "pinned": record.pinned,
        "source": record.source.value,
    }


def vector(record: MemoryRecord, data: Sequence[float], dims: int) -> Vector | None:
    """The vector to put for ``record``, or None when S3 Vectors cannot hold it (a zero vector, which a
    cosine index refuses: such a memory is not vector-searchable anywhere)."""
    values = [float(x) for x in data]
    if not any(values) or not all(math.isfinite(x) for x in values):
        return None
    meta = metadata(record)
    limits.check_vector(record.id, values, dims, "cosine")
    limits.check_metadata(record.id, meta, ())
    return {"key": record.id, "data": {"float32": values}, "metadata": meta}


def split(conditions: Sequence[Condition]) -> tuple[list[Clause], list[Condition]]:
    """The conditions S3 Vectors evaluates (as clauses), and the rest (for the database)."""
    pushed: list[Clause] = []
    rest: list[Condition] = []
    for c in conditions:
        if c.op in PUSHED.get(c.field, ()) and c.value is not None:
            pushed.append(clause(c.field, c.op, c.value))
        else:
            rest.append(c)
    return pushed, rest
