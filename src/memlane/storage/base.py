"""The one storage contract every backend implements (and the shared contract tests exercise).

The reads are the backend's typed parts (:mod:`memlane.storage.parts`: ``backend.memories``,
``.jobs``, ``.sessions``, ``.changes``, ``.proposals``). Tenancy: every read takes ``user_id`` as a
required argument and every backend filters on it in the database. A read with ``shared=True`` (what
retrieval asks for) also sees the active memories of others linked to the user (shared with them, or
global; see :mod:`memlane.storage.links`); without it, only the user's own. Writes go through
:meth:`Backend.apply`, which commits a :class:`WriteBatch` (records, vectors, history, relations) in
one transaction, so a write that fails midway leaves nothing half-written.
"""

from __future__ import annotations

import builtins
import threading
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memlane.model.consent import Proposal
from memlane.model.errors import BackendError, DimensionMismatchError, EmbedderMismatchError
from memlane.model.jobs import Change, Job, OpEvent
from memlane.model.link import MemoryLink
from memlane.model.record import HistoryEntry, MemoryRecord, Relation
from memlane.model.session import ChatSession, SessionFilter, SessionMessage
from memlane.storage.parts import ChangeLog, JobQueue, MemoryStore, ProposalStore, SessionStore
from memlane.storage.parts.memories import ScoredRecord as ScoredRecord  # re-exported: its old home

SCHEMA_VERSION = 8  # PostgreSQL's; SQLite's is in sqlite/migrations.py
PENDING_EMBEDDER = "embedder:pending"  # meta: the embedder a started re-embed is switching to
_LOCKS_GUARD = threading.Lock()


@dataclass
class Upsert:
    """Write ``record``. ``embedding`` replaces the stored vector; ``None`` keeps the one stored
    (a new record written without a vector is simply not vector-searchable)."""

    record: MemoryRecord
    embedding: Sequence[float] | None = None


@dataclass(frozen=True)
class Purge:
    """Forget a memory: its content, key, vector and every copy of its text (history snapshots,
    change-log rows, job payloads) go; a tombstone record and the history's event rows stay."""

    user_id: str
    memory_id: str
    # the survivor of a consolidation merge that absorbed the memory, and the tags and entities the
    # memory brought it: they leave every snapshot in the survivor's history
    absorbed_by: str | None = None
    brought: tuple[str, ...] = ()


@dataclass(frozen=True)
class Unlink:
    """Close ``user_id``'s open link to ``memory_id`` at ``at`` (the other users' links stay)."""

    user_id: str
    memory_id: str
    at: datetime


@dataclass
class WriteBatch:
    upserts: builtins.list[Upsert] = field(default_factory=list)
    history: builtins.list[HistoryEntry] = field(default_factory=list)
    relations: builtins.list[Relation] = field(default_factory=list)
    purges: builtins.list[Purge] = field(default_factory=list)
    links: builtins.list[MemoryLink] = field(default_factory=list)  # opened (or reopened), before any unlink
    unlinks: builtins.list[Unlink] = field(default_factory=list)
    changes: builtins.list[Change] = field(
        default_factory=list
    )  # rev (per thread) and seq (per user) set on commit
    op_events: builtins.list[OpEvent] = field(default_factory=list)
    jobs: builtins.list[Job] = field(default_factory=list)  # enqueued in the same transaction
    schedule: builtins.list[Job] = field(default_factory=list)  # enqueued unless a job of that id exists
    # (user_id, pair fingerprint, when): pairs consolidation judged; the time is replaced when judged again
    pair_checks: builtins.list[tuple[str, str, datetime]] = field(default_factory=list)
    # Consent proposals, inserted or updated by id. An update applies only to a proposal still pending
    # (and of the same user), or nothing is written (ConflictError): a proposal is decided once.
    proposals: builtins.list[Proposal] = field(default_factory=list)
    # Chat sessions, inserted or updated by id, and chat messages, inserted (model/session.py).
    # A session of another user's, or an update lowering its message count (planned from a stale read),
    # refuses the batch (ConflictError).
    sessions: builtins.list[ChatSession] = field(default_factory=list)
    messages: builtins.list[SessionMessage] = field(default_factory=list)
    # (user_id, session_id): sessions forgotten with their messages, after the writes above
    dropped_sessions: builtins.list[tuple[str, str]] = field(default_factory=list)
    complete_job: str | None = None  # marked done in the same transaction as the writes it made
    # With ``complete_job``: the worker that must still hold the job's lease, or nothing is written
    # (LeaseLostError): a worker whose lease expired cannot apply work another worker redoes.
    job_owner: str | None = None
    job_result: dict[str, Any] | None = None  # replaces the completed job's payload (no user text is kept)


class Backend(ABC):
    """Storage contract. Implementations: ``sqlite`` (embedded default) and ``postgres``.

    The backend itself holds the schema, the store-wide settings and the writes; the reads are its
    typed parts (:mod:`memlane.storage.parts`)."""

    name: str
    memories: MemoryStore
    jobs: JobQueue
    sessions: SessionStore
    changes: ChangeLog
    proposals: ProposalStore
    local_reads = False  # True: a read costs no round trip (in-process), so more, smaller reads are fine
    # Jobs of these kinds are the backend's own work (a vector channel's sync): the worker claims them
    # with formation's and runs them with :meth:`run_job`; ``on_jobs`` (set by ``Memory``) is called
    # after a commit that enqueued some, to wake the worker.
    job_kinds: tuple[str, ...] = ()
    on_jobs: Callable[[], None] | None = None

    # --- lifecycle -------------------------------------------------------------------------
    @abstractmethod
    def migrate(self) -> int:
        """Apply pending schema migrations (idempotent); return the schema version now in force.
        Raise :class:`SchemaVersionError` when the database is newer than this code."""

    @abstractmethod
    def schema_version(self) -> int: ...

    @abstractmethod
    def close(self) -> None: ...

    def compact(self) -> dict[str, int]:
        """Rewrite the store so what was deleted or purged leaves its files (SQLite: the write-ahead
        log is emptied and the file rebuilt by ``VACUUM``; PostgreSQL: ``VACUUM FULL`` of memlane's
        tables). Blocks writers while it runs. Returns the sizes it measured, in bytes."""
        raise BackendError(f"the {self.name} backend cannot compact its store")

    @abstractmethod
    def get_meta(self, key: str) -> str | None:
        """Store-wide settings, e.g. ``embedder`` and ``embed_dims``."""

    @abstractmethod
    def set_meta(self, key: str, value: str) -> None: ...

    @property
    def has_vectors(self) -> bool:
        """False where this store keeps no vectors (PostgreSQL without pgvector): searches are by
        keyword only and ``vector_search`` finds nothing."""
        return True

    def notices(self) -> list[str]:
        """What this store cannot do where it runs, each a sentence for a person (logged once at
        startup; ``/healthz`` shows them)."""
        return []

    @abstractmethod
    def create_vector_index(self, dims: int) -> None:
        """Create the vector table/index for ``dims``-sized vectors (called once per store)."""

    def bind_embedder(self, identity: str, dims: int, *, switching: bool = False) -> None:
        """Record the embedder on first use; afterwards refuse any other one (its queries would be
        compared with vectors another model made). ``switching`` admits another embedder of the same
        size for ``reembed``, which records it once every memory has been re-embedded."""
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
        if switching:
            return
        recorded, pending = self.get_meta("embedder"), self.get_meta(PENDING_EMBEDDER)
        if pending:
            raise EmbedderMismatchError(
                f"a re-embed of this store with {pending} did not finish; run `memlane reembed` with that "
                "embedder again to complete it (searches would mix two models' vectors until then)"
            )
        if recorded != identity:
            raise EmbedderMismatchError(
                f"this store's vectors were made by embedder {recorded} but the configured embedder is "
                f"{identity}; configure {recorded} again (MEMLANE_EMBEDDER, --embedder), or re-embed every "
                "memory with the new one: `memlane reembed --embedder ...` (Memory.reembed)"
            )

    def run_job(self, job: Job) -> dict[str, Any]:
        """Run one of the :attr:`job_kinds` jobs (idempotently); return the outcome the done job keeps."""
        raise BackendError(f"the {self.name} backend runs no {job.kind!r} jobs")

    # --- writes ------------------------------------------------------------------------------
    @abstractmethod
    def apply(self, batch: WriteBatch) -> None:
        """Commit everything in ``batch`` atomically, or nothing."""

    @abstractmethod
    def apply_planned(
        self, reads: Mapping[str, Sequence[str]], plan: Callable[[dict[str, MemoryRecord]], WriteBatch]
    ) -> WriteBatch:
        """Read-modify-write without a lost update: read the records ``reads`` names (user id -> memory
        ids; those that exist) under the write transaction's lock, let ``plan`` build the batch from
        what is stored now, and commit it in that same transaction. Concurrent callers for the same
        users run one after the other. Returns the committed batch."""

    # --- reads (all scoped to one user) -----------------------------------------------------

    @abstractmethod
    def delete_user(self, user_id: str) -> int:
        """Remove everything the user has (memories, vectors, history, relations, proposals, sessions,
        messages, jobs, the links they hold and the links to their memories); return the count of
        memories removed."""

    # --- background jobs, change log, op events -----------------------------------------------

    @contextmanager
    def user_lock(self, user_id: str) -> Iterator[None]:
        """Serialise formation decisions of one user (in-process default; Postgres uses advisory locks)."""
        with _LOCKS_GUARD:
            locks = self.__dict__.setdefault("_user_locks", weakref.WeakValueDictionary())
            lock = locks.get(user_id)
            if lock is None:
                lock = locks[user_id] = threading.RLock()
        with lock:
            yield

    # --- conveniences built on the contract ------------------------------------------------
    def upsert(
        self,
        record: MemoryRecord,
        embedding: Sequence[float] | None = None,
        history: Sequence[HistoryEntry] = (),
    ) -> None:
        self.apply(WriteBatch(upserts=[Upsert(record, embedding)], history=list(history)))

    def export_user(self, user_id: str, *, page: int = 500) -> Iterator[dict[str, Any]]:
        """Everything a user has, as JSON-ready rows tagged with ``kind``: memory, relation, history, then
        each chat session followed by its messages."""
        offset = 0
        while True:
            chunk = self.memories.list(user_id, limit=page, offset=offset, newest_first=False)
            if not chunk:
                break
            for rec in chunk:
                yield {"kind": "memory", **rec.snapshot()}
            ids = [r.id for r in chunk]
            for rel in self.memories.relations(user_id, ids):
                if rel.from_id in ids:
                    yield {"kind": "relation", **rel.model_dump(mode="json")}
            offset += page
        for entry in self.memories.history(user_id, limit=10**9):
            yield {"kind": "history", **entry.model_dump(mode="json")}
        for session in self.sessions.chat_sessions(
            user_id, SessionFilter(), limit=10**9
        ):  # oldest first, as recorded
            yield {"kind": "session", **session.model_dump(mode="json")}
            for message in self.sessions.session_messages(user_id, session.id, limit=10**9):
                yield {"kind": "message", **message.model_dump(mode="json")}

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
