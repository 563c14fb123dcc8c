"""Backfill of group-chat vectors: after an embedder change, or for messages recorded before
message vectors existed, embed every recorded message that has no vector of the current embedder, and
every session summary that has no vector.

Missing-only by nature, so resumable: an interrupted run leaves what it embedded in place, and the
next run starts with what is still missing. ``rate`` caps the texts embedded per second (a hosted
embedder's quota). The sessions task does the same for new messages, a batch per run; this walks
every user at once. A store-wide change of embedder for memories is ``memlane reembed``'s.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memlane.lifecycle.message_vectors import embed_missing
from memlane.model.enums import MemoryType
from memlane.model.filters import Condition, live

if TYPE_CHECKING:
    from memlane.engine.memory import Memory

SESSIONS_TASK = "task.sessions"


@dataclass
class BackfillReport:
    users: int = 0
    messages: int = 0
    summaries: int = 0


def backfill(
    mem: Memory,
    *,
    user_id: str | None = None,
    batch_size: int = 64,
    rate: float | None = None,
    progress: Callable[[int, int, int], None] | None = None,
) -> BackfillReport:
    """Embed what is missing, user by user; ``progress(users_done, users, texts_embedded)`` after each batch."""
    from memlane.engine.reembed import embed_page

    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    if rate is not None and rate <= 0:
        raise ValueError("rate must be a positive number of texts per second")
    backend = mem.backend
    # users with messages have a sessions task scheduled (recording schedules it, each run the next)
    users = (
        [user_id]
        if user_id
        else sorted(set(backend.memories.list_users()) | backend.jobs.scheduled_users(SESSIONS_TASK))
    )
    report = BackfillReport()
    started = time.monotonic()

    def pace(done: int) -> None:
        if rate is not None:
            time.sleep(max(0.0, done / rate - (time.monotonic() - started)))

    for n, user in enumerate(users):
        summaries = backend.memories.list(
            user, [*live(), Condition("type", "$eq", MemoryType.SESSION.value)], limit=10**6
        )
        for start in range(0, len(summaries), batch_size):
            pace(report.messages + report.summaries + batch_size)
            report.summaries += embed_page(
                mem, user, [r.id for r in summaries[start : start + batch_size]], missing_only=True
            )
        more = True
        while more:
            pace(report.messages + report.summaries + batch_size)
            embedded, more = embed_missing(backend, mem.embedder, user, limit=batch_size)
            report.messages += embedded
            if progress:
                progress(n, len(users), report.messages + report.summaries)
            if not embedded:
                break
        report.users += 1
        if progress:
            progress(n + 1, len(users), report.messages + report.summaries)
    return report
