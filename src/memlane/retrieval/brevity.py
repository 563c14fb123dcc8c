"""Brevity: a short conversation message says little by itself.

A message stored with the turn before it (``metadata["context"]``, embedded with it by the contextual
header) ranks partly on that context, and its neighbours lift it again (``follows`` relations, the
thread). "Wow, that's awesome!" after a matching message then ranks with it, although it answers
nothing the message before it does not. Such a message loses up to ``MEMORY_BREVITY_WEIGHT`` of its
score, linearly in its own words below ``MEMORY_BREVITY_WORDS`` (the speaker's ``Name:`` prefix does
not count). Memories without a context (facts, preferences, the first message of a conversation)
keep their full score: a short fact stands on its own.

Measured on LoCoMo (``memlane eval locomo``; weight and length chosen on conversations 1-3 and
confirmed on 4-5, see docs/locomo.md).
"""

from __future__ import annotations

from memlane.model.config import Settings
from memlane.model.record import MemoryRecord


def own_words(record: MemoryRecord) -> int:
    """Words of the memory's summary, without a leading ``"Speaker:"``."""
    words = record.summary.split()
    if words and record.actor_id and words[0] == f"{record.actor_id}:":
        words = words[1:]
    return len(words)


def brevity_penalty(record: MemoryRecord, settings: Settings) -> float:
    """What a short message with a context loses (0 for memories without a context)."""
    weight, full = settings.memory_brevity_weight, settings.memory_brevity_words
    context = record.metadata.get("context")
    if weight <= 0 or full <= 0 or not isinstance(context, str) or not context.strip():
        return 0.0
    return weight * max(0.0, 1.0 - own_words(record) / full)
