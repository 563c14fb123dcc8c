"""A call that waits for work at most so long: the work runs in a daemon thread and the caller stops
waiting at the deadline (the work goes on; a job it holds is completed or failed under its lease)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger("memlane.formation")


def run_bounded(work: Callable[[], None], timeout_s: float, name: str = "memlane-wait") -> bool:
    """Run ``work``; True when it ended within ``timeout_s`` (an exception it raised is raised here;
    one raised after the caller stopped waiting is logged, as nobody is left to raise it to)."""
    errors: list[BaseException] = []
    lock = threading.Lock()
    waiting = True

    def target() -> None:
        try:
            work()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller below, or logged once it left
            with lock:
                errors.append(exc)
                if not waiting:
                    log.error("%s failed after its caller stopped waiting", name, exc_info=exc)

    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    thread.join(timeout_s)
    with lock:
        waiting = False
        if errors:
            raise errors[0]
    return not thread.is_alive()
