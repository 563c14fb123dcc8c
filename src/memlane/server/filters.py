"""The metadata filter language (:mod:`memlane.model.filters`) as pydantic models, so the OpenAPI
document spells out every field, operator and value type, and a request that fits the document is one
the engine accepts: ``{"category": "Finance", "importance": {"$gte": 3}, "tags": ["a", "b"]}``.
(``user_id`` is not a filter here: the user is the authenticated scope.)"""

from __future__ import annotations

import functools
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StringConstraints,
    create_model,
    model_validator,
)

from memlane.model.enums import MemoryState, MemoryType, Source
from memlane.model.filters import FIELDS, NOT_FILTERS, SHORTHANDS
from memlane.server.fields import NO_NUL, Instant, SafeInt

Str = Annotated[str, StringConstraints(pattern=NO_NUL, max_length=1000)]
Int = SafeInt
SCALARS: dict[str, Any] = {
    "str": Str,
    "tags": Str,
    "int": Int,
    "bool": StrictBool,
    "datetime": Instant,
    "type": MemoryType,
    "state": MemoryState,
    "source": Source,
}
ORDERED = ("int", "datetime", "str")  # the kinds the engine compares with $gt/$gte/$lt/$lte
NOT_NULL = ("tags", "type", "state")  # null is allowed with $eq / $ne on optional fields only
MAX_LIST = 100


class _Ops(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"minProperties": 1})

    @model_validator(mode="after")
    def _some(self) -> _Ops:
        if not self.model_fields_set:
            raise ValueError("an operator object needs at least one operator ($eq, $in, $gte, ...)")
        return self


@functools.cache
def ops_model(kind: str) -> type[BaseModel]:
    scalar = SCALARS[kind]
    eq = scalar if kind in NOT_NULL else scalar | None
    many = Annotated[list[scalar], Field(min_length=1, max_length=MAX_LIST)]  # type: ignore[valid-type]
    fields: dict[str, Any] = {
        "eq": (eq, Field(None, alias="$eq")),
        "ne": (eq, Field(None, alias="$ne")),
        "in_": (many, Field(None, alias="$in")),
        "nin": (many, Field(None, alias="$nin")),
    }
    if kind in ORDERED:
        for op in ("gt", "gte", "lt", "lte"):
            fields[op] = (scalar, Field(None, alias=f"${op}"))
    return create_model(f"FilterOps_{kind}", __base__=_Ops, **fields)


def spec(kind: str) -> Any:
    scalar = SCALARS[kind]
    many = Annotated[list[scalar], Field(min_length=1, max_length=MAX_LIST)]  # type: ignore[valid-type]
    return scalar | many | ops_model(kind)


class _FiltersBase(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"category": "Finance", "importance": {"$gte": 3}, "updated_after": "2026-01-01T00:00:00Z"}
            ]
        },
    )

    @model_validator(mode="before")
    @classmethod
    def _say_why_not(cls, value: Any) -> Any:
        for name in NOT_FILTERS:
            if isinstance(value, dict) and name in value:
                raise ValueError(f"filter {name!r} is not supported: {NOT_FILTERS[name]}")
        return value


@functools.cache
def filters_model() -> type[BaseModel]:
    fields: dict[str, Any] = {name: (spec(kind), Field(None)) for name, kind in FIELDS.items()}
    for name, (target, _) in SHORTHANDS.items():
        fields[name] = (SCALARS[FIELDS[target]] | None, Field(None))
    model = create_model("Filters", __base__=_FiltersBase, **fields)
    model.__doc__ = (
        "Metadata filters: a bare value means $eq, a list $in, or an object of operators "
        "($eq $ne $gt $gte $lt $lte $in $nin; ordering operators on numbers, times and text)."
    )
    return model


Filters = filters_model()


def as_engine_filters(value: BaseModel | None) -> dict[str, Any] | None:
    """The filters as the engine takes them (``$``-operators, set fields only)."""
    if value is None:
        return None
    return value.model_dump(by_alias=True, exclude_unset=True) or None
