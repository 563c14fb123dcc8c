"""Global bootstrap: a user with fewer than ``MEMORY_GLOBAL_BOOTSTRAP_BELOW``
personal memories (their own, active) is linked to every active global memory not linked to them
yet, so a new user's first turns do not start from an empty memory.

It runs when the user reads (``Memory.list``, ``search``, ``context``, ``query``): that is when a new
user first needs memories, and a user nobody reads for costs nothing. Links are never taken back when
the user later has more memories (what they were shown stays theirs to see, rank and correct), and a
link the user closed (an unshare, a contradiction) is never reopened. A user found checked within
:data:`RECHECK_SECONDS` is not checked again; a global memory put in this process clears that.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from datetime import datetime

from memlane.ledger.bus import EventBus
from memlane.ledger.commit import commit_planned
from memlane.ledger.mutations import Mutation
from memlane.model.filters import live
from memlane.model.ids import GLOBAL_USER
from memlane.model.link import BOOTSTRAP, MemoryLink
from memlane.model.record import MemoryRecord, utcnow
from memlane.storage.base import Backend

RECHECK_SECONDS = 60.0
MAX_GLOBALS = 1000  # global memories linked at most (the newest)
_REMEMBERED = 10_000  # users whose last check is remembered


def missing(backend: Backend, user_id: str, below: int, now: datetime) -> list[str]:
    """Ids of the active global memories to link to the user: none once they have ``below`` personal memories."""
    if below <= 0 or len(backend.memories.list(user_id, live(now), limit=below)) >= below:
        return []
    held = {k.memory_id for k in backend.memories.links(user_id)}
    return [
        r.id for r in backend.memories.list(GLOBAL_USER, live(now), limit=MAX_GLOBALS) if r.id not in held
    ]


def link_globals(backend: Backend, bus: EventBus | None, user_id: str, below: int) -> int:
    """Link the missing global memories to the user (one SHARE row and ``shared`` event each); returns
    how many were linked. Planned under the write lock of both the user and the global memories."""
    ids = missing(backend, user_id, below, utcnow())
    if not ids:
        return 0

    def plan(stored: dict[str, MemoryRecord]) -> Mutation:
        m = Mutation(actor=BOOTSTRAP)
        held = {
            k.memory_id for k in backend.memories.links(user_id)
        }  # again: a link closed meanwhile stays closed
        for gid in ids:
            rec = stored.get(gid)
            if rec is not None and rec.is_active and gid not in held:
                link = MemoryLink(user_id=user_id, memory_id=gid, linked_at=m.at, linked_by=BOOTSTRAP)
                m.share(rec, [link], "global bootstrap", owner_row=False)
        return m

    return len(commit_planned(backend, bus, {GLOBAL_USER: ids, user_id: []}, plan).batch.links)


class GlobalBootstrap:
    """:func:`link_globals` at most once per user every :data:`RECHECK_SECONDS` (in this process)."""

    def __init__(self, backend: Backend, bus: EventBus, below: int) -> None:
        self.backend, self.bus, self.below = backend, bus, below
        self._checked: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def ensure(self, user_id: str) -> None:
        if self.below <= 0:
            return
        now = time.monotonic()
        with self._lock:
            last = self._checked.get(user_id)
            if last is not None and now - last < RECHECK_SECONDS:
                return
        link_globals(self.backend, self.bus, user_id, self.below)
        with self._lock:
            self._checked[user_id] = now
            self._checked.move_to_end(user_id)
            while len(self._checked) > _REMEMBERED:
                self._checked.popitem(last=False)

    def forget(self) -> None:
        """The global memories changed: check every user again on their next read."""
        with self._lock:
            self._checked.clear()
