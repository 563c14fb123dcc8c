"""Per-category decision bands (``MEMORY_BANDS_BY_CATEGORY``): a category's own auto / low / floor for
its semantic or its episodic memories, over the embedder's bands.

Written ``Category[.type]:auto,low,floor`` entries separated by ``;`` (``type`` is ``semantic``, the
default, or ``episodic``), or as JSON / a config-file table mapping the same keys to ``[auto, low,
floor]`` or ``{"auto": .., "low": .., "floor": ..}``. Every entry gives all three numbers, each in [0, 1],
with ``auto >= low >= floor``; a category must be one of ``MEMLANE_CATEGORIES``. Parsed entries are keyed
``Category`` (semantic) or ``Category.episodic``, so a parsed value parses to itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from memlane.model.category import title_case

NAME = "MEMORY_BANDS_BY_CATEGORY"
TABLES = ("semantic", "episodic")
NUMBERS = ("auto", "low", "floor")
Triple = tuple[float, float, float]


def band_key(category: str, table: str) -> str:
    """The parsed key of ``category``'s bands for the ``semantic`` or ``episodic`` table."""
    return category if table == "semantic" else f"{category}.{table}"


def parse_category_bands(value: Any, categories: Iterable[str]) -> dict[str, Triple]:
    """``value`` (text, JSON text or a mapping) as ``{key: (auto, low, floor)}``; a ValueError names the
    bad entry and what is wrong with it."""
    known = {title_case(c): title_case(c) for c in categories}
    if isinstance(value, str):
        text = value.strip()
        value = _json(text) if text.startswith("{") else _entries(text)
    if not isinstance(value, Mapping):
        raise ValueError(f"{NAME} must map categories to auto,low,floor bands, got {type(value).__name__}")
    out: dict[str, Triple] = {}
    for raw_key, raw in value.items():
        where = f"{NAME} entry {raw_key!r}"
        key = _key(str(raw_key), known, where)
        if key in out:
            raise ValueError(f"{where}: {key} is given twice")
        out[key] = _numbers(raw, where)
    return out


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"{NAME} is not valid JSON ({e.msg} at character {e.pos})") from None


def _entries(text: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for entry in (e.strip() for e in text.split(";")):
        if not entry:
            continue
        key, sep, numbers = entry.partition(":")
        if not sep or not key.strip():
            raise ValueError(f"{NAME} entry {entry!r}: write Category[.episodic]:auto,low,floor")
        if key.strip() in out:
            raise ValueError(f"{NAME} entry {entry!r}: {key.strip()} is given twice")
        out[key.strip()] = numbers.split(",")
    return out


def _key(raw: str, known: Mapping[str, str], where: str) -> str:
    name, _, table = raw.strip().partition(".")
    table = table.strip().lower() or "semantic"
    if table not in TABLES:
        raise ValueError(
            f"{where}: unknown memory type {table!r}; use Category.semantic or Category.episodic"
        )
    category = known.get(title_case(name))
    if category is None:
        raise ValueError(
            f"{where}: unknown category {name.strip()!r}; known: {', '.join(known)} "
            "(or add it to MEMLANE_CATEGORIES)"
        )
    return band_key(category, table)


def _numbers(raw: Any, where: str) -> Triple:
    if isinstance(raw, Mapping):
        extra = sorted(set(raw) - set(NUMBERS))
        missing = [n for n in NUMBERS if n not in raw]
        if extra or missing:
            raise ValueError(f"{where}: needs exactly auto, low and floor, got {', '.join(map(str, raw))}")
        raw = [raw[n] for n in NUMBERS]
    if isinstance(raw, str) or not isinstance(raw, Iterable) or len(parts := list(raw)) != len(NUMBERS):
        raise ValueError(f"{where}: needs three numbers auto,low,floor, got {raw!r}")
    values: list[float] = []
    for name, part in zip(NUMBERS, parts, strict=True):
        try:
            number = float(part) if not isinstance(part, bool) else float("nan")
        except (TypeError, ValueError):
            number = float("nan")
        if not 0.0 <= number <= 1.0:  # NaN fails too
            raise ValueError(f"{where}: {name} must be a number in [0, 1], got {str(part).strip()!r}")
        values.append(number)
    auto, low, floor = values
    if not auto >= low >= floor:
        raise ValueError(
            f"{where}: needs auto >= low >= floor (a merge band above the check band above the floor), "
            f"got auto {auto:g}, low {low:g}, floor {floor:g}"
        )
    return auto, low, floor
