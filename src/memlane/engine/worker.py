"""The background worker: a thread that runs formation jobs first and, when given a lifecycle, the
periodic tasks that are due, seeding users' next runs every ``seed_seconds``."""

from __future__ import annotations

import logging
import threading
import time

from memlane.formation.pipeline import Formation
from memlane.lifecycle.runner import Lifecycle

log = logging.getLogger("memlane.worker")


class Worker(threading.Thread):
    def __init__(
        self,
        formation: Formation,
        lifecycle: Lifecycle | None = None,
        *,
        poll_seconds: float = 0.2,
        seed_seconds: float = 600.0,
    ) -> None:
        super().__init__(name="memlane-worker", daemon=True)
        self.formation, self.lifecycle = formation, lifecycle
        self.poll, self.seed_seconds = poll_seconds, seed_seconds
        self._stop_event = threading.Event()
        self.wake = threading.Event()

    def run(self) -> None:
        next_seed = 0.0
        while not self._stop_event.is_set():
            if self.lifecycle is not None and time.monotonic() >= next_seed:
                try:
                    self.lifecycle.seed()
                except Exception:  # noqa: BLE001 - seeding is retried on the next round; jobs go on
                    log.exception("seeding the task schedule failed")
                next_seed = time.monotonic() + self.seed_seconds
            if self.formation.run_once() or (self.lifecycle is not None and self.lifecycle.run_once()):
                continue
            self.wake.wait(self.poll)
            self.wake.clear()

    def stop(self, timeout: float = 5.0) -> None:
        """Ask the loop to end after the job at hand; wait for it when it runs in another thread."""
        self._stop_event.set()
        self.wake.set()
        if self.is_alive() and threading.current_thread() is not self:
            self.join(timeout)
