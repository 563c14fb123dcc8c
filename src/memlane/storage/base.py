"""The one storage contract every backend implements (and the shared contract tests exercise).

Tenancy lives here: every read takes ``user_id`` as a required argument and every backend filters on
it in the database. A read with ``shared=True`` (what retrieval asks for) also sees the active
memories of others linked to the user (shared with them, or global; see :mod:`memlane.storage.links`);
without it, only the user's own. Writes go through :meth:`Backend.apply`, which commits a :class:`WriteBatch`
(records, vectors, history, relations) in one transaction, so a write that fails midway leaves
nothing half-written.
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

from memlane.model.consent import Proposal, ProposalFilter
from memlane.model.errors import BackendError, DimensionMismatchError, EmbedderMismatchError
from memlane.model.filters import Condition
from memlane.model.jobs import Change, Job, JobStatus, OpCount, OpEvent
from memlane.model.link import MemoryLink
from memlane.model.record import HistoryEntry, MemoryRecord, Relation
from memlane.model.session import ChatSession, MessageHit, SessionFilter, SessionMessage

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


@dataclass(frozen=True)
class ScoredRecord:
    record: MemoryRecord
    score: float  # vector: cosine similarity in [-1, 1]; keyword: a positive relevance, higher is better


class Backend(ABC):
    """Storage contract. Implementations: ``sqlite`` (embedded default) and ``postgres``."""

    name: str
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
    def get(self, user_id: str, memory_id: str, *, shared: bool = False) -> MemoryRecord | None: ...

    @abstractmethod
    def get_many(
        self, user_id: str, memory_ids: Sequence[str], *, shared: bool = False
    ) -> builtins.list[MemoryRecord]: ...

    @abstractmethod
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

    @abstractmethod
    def count(self, user_id: str, conditions: Sequence[Condition] = (), *, shared: bool = False) -> int: ...

    @abstractmethod
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

    @abstractmethod
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

    @abstractmethod
    def history(
        self, user_id: str, memory_id: str | None = None, *, limit: int = 100, shared: bool = False
    ) -> builtins.list[HistoryEntry]:
        """History rows, oldest first; all of the user's when ``memory_id`` is None. With ``shared`` (and
        a ``memory_id``), also the owner's rows of a memory linked to the user (not their share rows)."""

    @abstractmethod
    def relations(self, user_id: str, memory_ids: Sequence[str]) -> builtins.list[Relation]:
        """Edges touching any of ``memory_ids`` (either end)."""

    @abstractmethod
    def vectors(
        self, user_id: str, memory_ids: Sequence[str], *, shared: bool = False
    ) -> dict[str, builtins.list[float]]:
        """Stored vectors of the given memories (those that have one)."""

    @abstractmethod
    def links(self, user_id: str, memory_id: str | None = None) -> builtins.list[MemoryLink]:
        """Memory links, open and closed: every link the user holds (``memory_id`` None); or the links of
        one memory: all of them when the user owns it, else the user's own link to it (if any)."""

    @abstractmethod
    def list_users(self) -> builtins.list[str]:
        """Users with memories or history (not the owner of global memories, ``GLOBAL_USER``)."""

    @abstractmethod
    def proposals(self, user_id: str, where: ProposalFilter, *, limit: int = 100) -> builtins.list[Proposal]:
        """The user's consent proposals matching ``where``, oldest first, filtered in the database."""

    @abstractmethod
    def get_proposal(self, user_id: str, proposal_id: str) -> Proposal | None: ...

    @abstractmethod
    def chat_sessions(
        self, user_id: str, where: SessionFilter, *, limit: int = 100
    ) -> builtins.list[ChatSession]:
        """The user's chat sessions matching ``where``, oldest first, filtered in the database."""

    @abstractmethod
    def latest_sessions(self, user_id: str, chat_ids: Sequence[str]) -> dict[str, ChatSession]:
        """Each of the chats' latest session (the last started), for the chats that have one."""

    @abstractmethod
    def session_messages(
        self, user_id: str, session_id: str, *, limit: int = 1000
    ) -> builtins.list[SessionMessage]:
        """The messages of one of the user's sessions, oldest first."""

    @abstractmethod
    def messages_by_id(self, user_id: str, ids: Sequence[str]) -> builtins.list[SessionMessage]:
        """The user's recorded messages among ``ids`` (an idempotent record reads what it stored before)."""

    @abstractmethod
    def search_messages(
        self,
        user_id: str,
        *,
        text: str,
        vector: Sequence[float] | None,
        embedder: str,
        chat_id: str | None = None,
        limit: int = 20,
    ) -> builtins.list[MessageHit]:
        """The user's recorded messages (of one chat when given) best matching ``text`` by keyword and
        ``vector`` by cosine (against the vectors ``embedder`` made), ``limit`` of each, merged by id;
        a keyword hit gets its similarity when it has a vector of that embedder."""

    @abstractmethod
    def messages_without_vector(
        self, user_id: str, embedder: str, *, limit: int = 256
    ) -> builtins.list[SessionMessage]:
        """The user's messages with no vector of ``embedder`` yet, oldest first."""

    @abstractmethod
    def put_message_vectors(self, user_id: str, embedder: str, vectors: Mapping[str, Sequence[float]]) -> int:
        """Store (or replace) the vectors of the user's messages of those ids, one transaction; a message
        of another user's, or gone, is skipped. Returns how many were stored. Derived data, like an index:
        no history, no event."""

    @abstractmethod
    def delete_user(self, user_id: str) -> int:
        """Remove everything the user has (memories, vectors, history, relations, proposals, sessions,
        messages, jobs, the links they hold and the links to their memories); return the count of
        memories removed."""

    # --- background jobs, change log, op events -----------------------------------------------
    @abstractmethod
    def claim_job(
        self, worker_id: str, *, lease_seconds: float, now: datetime, kinds: Sequence[str] | None = None
    ) -> Job | None:
        """Take the oldest runnable job (pending and due, or running with an expired lease) of one of
        ``kinds`` (any kind when None) and lease it to ``worker_id``; attempts is incremented. Safe with
        many workers (SKIP LOCKED on Postgres, the write lock on SQLite)."""

    @abstractmethod
    def scheduled_users(self, kind: str) -> set[str]:
        """Users with a pending or running job of ``kind`` (the scheduler seeds the others)."""

    @abstractmethod
    def checked_pairs(self, user_id: str, since: datetime) -> set[str]:
        """Fingerprints of the user's pairs consolidation judged at or after ``since``."""

    @abstractmethod
    def record_access(
        self, user_id: str, memory_ids: Sequence[str], at: datetime, ops: Sequence[OpEvent] = ()
    ) -> None:
        """Retrieval bookkeeping: ``access_count`` + 1 and ``last_accessed`` moved forward to ``at``
        (never back) on the memories of those ids the user owns or has linked (a shared memory in use is
        not unused), and the read's op events, in one transaction; no history, no event."""

    @abstractmethod
    def fail_job(self, job_id: str, error: str, *, retry_at: datetime | None) -> None:
        """Record a failure: back to pending at ``retry_at``, or parked when ``retry_at`` is None."""

    @abstractmethod
    def list_jobs(
        self, status: JobStatus | None = None, *, user_id: str | None = None, limit: int = 100
    ) -> builtins.list[Job]: ...

    @abstractmethod
    def get_jobs(self, user_id: str, job_ids: Sequence[str]) -> builtins.list[Job]:
        """The user's jobs of those ids (those that exist), in no particular order."""

    @abstractmethod
    def retry_jobs(
        self, job_ids: Sequence[str] | None = None, *, user_id: str | None = None
    ) -> builtins.list[str]:
        """Parked -> pending now, attempts reset: the parked jobs of ``job_ids`` (every parked job when
        None), of ``user_id`` only when given; returns the ids retried, sorted."""

    def retry_job(self, job_id: str) -> bool:
        """Parked -> pending now, attempts reset; False if no such parked job."""
        return bool(self.retry_jobs([job_id]))

    @abstractmethod
    def count_jobs(self, user_id: str, kind: str, since: datetime) -> int:
        """Jobs of ``kind`` created for the user since ``since`` (rate limits)."""

    @abstractmethod
    def recent_jobs(self, user_id: str, kind: str, *, before: datetime, limit: int) -> builtins.list[Job]:
        """The user's newest ``limit`` jobs of ``kind`` created before ``before``, newest first (the
        episodic cooldown's previous turns)."""

    @abstractmethod
    def thread_revision(self, user_id: str, thread_id: str) -> int: ...

    @abstractmethod
    def changes_since(
        self, user_id: str, thread_id: str, rev: int, *, limit: int = 50
    ) -> builtins.list[Change]:
        """Change-log rows of the thread with ``rev`` greater than ``rev``, oldest first."""

    @abstractmethod
    def changes_after(self, user_id: str, seq: int, *, limit: int = 100) -> builtins.list[Change]:
        """The user's change-log rows (every thread) with ``seq`` greater than ``seq``, oldest first."""

    @abstractmethod
    def op_events(self, user_id: str, *, limit: int = 100) -> builtins.list[OpEvent]:
        """Newest first."""

    @abstractmethod
    def op_counts(
        self, since: datetime, until: datetime, *, user_id: str | None = None
    ) -> builtins.list[OpCount]:
        """Op events in ``[since, until)`` counted per UTC day, node, op and status (one user's, or
        everyone's: an operator's view, counts only), by day then node, op and status."""

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
        for session in self.chat_sessions(user_id, SessionFilter(), limit=10**9):  # oldest first, as recorded
            yield {"kind": "session", **session.model_dump(mode="json")}
            for message in self.session_messages(user_id, session.id, limit=10**9):
                yield {"kind": "message", **message.model_dump(mode="json")}

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
