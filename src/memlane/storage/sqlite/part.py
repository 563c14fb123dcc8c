"""What every part of a :class:`~memlane.storage.sqlite.backend.SqliteBackend` shares: its
connection, read (``_rows``) and write transaction (``_tx``)."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memlane.storage.sqlite.backend import SqliteBackend


class SqlitePart:
    def __init__(self, db: SqliteBackend) -> None:
        # the backend's own bound methods: a part's read costs no extra call
        self._rows: Callable[..., builtins.list[Any]] = db._rows
        self._tx: Callable[[], AbstractContextManager[Any]] = db._tx
