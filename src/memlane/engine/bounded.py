"""A call that waits for work at most so long: the work runs in a daemon thread and the caller stops
waiting at the deadline (the work goes on; a job it holds is completed or failed under its lease)."""

from __future__ import annotations

import threading
from collections.abc import Callable


def run_bounded(work: Callable[[], None], timeout_s: float, name: str = "memlane-wait") -> bool:
    """Run ``work``; True when it ended within ``timeout_s`` (an exception it raised is raised here)."""
    errors: list[BaseException] = []

    def target() -> None:
        try:
            work()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller below
            errors.append(exc)

    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    thread.join(timeout_s)
    if thread.is_alive():
        return False
    if errors:
        raise errors[0]
    return True
