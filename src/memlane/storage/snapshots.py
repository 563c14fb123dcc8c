"""History snapshots without what a purged memory brought into them (both backends)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

_LISTS = ("tags", "entities")


def without(snapshot: Any, words: Collection[str]) -> dict[str, Any] | None:
    """``snapshot`` (a record as a history row holds it) with ``words`` gone from its tags and entities,
    or ``None`` when it holds none of them (nothing to write)."""
    if not isinstance(snapshot, dict):
        return None
    changed = {
        f: [w for w in snapshot[f] if w not in words] for f in _LISTS if isinstance(snapshot.get(f), list)
    }
    if all(len(changed[f]) == len(snapshot[f]) for f in changed):
        return None
    return {**snapshot, **changed}
