"""The change-log and op-events part of a backend."""

from __future__ import annotations

import builtins
from datetime import datetime
from typing import Protocol, runtime_checkable

from memlane.model.jobs import Change, OpCount, OpEvent


@runtime_checkable
class ChangeLog(Protocol):
    """The change log (per thread and per user) and the op events."""

    def thread_revision(self, user_id: str, thread_id: str) -> int: ...

    def changes_since(
        self, user_id: str, thread_id: str, rev: int, *, limit: int = 50
    ) -> builtins.list[Change]:
        """Change-log rows of the thread with ``rev`` greater than ``rev``, oldest first."""

    def changes_after(self, user_id: str, seq: int, *, limit: int = 100) -> builtins.list[Change]:
        """The user's change-log rows (every thread) with ``seq`` greater than ``seq``, oldest first."""

    def op_events(self, user_id: str, *, limit: int = 100) -> builtins.list[OpEvent]:
        """Newest first."""

    def op_counts(
        self, since: datetime, until: datetime, *, user_id: str | None = None
    ) -> builtins.list[OpCount]:
        """Op events in ``[since, until)`` counted per UTC day, node, op and status (one user's, or
        everyone's: an operator's view, counts only), by day then node, op and status."""
