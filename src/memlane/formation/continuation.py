"""A later outcome of the running episode. Within the episodic cooldown a turn's episode makes no new
entry (the cooldown), but it is not lost either: it extends the episode the cooldown counts from
(merged into the last episode rather than inserted). "Booked my flights to Accra", then two
turns later "I've decided to stay with my auntie in Osu": one episode that holds both outcomes.

The running episode is the user's newest active episode of the same thread, observed within
``EPISODIC_COOLDOWN_MINUTES``. Its approach keeps the newest outcome; older sentences give way first
when the summary would pass ``MEMORY_CANDIDATE_MAX_CHARS``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta

from memlane.ledger.mutations import Mutation
from memlane.model.enums import MemoryType
from memlane.model.filters import Condition, live
from memlane.model.record import MemoryRecord
from memlane.storage.base import Backend

_APPROACH = " Approach: "
_SENTENCE = re.compile(r"[^.!?]+[.!?]+(?:\s+|$)")


def running_episode(
    backend: Backend, user_id: str, thread_id: str | None, at: datetime, minutes: float
) -> MemoryRecord | None:
    """The episode a turn within the cooldown continues, or None (another thread, or too long ago)."""
    newest = backend.memories.list(
        user_id, [*live(), Condition("type", "$eq", MemoryType.EPISODIC.value)], limit=1
    )
    if not newest or newest[0].thread_id != thread_id:
        return None
    observed = newest[0].valid_from or newest[0].created_at
    return newest[0] if abs(at - observed) < timedelta(minutes=minutes) else None


def extended(episode: str, later: str, max_chars: int) -> str | None:
    """``episode``'s summary with ``later``'s approach added, or None when ``later`` adds nothing or
    the two are not episode summaries."""
    head, found, approach = episode.partition(_APPROACH)
    _, later_found, outcome = later.partition(_APPROACH)
    outcome = outcome.strip()
    if not (found and later_found and outcome) or outcome in approach:
        return None
    kept = [s.strip() for s in _SENTENCE.findall(approach.strip() + " ")] or [approach.strip()]

    def text() -> str:
        return f"{head}{_APPROACH}{' '.join([*kept, outcome])}"

    while kept and len(text()) > max_chars:
        kept.pop(0)  # the oldest outcome gives way to the newest
    return text() if len(text()) <= max_chars else None


def extend(episode: MemoryRecord, text: str, vector: Sequence[float], at: datetime, m: Mutation) -> None:
    """Write ``text`` as the episode's summary (with its history row) into ``m``."""
    new = episode.model_copy(
        update={"summary": text, "updated_at": max(at, episode.updated_at), "last_verified_at": at}
    )
    m.update(
        episode, new, vector, "episodic.extend: a later outcome of the running episode, within the cooldown"
    )
