"""Who is told of each candidate's decision once it is committed: the numbers only, for metrics.

A decision is not a write event (an ignored candidate writes nothing, a merge is one ``memory.merged``
whatever it absorbed, a supersession may close several memories), so it is not published on the event
bus that SSE and LangGraph streams read: listeners subscribe here. A :class:`Decided` holds no user id and
no text, only the closed vocabulary of the decision and three numbers.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from memlane.model.enums import MemoryType

log = logging.getLogger("memlane.formation")


@dataclass(frozen=True)
class Decided:
    action: str  # create, merge, supersede, history, ignore or propose (held for the user's consent)
    type: MemoryType  # the candidate's memory type
    score: float | None  # cosine similarity of the best neighbour considered (Decision.score), if any
    importance: int  # the candidate's importance (1-5): its notability as formation sees it
    seconds: float = 0.0  # wall time of the decision: embedding, neighbours, the judge and the commit


DecisionListener = Callable[[Decided], None]


class DecisionWatch:
    """Synchronous fan-out on the deciding thread (a request thread or the worker). A listener that
    raises is logged and skipped: the decision has already been committed."""

    def __init__(self) -> None:
        self._listeners: list[DecisionListener] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: DecisionListener) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def tell(self, decided: Decided) -> None:
        with self._lock:
            targets = list(self._listeners)
        for fn in targets:
            try:
                fn(decided)
            except Exception:  # noqa: BLE001 - see class docstring; nothing of the memory is lost
                log.exception("decision listener failed for %s", decided.action)
