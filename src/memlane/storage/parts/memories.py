"""The memories part of a backend: reads, searches and read bookkeeping, all scoped to one user."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

from memlane.model.filters import Condition
from memlane.model.jobs import OpEvent
from memlane.model.link import MemoryLink
from memlane.model.record import HistoryEntry, MemoryRecord, Relation
from memlane.model.totals import MemoryTotals


@dataclass(frozen=True)
class ScoredRecord:
    record: MemoryRecord
    score: float  # vector: cosine similarity in [-1, 1]; keyword: a positive relevance, higher is better


@runtime_checkable
class MemoryStore(Protocol):
    """Reads and searches of memories, and the bookkeeping retrieval and consolidation keep on them."""

    def get(self, user_id: str, memory_id: str, *, shared: bool = False) -> MemoryRecord | None: ...

    def get_many(
        self, user_id: str, memory_ids: Sequence[str], *, shared: bool = False
    ) -> builtins.list[MemoryRecord]: ...

    def list(
        self,
        user_id: str,
        conditions: Sequence[Condition] = (),
        *,
        limit: int = 100,
        offset: int = 0,
        newest_first: bool = True,
        shared: bool = False,
    ) -> builtins.list[MemoryRecord]:
        """Memories of one user matching ``conditions``, ordered by ``updated_at`` then id."""

    def count(self, user_id: str, conditions: Sequence[Condition] = (), *, shared: bool = False) -> int: ...

    def vector_search(
        self,
        user_id: str,
        embedding: Sequence[float],
        conditions: Sequence[Condition] = (),
        *,
        limit: int = 10,
        offset: int = 0,
        shared: bool = False,
    ) -> builtins.list[ScoredRecord]:
        """Nearest memories by cosine similarity, best first, filtered in the database."""

    def keyword_search(
        self,
        user_id: str,
        query: str,
        conditions: Sequence[Condition] = (),
        *,
        limit: int = 10,
        offset: int = 0,
        shared: bool = False,
    ) -> builtins.list[ScoredRecord]:
        """Full-text matches (FTS5 / tsvector), best first, filtered in the database."""

    def vector_ids(
        self,
        user_id: str,
        embedding: Sequence[float],
        conditions: Sequence[Condition] = (),
        *,
        limit: int = 10,
        shared: bool = False,
    ) -> builtins.list[tuple[str, float]]:
        """:meth:`vector_search`'s ids and scores only: with :attr:`local_reads`, retrieval reads its
        channels' ids and then the union's records once; a backend overrides it to skip the records."""
        hits = self.vector_search(user_id, embedding, conditions, limit=limit, shared=shared)
        return [(h.record.id, h.score) for h in hits]

    def keyword_ids(
        self,
        user_id: str,
        query: str,
        conditions: Sequence[Condition] = (),
        *,
        limit: int = 10,
        shared: bool = False,
    ) -> builtins.list[tuple[str, float]]:
        """:meth:`keyword_search`'s ids and scores only (see :meth:`vector_ids`)."""
        return [
            (h.record.id, h.score)
            for h in self.keyword_search(user_id, query, conditions, limit=limit, shared=shared)
        ]

    def history(
        self, user_id: str, memory_id: str | None = None, *, limit: int = 100, shared: bool = False
    ) -> builtins.list[HistoryEntry]:
        """History rows, oldest first; all of the user's when ``memory_id`` is None. With ``shared`` (and
        a ``memory_id``), also the owner's rows of a memory linked to the user (not their share rows)."""

    def relations(self, user_id: str, memory_ids: Sequence[str]) -> builtins.list[Relation]:
        """Edges touching any of ``memory_ids`` (either end)."""

    def vectors(
        self, user_id: str, memory_ids: Sequence[str], *, shared: bool = False
    ) -> dict[str, builtins.list[float]]:
        """Stored vectors of the given memories (those that have one)."""

    def links(self, user_id: str, memory_id: str | None = None) -> builtins.list[MemoryLink]:
        """Memory links, open and closed: every link the user holds (``memory_id`` None); or the links of
        one memory: all of them when the user owns it, else the user's own link to it (if any)."""

    def list_users(self) -> builtins.list[str]:
        """Users with memories or history (not the owner of global memories, ``GLOBAL_USER``)."""

    def totals(self, *, top: int = 0) -> MemoryTotals:
        """Counts over every user's memories (by state, active ones per user) and the ``top`` users by
        active memories: the one read across users besides :meth:`list_users`, for operators' metrics.
        It returns numbers only, and user ids only when ``top`` asks for them."""

    def record_access(
        self, user_id: str, memory_ids: Sequence[str], at: datetime, ops: Sequence[OpEvent] = ()
    ) -> None:
        """Retrieval bookkeeping: ``access_count`` + 1 and ``last_accessed`` moved forward to ``at``
        (never back) on the memories of those ids the user owns or has linked (a shared memory in use is
        not unused), and the read's op events, in one transaction; no history, no event."""

    def checked_pairs(self, user_id: str, since: datetime) -> set[str]:
        """Fingerprints of the user's pairs consolidation judged at or after ``since``."""
