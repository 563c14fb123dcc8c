"""The one storage contract every backend implements (and the shared contract tests exercise).

Tenancy lives here: every read takes ``user_id`` as a required argument and every backend filters on
it in the database. Writes go through :meth:`Backend.apply`, which commits a :class:`WriteBatch`
(records, vectors, history, relations) in one transaction, so a write that fails midway leaves
nothing half-written.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from memlane.model.errors import DimensionMismatchError
from memlane.model.filters import Condition
from memlane.model.record import HistoryEntry, MemoryRecord, Relation

SCHEMA_VERSION = 1


@dataclass
class Upsert:
    """Write ``record``. ``embedding`` replaces the stored vector; ``None`` keeps the one stored
    (a new record written without a vector is simply not vector-searchable)."""

    record: MemoryRecord
    embedding: Sequence[float] | None = None


@dataclass
class WriteBatch:
    upserts: list[Upsert] = field(default_factory=list)
    history: list[HistoryEntry] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    purge_ids: list[str] = field(default_factory=list)  # remove content and vector, keep a tombstone


@dataclass(frozen=True)
class ScoredRecord:
    record: MemoryRecord
    score: float  # vector: cosine similarity in [-1, 1]; keyword: a positive relevance, higher is better


class Backend(ABC):
    """Storage contract. Implementations: ``sqlite`` (embedded default) and ``postgres``."""

    name: str

    # --- lifecycle -------------------------------------------------------------------------
    @abstractmethod
    def migrate(self) -> int:
        """Apply pending schema migrations (idempotent); return the schema version now in force.
        Raise :class:`SchemaVersionError` when the database is newer than this code."""

    @abstractmethod
    def schema_version(self) -> int: ...

    @abstractmethod
    def close(self) -> None: ...

    @abstractmethod
    def get_meta(self, key: str) -> str | None:
        """Store-wide settings, e.g. ``embedder`` and ``embed_dims``."""

    @abstractmethod
    def set_meta(self, key: str, value: str) -> None: ...

    @abstractmethod
    def create_vector_index(self, dims: int) -> None:
        """Create the vector table/index for ``dims``-sized vectors (called once per store)."""

    def bind_embedder(self, identity: str, dims: int) -> None:
        """Record the embedder on first use; refuse one whose vector size differs from the store's."""
        stored = self.get_meta("embed_dims")
        if stored is None:
            self.create_vector_index(dims)
            self.set_meta("embed_dims", str(dims))
            self.set_meta("embedder", identity)
            return
        if int(stored) != dims:
            raise DimensionMismatchError(
                f"this store was built with embedder {self.get_meta('embedder')} ({stored} dims) but the "
                f"configured embedder {identity} makes {dims}-dim vectors; configure the original embedder, "
                "or use a new store and re-import an export into it"
            )
        if self.get_meta("embedder") != identity:
            self.set_meta("embedder", identity)  # same size, other model: `memlane reembed` refreshes vectors

    # --- writes ------------------------------------------------------------------------------
    @abstractmethod
    def apply(self, batch: WriteBatch) -> None:
        """Commit everything in ``batch`` atomically, or nothing."""

    # --- reads (all scoped to one user) -----------------------------------------------------
    @abstractmethod
    def get(self, user_id: str, memory_id: str) -> MemoryRecord | None: ...

    @abstractmethod
    def get_many(self, user_id: str, memory_ids: Sequence[str]) -> list[MemoryRecord]: ...

    @abstractmethod
    def list(
        self,
        user_id: str,
        conditions: Sequence[Condition] = (),
        *,
        limit: int = 100,
        offset: int = 0,
        newest_first: bool = True,
    ) -> list[MemoryRecord]:
        """Memories of one user matching ``conditions``, ordered by ``updated_at`` then id."""

    @abstractmethod
    def count(self, user_id: str, conditions: Sequence[Condition] = ()) -> int: ...

    @abstractmethod
    def vector_search(
        self,
        user_id: str,
        embedding: Sequence[float],
        conditions: Sequence[Condition] = (),
        *,
        limit: int = 10,
        offset: int = 0,
    ) -> list[ScoredRecord]:
        """Nearest memories by cosine similarity, best first, filtered in the database."""

    @abstractmethod
    def keyword_search(
        self,
        user_id: str,
        query: str,
        conditions: Sequence[Condition] = (),
        *,
        limit: int = 10,
        offset: int = 0,
    ) -> list[ScoredRecord]:
        """Full-text matches (FTS5 / tsvector), best first, filtered in the database."""

    @abstractmethod
    def history(self, user_id: str, memory_id: str | None = None, *, limit: int = 100) -> list[HistoryEntry]:
        """History rows, oldest first; all of the user's when ``memory_id`` is None."""

    @abstractmethod
    def relations(self, user_id: str, memory_ids: Sequence[str]) -> list[Relation]:
        """Edges touching any of ``memory_ids`` (either end)."""

    @abstractmethod
    def vectors(self, user_id: str, memory_ids: Sequence[str]) -> dict[str, list[float]]:
        """Stored vectors of the given memories (those that have one)."""

    @abstractmethod
    def list_users(self) -> list[str]: ...

    @abstractmethod
    def delete_user(self, user_id: str) -> int:
        """Remove everything the user has (memories, vectors, history, relations); return the count of
        memories removed."""

    # --- conveniences built on the contract ------------------------------------------------
    def upsert(
        self, record: MemoryRecord, embedding: Sequence[float] | None = None, history: Sequence[HistoryEntry] = ()
    ) -> None:
        self.apply(WriteBatch(upserts=[Upsert(record, embedding)], history=list(history)))

    def export_user(self, user_id: str, *, page: int = 500) -> Iterator[dict[str, Any]]:
        """Everything a user has, as JSON-ready rows tagged with ``kind``."""
        offset = 0
        while True:
            chunk = self.list(user_id, limit=page, offset=offset, newest_first=False)
            if not chunk:
                break
            for rec in chunk:
                yield {"kind": "memory", **rec.snapshot()}
            ids = [r.id for r in chunk]
            for rel in self.relations(user_id, ids):
                if rel.from_id in ids:
                    yield {"kind": "relation", **rel.model_dump(mode="json")}
            offset += page
        for entry in self.history(user_id, limit=10**9):
            yield {"kind": "history", **entry.model_dump(mode="json")}

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
