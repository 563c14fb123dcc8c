"""``Memory``: the one public API every interface (CLI, HTTP, LangGraph) uses."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from memlane.engine import validate as v
from memlane.engine.formation_api import FormationAPI
from memlane.engine.jobs import Jobs
from memlane.engine.namespace import Renamed
from memlane.engine.procedures import Procedures
from memlane.engine.proposals import Proposals
from memlane.engine.reembed import ReembedReport, reembed
from memlane.engine.session_backfill import BackfillReport
from memlane.engine.sessions import Sessions
from memlane.engine.sharing import Sharing
from memlane.engine.worker import Worker
from memlane.engine.writes_api import WritesAPI
from memlane.formation import provisional
from memlane.formation.pipeline import Formation
from memlane.ledger.bus import EventBus
from memlane.lifecycle.bootstrap import GlobalBootstrap
from memlane.lifecycle.runner import Lifecycle
from memlane.model.config import Settings
from memlane.model.enums import MemoryType
from memlane.model.errors import NotFoundError, ValidationError
from memlane.model.filters import Condition, live, parse_filters
from memlane.model.ids import new_id
from memlane.model.jobs import OpCount, OpEvent
from memlane.model.misfiled import Misfiled
from memlane.model.record import HistoryEntry, MemoryRecord, SearchHit, utcnow
from memlane.model.retrieval import ContextBlock, QueryResult
from memlane.model.search_presets import with_preset
from memlane.model.totals import MemoryTotals
from memlane.providers.embed import Embedder
from memlane.providers.llm.base import MemoryLLM
from memlane.retrieval.query import check_query, check_threshold
from memlane.retrieval.search import SearchRequest, search
from memlane.storage import Backend, open_backend
from memlane.telemetry import record, span


class Memory(FormationAPI, WritesAPI):
    """Long-term memory for many users over one store. A user's reads see their own memories and
    those shared with them (see :class:`~memlane.engine.sharing.Sharing`).

    >>> mem = Memory("memlane.db", embedder="hash")
    >>> rec = mem.put("User lives in Lisbon.", user_id="maya", key="profile:residence:city")
    >>> [h.memory.summary for h in mem.search("where does maya live?", user_id="maya")]
    ['User lives in Lisbon.']

    Beside the core calls here, namespaces: ``mem.sessions``, ``mem.proposals``, ``mem.procedures``,
    ``mem.sharing`` and ``mem.jobs``.
    """

    # the flat names of namespace calls, kept one release; each warns with its new name
    accept_proposal = Renamed("proposals", Proposals.accept)
    reject_proposal = Renamed("proposals", Proposals.reject)
    proposal = Renamed("proposals", Proposals.get)
    add_procedure = Renamed("procedures", Procedures.add)
    procedure = Renamed("procedures", Procedures.get)
    share = Renamed("sharing", Sharing.share)
    unshare = Renamed("sharing", Sharing.unshare)
    shared_with = Renamed("sharing", Sharing.shared_with)
    put_global = Renamed("sharing", Sharing.put_global)
    list_global = Renamed("sharing", Sharing.list_global)
    purge_global = Renamed("sharing", Sharing.purge_global)
    record_messages = Renamed("sessions", Sessions.record_messages)
    record_message = Renamed("sessions", Sessions.record_message)
    session = Renamed("sessions", Sessions.get)
    session_messages = Renamed("sessions", Sessions.messages)
    latest_session = Renamed("sessions", Sessions.latest)
    delete_session = Renamed("sessions", Sessions.delete)
    pending = Renamed("jobs", Jobs.pending)
    outcomes = Renamed("jobs", Jobs.outcomes)
    retry_job = Renamed("jobs", Jobs.retry)
    retry_jobs = Renamed("jobs", Jobs.retry_many)

    def __init__(
        self,
        db: str | None = None,
        *,
        embedder: str | Embedder | None = None,
        settings: Settings | None = None,
        backend: Backend | None = None,
        llm: str | MemoryLLM | None = None,
        switch_embedder: bool = False,
        summary_llm: MemoryLLM | None = None,
    ) -> None:
        """``switch_embedder`` opens a store made with another embedder of the same size, only to
        :meth:`reembed` it; otherwise a store refuses any embedder but its own. ``summary_llm``: the
        model of session summaries (default: ``CONTEXT_SESSION_SUMMARY_MODEL`` with the configured
        provider, else the memory LLM)."""
        self.settings = settings or Settings()
        if db is not None:
            self.settings = self.settings.model_copy(update={"db": db})
        if isinstance(embedder, Embedder):
            self.embedder = embedder
        else:
            from memlane.providers.embed.settings import embedder_from_settings

            chosen = (
                self.settings if embedder is None else self.settings.model_copy(update={"embedder": embedder})
            )
            self.embedder = embedder_from_settings(chosen)
        self.backend = backend or open_backend(self.settings.db, self.settings)
        try:
            self.backend.bind_embedder(self.embedder.identity, self.embedder.dims, switching=switch_embedder)
        except Exception:
            if backend is None:
                self.backend.close()
            raise
        self.events = EventBus()
        self._llm, self._summary_llm = llm, summary_llm
        self.formation = Formation(self.backend, self.embedder, self._make_llm, self.settings, self.events)
        self.lifecycle = Lifecycle(self.formation, self._make_summary_llm)
        self.bootstrap = GlobalBootstrap(
            self.backend, self.events, self.settings.memory_global_bootstrap_below
        )
        self._worker: Worker | None = None
        self.proposals = Proposals(self)
        self.procedures = Procedures(self)
        self.sharing = Sharing(self)
        self.jobs = Jobs(self)
        self.sessions = Sessions(self)
        if self.backend.job_kinds:  # the backend's own jobs (a vector channel's sync) wake the worker
            self.backend.on_jobs = self._wake_worker

    def _make_llm(self) -> MemoryLLM:
        if isinstance(self._llm, MemoryLLM):
            return self._llm
        from memlane.providers.llm.registry import llm_from_settings

        chosen = self.settings if self._llm is None else self.settings.model_copy(update={"llm": self._llm})
        return llm_from_settings(chosen)

    def _make_summary_llm(self) -> MemoryLLM:
        from memlane.providers.llm.registry import summary_llm_from_settings

        provider = (
            self.settings.model_copy(update={"llm": self._llm})
            if isinstance(self._llm, str)
            else self.settings
        )
        chosen = self._summary_llm or summary_llm_from_settings(provider)
        return self.formation.llm if chosen is None else chosen

    def close(self) -> None:
        self.stop_worker()
        self.backend.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- helpers -------------------------------------------------------------------------------
    def reembed(
        self,
        *,
        missing_only: bool = False,
        user_id: str | None = None,
        batch_size: int = 64,
        restart: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> ReembedReport:
        """Re-embed stored memories with the current embedder and header (after a change of either);
        resumable, see :mod:`memlane.engine.reembed`."""
        return reembed(
            self,
            missing_only=missing_only,
            user_id=user_id,
            batch_size=batch_size,
            restart=restart,
            progress=progress,
        )

    def backfill_sessions(
        self,
        *,
        user_id: str | None = None,
        batch_size: int = 64,
        rate: float | None = None,
        progress: Callable[[int, int, int], None] | None = None,
    ) -> BackfillReport:
        """Embed the recorded messages (and session summaries) that have no vector of the current
        embedder: missing-only, resumable, at most ``rate`` texts a second; see
        :mod:`memlane.engine.session_backfill`."""
        from memlane.engine.session_backfill import backfill

        return backfill(
            self,
            user_id=None if user_id is None else v.user_id(user_id),
            batch_size=batch_size,
            rate=rate,
            progress=progress,
        )

    def _conditions(
        self, user_id: str, filters: Mapping[str, Any] | None, include_inactive: bool
    ) -> builtins.list[Condition]:
        conds = parse_filters(filters, user_id=user_id)
        if not include_inactive and not any(c.field == "state" for c in conds):
            conds.extend(live())
        return conds

    # --- reads ---------------------------------------------------------------------------------
    def get(self, memory_id: str, *, user_id: str) -> MemoryRecord:
        """The user's memory, or one shared with them. The id of a candidate the hot path handed back
        reads at once: ``state="provisional"`` until it is decided, then the memory it became."""
        user, mid = v.user_id(user_id), v.memory_id(memory_id)
        record = self.backend.memories.get(user, mid, shared=True) or provisional.read(
            self.backend, self.settings, user, mid
        )
        if record is None:
            raise NotFoundError(f"no memory {memory_id!r} for user {user_id!r}")
        return record

    def list(
        self,
        *,
        user_id: str,
        filters: Mapping[str, Any] | None = None,
        limit: int = 100,
        offset: int = 0,
        include_inactive: bool = False,
    ) -> builtins.list[MemoryRecord]:
        user = v.user_id(user_id)
        conds = self._conditions(user, filters, include_inactive)
        limit, offset = (
            v.positive("limit", limit),
            v.positive("offset", offset, allow_zero=True, maximum=10**9),
        )
        self.bootstrap.ensure(user)
        return self.backend.memories.list(user, conds, limit=limit, offset=offset, shared=True)

    def search(
        self,
        query: str,
        *,
        user_id: str,
        filters: Mapping[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        threshold: float | None = None,
        include_inactive: bool = False,
        at: datetime | str | None = None,
        preset: str | None = None,
    ) -> builtins.list[SearchHit]:
        """Memories most relevant to ``query``, each with its score and breakdown. ``preset``: a named
        retrieval preset (``balanced``, ``recent-first``, ``precise``, ``broad``; None: the process's)."""
        settings = with_preset(self.settings, preset)
        user = v.user_id(user_id)
        query = check_query(query)
        threshold = None if threshold is None else check_threshold(threshold, settings)
        conds = self._conditions(user, filters, include_inactive)
        limit = v.positive("limit", limit, maximum=1000)
        offset = v.positive("offset", offset, allow_zero=True)
        now = v.when("at", at) or utcnow()
        request = SearchRequest(
            user_id=user,
            query=query,
            conditions=conds,
            now=now,
            limit=limit,
            offset=offset,
            threshold=threshold,
        )
        with span("search", limit=limit, conditions=len(conds)) as current:
            self.bootstrap.ensure(user)
            hits = search(self.backend, self.embedder, settings, request)
            self.backend.memories.record_access(user, [h.memory.id for h in hits], now)
            record(current, results=len(hits))
        return hits

    def context(
        self,
        query: str,
        *,
        user_id: str,
        thread_id: str | None = None,
        since_rev: int | None = None,
        budget_tokens: int | None = None,
        agent: str | None = None,
        at: datetime | str | None = None,
        chat_id: str | None = None,
        preset: str | None = None,
    ) -> ContextBlock:
        """The context block for a turn: semantic memories first, then recent episodic, then
        session summaries and earlier group-chat messages (of ``chat_id`` when given), within a token
        budget, with up to two memories linked to a shown one as ``related:`` bullets under it; the delta header when memories changed since ``since_rev`` (the revision the thread
        last saw; the block carries the current one). ``preset``: as in :meth:`search`."""
        from memlane.retrieval.context import build_context

        settings = with_preset(self.settings, preset)
        user, now = v.user_id(user_id), v.when("at", at) or utcnow()
        with span("context") as current:
            self.bootstrap.ensure(user)
            block = build_context(
                self.backend,
                self.embedder,
                settings,
                query=query,
                user_id=user,
                thread_id=v.optional_scope("thread_id", thread_id),
                since_rev=since_rev,
                budget_tokens=budget_tokens,
                agent=agent,
                now=now,
                chat_id=v.optional_scope("chat_id", chat_id),
            )
            shown = [*block.semantic, *block.episodic, *block.shared, *block.sessions]
            op = OpEvent(
                id=new_id(),
                user_id=user,
                thread_id=thread_id,
                node="context",
                op="search",
                status="ok" if shown else "skipped",
                at=now,
                sim=max((h.breakdown.similarity for h in shown), default=None),
            )
            used = [h.memory.id for h in shown] + [r.memory.id for r in block.related]
            self.backend.memories.record_access(user, used, now, [op])
            record(
                current,
                semantic=len(block.semantic),
                episodic=len(block.episodic),
                shared=len(block.shared),
                sessions=len(block.sessions),
                related=len(block.related),
                messages=len(block.messages),
                changes=len(block.delta),
                tokens=block.tokens,
                dropped=block.dropped,
            )
        return block

    def op_counts(
        self,
        *,
        since: datetime | str | None = None,
        until: datetime | str | None = None,
        user_id: str | None = None,
    ) -> builtins.list[OpCount]:
        """Operational tracking: op events per UTC day, node (hotpath, worker, context),
        op and status, from ``since`` (default: 7 days ago) to ``until`` (default: now); one user's, or
        everyone's counts."""
        end = v.when("until", until) or utcnow()
        start = v.when("since", since) or end - timedelta(days=7)
        if start >= end:
            raise ValidationError(f"since ({start.isoformat()}) must be before until ({end.isoformat()})")
        return self.backend.changes.op_counts(
            start, end, user_id=None if user_id is None else v.user_id(user_id)
        )

    def query(
        self,
        query: str,
        *,
        user_id: str,
        agent: str,
        categories: Sequence[str] | None = None,
        filters: Mapping[str, Any] | None = None,
        top_k: int = 3,
        return_: str = "bullets",
        budget_tokens: int | None = None,
        threshold: float | None = None,
        at: datetime | str | None = None,
        preset: str | None = None,
    ) -> QueryResult:
        """An agent's ``memory.query``: a search within the categories the agent's allowlist grants.
        ``preset``: as in :meth:`search`."""
        from memlane.retrieval.query import memory_query

        settings = with_preset(self.settings, preset)
        user, now = v.user_id(user_id), v.when("at", at) or utcnow()
        with span("query") as current:  # top_k is recorded once memory_query has validated it
            self.bootstrap.ensure(user)
            result = memory_query(
                self.backend,
                self.embedder,
                settings,
                query=query,
                user_id=user,
                agent=agent,
                categories=categories,
                filters=filters,
                top_k=top_k,
                return_=return_,
                budget_tokens=budget_tokens,
                threshold=threshold,
                now=now,
            )
            self.backend.memories.record_access(
                user, [str(item["id"]) for item in result.items if "id" in item], now
            )
            record(
                current,
                top_k=top_k,
                results=len(result.items),
                categories=len(result.categories),
                tokens=result.tokens,
                dropped=result.dropped,
            )
        return result

    def history(self, memory_id: str, *, user_id: str, limit: int = 100) -> builtins.list[HistoryEntry]:
        """The memory's audit rows: of the user's own memory, all; of one shared with them, its owner's
        rows and theirs; of one they no longer see (unshared, replaced), their own rows of it."""
        user, mid = v.user_id(user_id), v.memory_id(memory_id)
        rows = self.backend.memories.history(
            user, mid, limit=v.positive("limit", limit, maximum=100_000), shared=True
        )
        if not rows and self.backend.memories.get(user, mid, shared=True) is None:
            raise NotFoundError(f"no memory {memory_id!r} for user {user_id!r}")
        return rows

    def retype(
        self,
        memory_id: str,
        *,
        user_id: str,
        type: MemoryType | str,
        actor: str = "api",
        reason: str | None = None,
    ) -> MemoryRecord:
        """Move a memory filed under the wrong type between ``semantic`` and ``episodic``, with a history
        row ("retyped from episodic to semantic", or ``reason``). The memory keeps its id, text and
        vector; a keyed memory moves to its key's id under the new type (the old id stays in history,
        superseded by it), so the returned record's id is the one to use. An unknown id, another
        user's memory, the type it already has or a type outside the two changes nothing and raises.
        See :mod:`memlane.engine.retype`."""
        from memlane.engine.retype import retype

        return retype(self, memory_id, user_id=user_id, type=type, actor=actor, reason=reason)

    def misfiled(self, *, user_id: str, limit: int = 100) -> builtins.list[Misfiled]:
        """The user's memories whose type looks wrong, with the type they look like and why (nothing is
        changed; :meth:`retype` moves one). The two signs: an episodic memory with a deterministic key
        (keys name lasting facts), a semantic one dated by a relative past phrase ("yesterday", "last
        week": a one-off event). See :func:`memlane.engine.retype.misfiled`."""
        from memlane.engine.retype import misfiled

        return misfiled(self, user_id=user_id, limit=limit)

    def users(self) -> builtins.list[str]:
        return self.backend.memories.list_users()

    def totals(self, *, top_users: int = 0) -> MemoryTotals:
        """Every user's memories counted: by state, active ones per user, and the ``top_users`` users
        with the most active memories (their ids; none by default). For operators (``/metrics``)."""
        if top_users < 0:
            raise ValidationError(f"top_users must be 0 or more, got {top_users}")
        return self.backend.memories.totals(top=top_users)

    def export_user(self, user_id: str) -> Iterator[dict[str, Any]]:
        """Everything a user has (memories, relations, history) as JSON-ready rows tagged ``kind``."""
        return self.backend.export_user(v.user_id(user_id))

    def delete_user(self, user_id: str) -> int:
        """Remove everything a user has; returns how many memories went. The deleted rows' bytes are
        zeroed (SQLite's ``secure_delete``); :meth:`compact` then takes the freed pages out of the file."""
        return self.backend.delete_user(v.user_id(user_id))

    def compact(self) -> dict[str, int]:
        """Rewrite the store so deleted and purged content leaves its files and the space returns
        (SQLite: the write-ahead log emptied and ``VACUUM``; PostgreSQL: ``VACUUM FULL`` of memlane's
        tables). Writers wait while it runs. Returns ``bytes_before`` and ``bytes_after``."""
        return self.backend.compact()

    def import_rows(
        self, rows: Iterable[Mapping[str, Any]], *, batch_size: int = 64, user_id: str | None = None
    ) -> int:
        """Load rows written by :meth:`export_user` (re-embedding memories); returns memories imported.
        With ``user_id``, one user's export is imported as that user's (new ids; see ``import_as``)."""
        from memlane.engine.importer import import_rows

        return import_rows(self, rows, batch_size=batch_size, user_id=user_id)
