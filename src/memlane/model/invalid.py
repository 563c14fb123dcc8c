"""Pydantic validation errors in plain words: which field is wrong and what it expects, without
pydantic's internals (the input echoed back, error codes, links to its documentation, the names of
union branches such as ``function-after[...]`` or ``constrained-str``, regular expressions)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

TYPE_NAMES = frozenset(
    {
        "int",
        "float",
        "str",
        "bool",
        "none",
        "bytes",
        "list",
        "dict",
        "set",
        "tuple",
        "datetime",
        "date",
        "time",
        "decimal",
        "uuid",
        "url",
    }
)
INTERNAL_PREFIXES = (
    "constrained-",
    "function-",
    "json-or-python",
    "lax-",
    "nullable",
    "tagged-union",
    "union",
)


def is_branch(part: Any) -> bool:
    """A union member's tag in an error location (``int``, ``list[...]``, ``function-after[...]``), not a field."""
    return isinstance(part, str) and (part in TYPE_NAMES or "[" in part or part.startswith(INTERNAL_PREFIXES))


def field_name(loc: Sequence[Any]) -> str:
    """``messages[0].role`` for the location ``("messages", "list[TurnMessage]", 0, "role")``."""
    out = ""
    for part in loc:
        if is_branch(part):
            continue
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the value"


def plain(error: Mapping[str, Any], patterns: Mapping[str, str]) -> str:
    """What the field expects, in words; ``patterns`` says what each regular expression means."""
    kind = error.get("type", "")
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        loc = error.get("loc", ())
        return (
            "is not an operator this field takes"
            if loc and str(loc[-1]).startswith("$")
            else "is not a known field here"
        )
    if kind in ("model_attributes_type", "model_type", "dict_type"):
        return "should be a JSON object"
    if kind == "json_invalid":
        return "is not valid JSON"
    if kind == "string_pattern_mismatch":
        return patterns.get(
            str((error.get("ctx") or {}).get("pattern", "")), "does not have the expected form"
        )
    msg = str(error.get("msg", "is not valid"))
    for prefix in ("Value error, ", "Assertion failed, "):
        msg = msg.removeprefix(prefix)
    return msg.replace("Input should be", "should be", 1)


def _union_key(loc: Sequence[Any]) -> tuple[Any, ...]:
    """The location up to the first union branch (the errors of one union's branches share it)."""
    for n, part in enumerate(loc):
        if is_branch(part):
            return tuple(loc[:n])
    return tuple(loc)


def _rank(error: Mapping[str, Any]) -> tuple[int, bool]:
    """Deeper first, then a wrong value before a wrong type (the branch whose type the input had)."""
    return len(error.get("loc", ())), not str(error.get("type", "")).endswith("_type")


def field_errors(
    errors: Sequence[Mapping[str, Any]], patterns: Mapping[str, str] | None = None
) -> list[tuple[Sequence[Any], str]]:
    """(location, message) per wrong field. Of a union whose every branch failed, the branch the input
    came closest to (the deepest error, a wrong value before a wrong type); when the input matched no
    branch's type at all, the types it could have had."""
    groups: dict[tuple[Any, ...], list[Mapping[str, Any]]] = {}
    for error in errors:
        groups.setdefault(_union_key(error.get("loc", ())), []).append(error)
    out: list[tuple[Sequence[Any], str]] = []
    for group in groups.values():
        best = max(_rank(e) for e in group)
        top = [e for e in group if _rank(e) == best]
        words = list(dict.fromkeys(plain(e, patterns or {}) for e in top))
        if len(words) > 1 and all(w.startswith("should be ") for w in words):
            message = "should be " + " or ".join(w.removeprefix("should be ") for w in words)
        else:
            message = words[0]
        out.append((top[0].get("loc", ()), message))
    return out


def describe(exc: ValidationError, limit: int = 3) -> str:
    """``field: what it expects`` for the first ``limit`` wrong fields of a model's validation error."""
    found = field_errors(exc.errors(include_url=False, include_input=False))
    text = "; ".join(f"{field_name(loc)}: {message}" for loc, message in found[:limit])
    return text + (f" (and {len(found) - limit} more)" if len(found) > limit else "")
