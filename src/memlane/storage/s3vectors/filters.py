"""S3 Vectors metadata filters: the AND of clauses in the documented shapes.

A clause is ``{field: value}`` (equality) or ``{field: {"$op": value}}`` with the documented operators
(``$eq $ne $gt $gte $lt $lte $in $nin $exists``). The same filter can be written as one object with a
key per clause (equality shorthand, implicit AND) or as ``{"$and": [clause, ...]}``; the seed tries the
first and falls back to the second when the service refuses it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memlane.model.errors import FilterError

Clause = Mapping[str, Any]
OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists")


def clause(field: str, op: str, value: Any) -> dict[str, Any]:
    if op not in OPERATORS:
        raise FilterError(f"S3 Vectors has no filter operator {op!r}; use one of {', '.join(OPERATORS)}")
    return {field: value} if op == "$eq" and not isinstance(value, list | dict) else {field: {op: value}}


def shapes(clauses: Sequence[Clause]) -> list[dict[str, Any]]:
    """The AND of ``clauses`` in the shapes to try, in order: merged into one object (when no field
    repeats), then ``$and`` (when there are two clauses or more)."""
    fields = [field for c in clauses for field in c]
    out = (
        [{field: value for c in clauses for field, value in c.items()}]
        if len(fields) == len(set(fields))
        else []
    )
    if len(clauses) > 1:
        out.append({"$and": [dict(c) for c in clauses]})
    return out
