"""In-process event bus: the write path publishes ``memory.*`` events; SSE, LangGraph and tests subscribe."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from memlane.ledger.events import MemoryEvent

log = logging.getLogger("memlane.events")


Listener = Callable[[MemoryEvent], None]


class EventBus:
    """Synchronous fan-out. A listener that raises is logged and dropped from that delivery only:
    a broken UI connection must not fail a memory write that has already committed."""

    def __init__(self) -> None:
        self._listeners: list[tuple[str | None, Listener]] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: Listener, *, user_id: str | None = None) -> Callable[[], None]:
        entry = (user_id, listener)
        with self._lock:
            self._listeners.append(entry)

        def unsubscribe() -> None:
            with self._lock:
                if entry in self._listeners:
                    self._listeners.remove(entry)

        return unsubscribe

    def publish(self, event: MemoryEvent) -> None:
        with self._lock:
            targets = [fn for uid, fn in self._listeners if uid is None or uid == event.user_id]
        for fn in targets:
            try:
                fn(event)
            except Exception:  # noqa: BLE001 - see class docstring; the write is already durable
                log.exception("event listener failed for %s", event.type)
