"""The one rule for a memory's ``metadata``, the same on every backend: a JSON object whose text
holds no NUL characters or lone surrogates, whose numbers are finite and fit 64 bits, and whose
serialised size stays under a cap. Sets, bytes, dates and other Python objects are refused by name
rather than converted (SQLite and PostgreSQL used to convert them differently, or not at all)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from memlane.model.errors import ValidationError
from memlane.model.text import check_text

INT64 = 2**63
MAX_DEPTH = 32


def _walk(where: str, node: Any, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise ValidationError(f"{where} is nested more than {MAX_DEPTH} levels deep")
    if isinstance(node, str):
        check_text(where, node)
    elif node is None or isinstance(node, bool):
        return
    elif isinstance(node, int):
        if not -INT64 <= node < INT64:
            raise ValidationError(f"{where} = {node} does not fit in 64 bits; store it as a string")
    elif isinstance(node, float):
        if not math.isfinite(node):
            raise ValidationError(f"{where} is {node}: JSON has no NaN or Infinity; use null or a string")
    elif isinstance(node, Mapping):
        for k, v in node.items():
            if not isinstance(k, str):
                raise ValidationError(f"{where} has the key {k!r}: object keys must be strings")
            check_text(f"{where} key {k[:40]!r}", k)
            _walk(f"{where}.{k}", v, depth + 1)
    elif isinstance(node, list | tuple):
        for n, v in enumerate(node):
            _walk(f"{where}[{n}]", v, depth + 1)
    elif isinstance(node, set | frozenset):
        raise ValidationError(f"{where} is a set, which JSON cannot hold; use a list")
    else:
        raise ValidationError(
            f"{where} is a {type(node).__name__}, which JSON cannot hold; use a string, number, "
            "boolean, null, list or object"
        )


def check_metadata(value: Any, max_bytes: int) -> dict[str, Any]:
    """``value`` as a plain JSON object (tuples become lists), or a ValidationError saying what to fix."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValidationError(
            f"metadata must be an object (a dict of string keys), got {type(value).__name__}"
        )
    _walk("metadata", value, 0)
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    size = len(text.encode("utf-8"))
    if size > max_bytes:
        raise ValidationError(
            f"metadata is {size} bytes as JSON, over the limit of {max_bytes} (MEMORY_METADATA_MAX_BYTES); "
            "keep large documents elsewhere and store a reference"
        )
    loaded: dict[str, Any] = json.loads(text)
    return loaded
