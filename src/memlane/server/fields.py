"""Input types whose JSON Schema says exactly what the engine accepts, so the OpenAPI document is
true in both directions: text without NUL characters (PostgreSQL refuses them) and, where the engine
needs words, not only whitespace; strict numbers and booleans (no ``"3"`` for 3); RFC 3339 instants
in years 1000-8999 (they convert to UTC and every time zone without overflowing); JSON objects the
stores can keep."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    GetJsonSchemaHandler,
    StrictBool,
    StringConstraints,
    WithJsonSchema,
)
from pydantic.json_schema import JsonSchemaValue
from typing_extensions import TypeAliasType

from memlane.model.record import as_utc

NO_NUL = r"^[^\x00]*$"
# not only whitespace (as str.split() sees it) and control characters, which the engine removes (model/text.py)
HAS_TEXT = r"^[^\x00]*[^\x00-\x1f\x7f-\x9f\s\ufeff][^\x00]*$"
# an id or name: no control character but tab and newline (the engine refuses them), and some text
ID_TEXT = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\x00-\x1f\x7f-\x9f\s\ufeff][^\x00-\x08\x0b-\x1f\x7f-\x9f]*$"
# a key: the same, with a character left once zero-width ones are removed (model/text.py normal_key)
KEY_TEXT = (
    r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\x00-\x1f\x7f-\x9f\s\ufeff\u200b\u200c\u200d\u2060]"
    r"[^\x00-\x08\x0b-\x1f\x7f-\x9f]*$"
)
INT64 = 2**63 - 1
SAFE_INT = 2**53 - 1  # exact in every JSON parser (and in the validators that check the document)
INSTANT_RE = re.compile(
    r"^[1-8][0-9]{3}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$"
)
INSTANT_SCHEMA = {
    "type": "string",
    "format": "date-time",
    "pattern": r"^[1-8][0-9]{3}-",
    "description": "RFC 3339 time with offset, years 1000-8999",
}


def clean_text(value: str) -> str:
    if "\x00" in value:
        raise ValueError("text may not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("text must be valid Unicode (no lone surrogates)") from None
    return value


def check_json(
    value: Any, *, int64: bool = False, allow_nul: bool = False, max_nodes: int = 100_000, max_depth: int = 64
) -> Any:
    """A JSON value the stores can keep: clean text, finite numbers, bounded size and depth; with
    ``int64`` integers that fit a database integer; ``allow_nul`` for text that is only passed on."""
    count = 0

    def walk(node: Any, depth: int) -> None:
        nonlocal count
        count += 1
        if count > max_nodes or depth > max_depth:
            raise ValueError(f"JSON value too large (at most {max_nodes} items, {max_depth} levels)")
        if isinstance(node, str):
            clean_text(node.replace("\x00", "") if allow_nul else node)
        elif isinstance(node, bool) or node is None:
            return
        elif isinstance(node, int):
            if int64 and not -INT64 - 1 <= node <= INT64:
                raise ValueError("integers must fit in 64 bits")
        elif isinstance(node, float):
            if node != node or node in (float("inf"), float("-inf")):
                raise ValueError("numbers must be finite")
        elif isinstance(node, Mapping):
            for k, v in node.items():
                clean_text(str(k).replace("\x00", "") if allow_nul else str(k))
                walk(v, depth + 1)
        elif isinstance(node, list | tuple):
            for v in node:
                walk(v, depth + 1)

    walk(value, 0)
    return value


def parse_instant(value: Any) -> Any:
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str) or not INSTANT_RE.match(value):
        raise ValueError(
            "expected an RFC 3339 time with an offset, years 1000-8999, e.g. 2026-01-31T09:00:00Z"
        )
    return value


def integral(value: Any) -> Any:
    """JSON Schema's integer includes 4.0; booleans and strings are not integers."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def utc_instant(value: datetime) -> datetime:
    if not 1000 <= value.year <= 8999:
        raise ValueError("year must be between 1000 and 8999")
    return as_utc(value)


class KeyPattern:
    """JSON Schema for a dict whose keys have a pattern: ``propertyNames`` (pydantic writes
    ``patternProperties``, which lets keys that do not match through unchecked)."""

    def __get_pydantic_json_schema__(
        self, core_schema: Any, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core_schema)
        patterns = schema.pop("patternProperties", None)
        if patterns:
            ((pattern, values),) = patterns.items()
            schema["propertyNames"] = {"pattern": pattern}
            schema["additionalProperties"] = values
        return schema


JsonText = Annotated[str, StringConstraints(pattern=NO_NUL)]
JsonValue = TypeAliasType(
    "JsonValue",
    "JsonText | Annotated[int, Field(strict=True)] | Annotated[float, Field(strict=True, allow_inf_nan=False)] | "
    "StrictBool | None | list[JsonValue] | Annotated[dict[JsonText, JsonValue], KeyPattern()]",
)


Clean = AfterValidator(clean_text)
Body = Annotated[str, StringConstraints(min_length=1, max_length=20_000, pattern=HAS_TEXT), Clean]
Name = Annotated[str, StringConstraints(min_length=1, max_length=256, pattern=ID_TEXT), Clean]
Key = Annotated[str, StringConstraints(min_length=1, max_length=256, pattern=KEY_TEXT), Clean]
# An id in a path: a visible character, no control characters, no % (a path segment is decoded once)
PATH_ID = r"^[^\x00-\x1f\x7f%]*[^\x00-\x20\x7f%][^\x00-\x1f\x7f%]*$"
# A letter or digit, or any character beyond ASCII (the model layer then asks for a letter or digit of any
# script, a 400 otherwise): written without \w, which is ASCII-only in JavaScript's regexes, so that the
# published pattern means to a client (and schemathesis) what it means here.
LETTERISH = r"[^\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x9f\s\ufeff]"
PATH_NAME = rf"^[^\x00-\x1f\x7f%]*{LETTERISH}[^\x00-\x1f\x7f%]*$"  # a name in a path
HAS_LETTER = rf"^[^\x00]*{LETTERISH}[^\x00]*$"  # a name in a body, no NUL
ShortName = Annotated[str, StringConstraints(min_length=1, max_length=128, pattern=HAS_TEXT), Clean]
QueryText = Annotated[str, StringConstraints(min_length=1, max_length=8000, pattern=HAS_TEXT), Clean]
Reason = Annotated[str, StringConstraints(max_length=1000, pattern=NO_NUL), Clean]
Labels = Annotated[list[ShortName], Field(max_length=64)]
Instant = Annotated[
    datetime, BeforeValidator(parse_instant), AfterValidator(utc_instant), WithJsonSchema(INSTANT_SCHEMA)
]
JsonObject = Annotated[dict[JsonText, JsonValue], KeyPattern(), AfterValidator(check_json)]
Flag = StrictBool
Similarity = Annotated[float, Field(strict=True, ge=-1.0, le=1.0, allow_inf_nan=False)]


def _int(low: int, high: int) -> Any:
    return Annotated[int, Field(strict=True, ge=low, le=high), BeforeValidator(integral)]  # this order keeps
    # minimum / maximum in the JSON Schema


Importance: Any = _int(1, 5)
TopK: Any = _int(1, 100)
Budget: Any = _int(1, 100_000)
Revision: Any = _int(0, SAFE_INT)
SearchLimit: Any = _int(1, 200)
SearchOffset: Any = _int(
    0, 800
)  # SQLite's vector index answers at most 4096 neighbours: 4 x (limit + offset)
ListLimit: Any = _int(1, 10_000)
ListOffset: Any = _int(0, 1_000_000)
SafeInt: Any = _int(-SAFE_INT, SAFE_INT)
