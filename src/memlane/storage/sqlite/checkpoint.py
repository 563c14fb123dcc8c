"""WAL checkpoints off the write path.

By default SQLite checkpoints inside the ``COMMIT`` that grows the write-ahead log past 1,000 pages:
that commit copies the log into the database file and waits for ``fsync``. Measured on bulk ingest
this was about a third of the cost of writing a memory. Here the writing connection only checkpoints
as a backstop (:data:`BACKSTOP_PAGES`) and a daemon thread with its own connection runs a
``PASSIVE`` checkpoint (never blocks readers or writers; a no-op when nothing is new) every
:data:`POLL_SECONDS`, so the copying and the ``fsync`` overlap with the caller's next embedding call.
"""

from __future__ import annotations

import logging
import threading
import weakref
from typing import Any

from memlane.storage.sqlite.connect import connect, sqlite3

log = logging.getLogger(__name__)

BACKSTOP_PAGES = (
    8000  # the writer still checkpoints itself past this (~32 MB): a stalled thread can't let it grow
)
POLL_SECONDS = 0.5


def defer_checkpoints(conn: Any) -> None:
    """Make ``conn`` (the writer) leave routine checkpoints to a :class:`Checkpointer`."""
    conn.execute(f"PRAGMA wal_autocheckpoint={BACKSTOP_PAGES}")


class Checkpointer:
    """A background thread checkpointing the WAL of the database at ``path``; started on the first
    write, stopped by :meth:`stop` (the backend's ``close``) or when ``owner`` is garbage-collected
    (a backend never closed does not leave its thread behind)."""

    def __init__(self, path: str, owner: object) -> None:
        self.path = path
        self._owner = weakref.ref(owner)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._guard = threading.Lock()

    def start(self) -> None:
        with self._guard:
            if self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(target=self._run, name="memlane-wal-checkpoint", daemon=True)
                self._thread.start()

    def stop(self) -> None:
        with self._guard:
            self._stop.set()
            thread, self._thread = self._thread, None
        if thread is not None:
            thread.join()

    def _run(self) -> None:
        conn = connect(self.path)
        try:
            while not self._stop.wait(POLL_SECONDS) and self._owner() is not None:
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except sqlite3.Error as exc:  # busy or locked: the next poll (or the backstop) does it
                    log.debug("WAL checkpoint of %s skipped: %s", self.path, exc)
        finally:
            conn.close()
