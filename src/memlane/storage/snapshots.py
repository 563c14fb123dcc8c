"""What a purge changes in other rows of history: snapshots without what a purged memory brought
into them, reasons that quote a purged text (both backends)."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from memlane.storage.keywords import STOP_WORDS, query_words

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


def content_words(texts: Iterable[str | None]) -> set[str]:
    """The content words of ``texts`` (lower-cased, stop words dropped)."""
    return {w for t in texts if t for w in query_words(t, limit=256) if w not in STOP_WORDS}


def quotes(reason: str | None, purged: set[str], own: Iterable[str | None]) -> bool:
    """Whether a history row's ``reason`` quotes a purged text: it holds a content word of the purged texts
    that the row's own snapshots (``own``: their summaries) do not hold. A judge's reason quotes both sides
    of a change ("'quixotl tea' is a more specific 'tea'"), and a row keeps the side that is not purged."""
    return bool(reason) and bool((content_words([reason]) & purged) - content_words(own))
