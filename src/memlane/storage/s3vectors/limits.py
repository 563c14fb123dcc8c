"""Amazon S3 Vectors' published limits, and the checks memlane makes before a request is sent.

From the S3 User Guide, "Limitations and restrictions" (S3 Vectors, general availability): metadata
per vector at most 40 KB in all and 2 KB filterable, at most 50 metadata keys per vector, at most 10
non-filterable keys per index, 500 vectors per ``PutVectors`` / ``DeleteVectors``, 100 keys per
``GetVectors``, ``topK`` at most 100 per ``QueryVectors``, dimensions 1 to 4,096. The preview allowed
``topK`` 30 and 10 keys per vector; an index on such limits answers with a ``ValidationException``.

How AWS counts metadata bytes is not published; memlane counts the UTF-8 bytes of the JSON encoding,
which errs on the large side, so a vector that passes here is within the limits there.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeVar

from memlane.model.errors import ValidationError

MAX_PUT = 500
MAX_DELETE = 500
MAX_GET = 100
MAX_TOP_K = 100
MAX_DIMS = 4096
MAX_METADATA_BYTES = 40 * 1024
MAX_FILTERABLE_BYTES = 2 * 1024
MAX_METADATA_KEYS = 50
MAX_KEY_CHARS = 1024
DISTANCES = ("cosine", "euclidean")

T = TypeVar("T")


def chunks(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """``items`` in consecutive slices of at most ``size`` (one API call each)."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def metadata_bytes(metadata: Mapping[str, Any]) -> int:
    return len(json.dumps(metadata, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def check_metadata(key: str, metadata: Mapping[str, Any], non_filterable: Sequence[str]) -> None:
    """Raise :class:`ValidationError` (naming the vector and the limit) for metadata S3 Vectors would
    refuse, before anything is sent."""
    if len(metadata) > MAX_METADATA_KEYS:
        raise ValidationError(
            f"vector {key}: {len(metadata)} metadata keys, S3 Vectors allows {MAX_METADATA_KEYS}"
        )
    filterable = {k: v for k, v in metadata.items() if k not in non_filterable}
    size = metadata_bytes(filterable)
    if size > MAX_FILTERABLE_BYTES:
        largest = max(filterable, key=lambda k: metadata_bytes({k: filterable[k]}))
        raise ValidationError(
            f"vector {key}: filterable metadata is {size} bytes, S3 Vectors allows {MAX_FILTERABLE_BYTES} "
            f"(largest field {largest!r}); shorten it or keep it out of the filterable fields"
        )
    total = metadata_bytes(metadata)
    if total > MAX_METADATA_BYTES:
        raise ValidationError(
            f"vector {key}: metadata is {total} bytes, S3 Vectors allows {MAX_METADATA_BYTES}; "
            "store a smaller value"
        )
    for name, value in filterable.items():
        if not _filterable_type(value):
            raise ValidationError(
                f"vector {key}: metadata {name!r} is {type(value).__name__}; filterable metadata "
                "is a string, number, boolean or list of those"
            )


def _filterable_type(value: Any) -> bool:
    if isinstance(value, list):
        return all(_filterable_type(v) and not isinstance(v, list) for v in value)
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, str | int | bool)


def check_vector(key: str, vector: Sequence[float], dims: int, distance: str) -> None:
    """S3 Vectors refuses a vector of the wrong size, NaN or infinity, and a zero vector under cosine."""
    if not key or len(key) > MAX_KEY_CHARS:
        raise ValidationError(f"vector key must be 1 to {MAX_KEY_CHARS} characters, got {len(key)}")
    if len(vector) != dims:
        raise ValidationError(f"vector {key}: {len(vector)} dimensions, the index has {dims}")
    if not all(math.isfinite(x) for x in vector):
        raise ValidationError(f"vector {key}: NaN or infinite values are not allowed")
    if distance == "cosine" and not any(vector):
        raise ValidationError(f"vector {key}: a zero vector is not allowed in a cosine index")


def check_distance(distance: str) -> str:
    """``"COSINE"``/``"cosine"`` -> ``"cosine"``; anything else is a ValidationError."""
    norm = str(distance).strip().lower()
    if norm not in DISTANCES:
        raise ValidationError(f"S3 Vectors distance must be cosine or euclidean, not {distance!r}")
    return norm


def check_dims(dims: int) -> int:
    if isinstance(dims, bool) or not isinstance(dims, int) or not 1 <= dims <= MAX_DIMS:
        raise ValidationError(f"S3 Vectors dimensions must be an integer from 1 to {MAX_DIMS}, not {dims!r}")
    return dims
