"""``Memory``: the one public API every interface (CLI, HTTP, LangGraph) uses."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from memlane.engine import validate as v
from memlane.engine.formation_api import FormationAPI
from memlane.engine.reembed import ReembedReport, reembed
from memlane.formation.events import EventBus, MemoryEvent
from memlane.formation.pipeline import Formation, Worker
from memlane.model.audit import history_entry
from memlane.model.config import Settings
from memlane.model.enums import HistoryEvent, MemoryState, MemoryType
from memlane.model.errors import NotFoundError, ValidationError
from memlane.model.filters import Condition, live, parse_filters
from memlane.model.ids import deterministic_id, new_id
from memlane.model.jobs import Change
from memlane.model.record import HistoryEntry, MemoryRecord, SearchHit, utcnow
from memlane.model.retrieval import ContextBlock, QueryResult
from memlane.model.time_buckets import buckets
from memlane.providers.embed import Embedder
from memlane.providers.llm.base import MemoryLLM
from memlane.retrieval.query import check_query, check_threshold
from memlane.retrieval.search import SearchRequest, search
from memlane.storage import Backend, Upsert, WriteBatch, open_backend

TIMED_TYPES = (MemoryType.EPISODIC, MemoryType.SESSION)


class Memory(FormationAPI):
    """Long-term memory for many users over one store.

    >>> mem = Memory("memlane.db", embedder="hash")
    >>> rec = mem.put("User lives in Lisbon.", user_id="maya", key="profile:residence:city")
    >>> [h.memory.summary for h in mem.search("where does maya live?", user_id="maya")]
    ['User lives in Lisbon.']
    """

    def __init__(
        self,
        db: str | None = None,
        *,
        embedder: str | Embedder | None = None,
        settings: Settings | None = None,
        backend: Backend | None = None,
        llm: str | MemoryLLM | None = None,
        switch_embedder: bool = False,
    ) -> None:
        """``switch_embedder`` opens a store made with another embedder of the same size, only to
        :meth:`reembed` it; otherwise a store refuses any embedder but its own."""
        self.settings = settings or Settings()
        if db is not None:
            self.settings = self.settings.model_copy(update={"db": db})
        if isinstance(embedder, Embedder):
            self.embedder = embedder
        else:
            from memlane.providers.embed.settings import embedder_from_settings

            chosen = self.settings if embedder is None else self.settings.model_copy(update={"embedder": embedder})
            self.embedder = embedder_from_settings(chosen)
        self.backend = backend or open_backend(self.settings.db)
        try:
            self.backend.bind_embedder(self.embedder.identity, self.embedder.dims, switching=switch_embedder)
        except Exception:
            if backend is None:
                self.backend.close()
            raise
        self.events = EventBus()
        self._llm = llm
        self.formation = Formation(self.backend, self.embedder, self._make_llm, self.settings, self.events)
        self._worker: Worker | None = None

    def _make_llm(self) -> MemoryLLM:
        if isinstance(self._llm, MemoryLLM):
            return self._llm
        from memlane.providers.llm.registry import llm_from_settings

        chosen = self.settings if self._llm is None else self.settings.model_copy(update={"llm": self._llm})
        return llm_from_settings(chosen)

    def close(self) -> None:
        self.stop_worker()
        self.backend.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- helpers -------------------------------------------------------------------------------
    def embed_text(self, record: MemoryRecord) -> str:
        """What is embedded for a memory: its summary, with the contextual header when configured
        (``MEMORY_EMBEDDING_HEADER``; see :mod:`memlane.retrieval.embed_text`)."""
        from memlane.retrieval.embed_text import memory_text

        return memory_text(record, self.settings)

    def reembed(self, *, missing_only: bool = False, user_id: str | None = None, batch_size: int = 64,
                restart: bool = False, progress: Callable[[int, int], None] | None = None) -> ReembedReport:
        """Re-embed stored memories with the current embedder and header (after a change of either);
        resumable, see :mod:`memlane.engine.reembed`."""
        return reembed(self, missing_only=missing_only, user_id=user_id, batch_size=batch_size,
                       restart=restart, progress=progress)

    def _require(self, user_id: str, memory_id: str) -> MemoryRecord:
        if not isinstance(memory_id, str) or not memory_id:
            raise ValidationError(f"memory id must be a non-empty string, got {memory_id!r}")
        record = self.backend.get(user_id, memory_id)
        if record is None:
            raise NotFoundError(f"no memory {memory_id!r} for user {user_id!r}")
        return record

    def _conditions(self, user_id: str, filters: Mapping[str, Any] | None, include_inactive: bool) -> builtins.list[Condition]:
        conds = parse_filters(filters, user_id=user_id)
        if not include_inactive and not any(c.field == "state" for c in conds):
            conds.extend(live())
        return conds

    def build_record(self, summary: str, *, user_id: str, **fields: Any) -> MemoryRecord:
        """Validate a new memory's fields and return the record (nothing is written)."""
        user = v.user_id(user_id)
        mtype = v.memory_type(fields.pop("type", MemoryType.SEMANTIC))
        key = v.key(fields.pop("key", None))
        at = v.when("at", fields.pop("at", None)) or utcnow()
        valid_from = v.when("valid_from", fields.pop("valid_from", None)) or at
        record = MemoryRecord(
            id=deterministic_id(user, mtype.value, key) if key else new_id(),
            user_id=user,
            type=mtype,
            key=key,
            summary=v.summary(summary, self.settings.memory_summary_max_chars),
            category=v.category(fields.pop("category", None), self.settings.categories),
            importance=v.importance(fields.pop("importance", 3)),
            pinned=v.flag("pinned", fields.pop("pinned", False)),
            tags=v.string_list("tags", fields.pop("tags", None)),
            entities=v.string_list("entities", fields.pop("entities", None)),
            source=v.source(fields.pop("source", "chat")),
            source_ref=v.optional_scope("source_ref", fields.pop("source_ref", None)),
            valid_from=valid_from,
            expires_at=v.when("expires_at", fields.pop("expires_at", None)),
            metadata=v.metadata(fields.pop("metadata", None), self.settings.memory_metadata_max_bytes),
            created_at=at,
            updated_at=at,
            **{n: v.optional_scope(n, fields.pop(n, None))
               for n in ("agent_id", "run_id", "actor_id", "thread_id", "chat_id")},
        )
        if fields:
            raise ValidationError(f"unknown field(s) for a memory: {', '.join(sorted(fields))}")
        if mtype in TIMED_TYPES:
            record.date_iso, record.week, record.year = buckets(valid_from, self.settings.timezone)
        return record

    # --- writes --------------------------------------------------------------------------------
    def put(self, summary: str, *, user_id: str, actor: str = "api", **fields: Any) -> MemoryRecord:
        """Store a ready memory. With ``key`` the id is ``uuid5(user|type::key)`` and the put is
        idempotent: the same key updates that memory in place (and is a no-op when nothing changed)."""
        return self.put_many([{"summary": summary, **fields}], user_id=user_id, actor=actor)[0]

    def put_many(
        self, items: Sequence[Mapping[str, Any]], *, user_id: str | None = None, actor: str = "api"
    ) -> builtins.list[MemoryRecord]:
        """Store many memories with batched embedding calls and one transaction. Each item may name
        its own ``user_id`` (bulk ingest across users); otherwise ``user_id`` applies to all."""
        if isinstance(items, Mapping) or not isinstance(items, Sequence):
            raise ValidationError("put_many takes a list of memories (dicts with at least 'summary')")
        built = [self.build_record(**{"user_id": user_id, **dict(item)}) for item in items]
        records = list({r.id: r for r in built}.values())  # the same key twice in one call: last wins
        existing: dict[str, MemoryRecord] = {}
        keyed = [r for r in records if r.key]  # only a keyed id can already exist; fresh ids are random
        for user in {r.user_id for r in keyed}:
            ids = [r.id for r in keyed if r.user_id == user]
            existing.update((r.id, r) for r in self.backend.get_many(user, ids))
        batch = WriteBatch()
        to_embed: builtins.list[MemoryRecord] = []
        out: builtins.list[MemoryRecord] = []
        for rec in records:
            old = existing.get(rec.id)
            if old is not None:
                given = next(dict(i) for i, b in zip(items, built, strict=True) if b.id == rec.id and b is rec)
                merged = old.model_copy(update={  # only what the caller gave; the rest stays as stored
                    f: getattr(rec, f) for f in ("summary", "category", "importance", "pinned", "tags",
                                                 "entities", "metadata", "source_ref", "expires_at")
                    if f in given
                })
                if merged == old:
                    out.append(old)
                    continue
                merged.updated_at = rec.updated_at
                merged.state = MemoryState.ACTIVE
                batch.history.append(history_entry(HistoryEvent.UPDATE, memory_id=rec.id, user_id=rec.user_id,
                                                   old=old, new=merged, reason="put with existing key", actor=actor))
                rec = merged
                if merged.summary == old.summary:
                    batch.upserts.append(Upsert(rec))
                    out.append(rec)
                    continue
            else:
                batch.history.append(history_entry(HistoryEvent.ADD, memory_id=rec.id, user_id=rec.user_id,
                                                   new=rec, reason="put", actor=actor))
            to_embed.append(rec)
            out.append(rec)
        vectors = self.embedder.embed([self.embed_text(r) for r in to_embed]) if to_embed else []
        batch.upserts.extend(Upsert(r, vec) for r, vec in zip(to_embed, vectors, strict=True))
        if batch.upserts or batch.history:
            self.backend.apply(batch)
        by_id = {r.id: r for r in out}
        return [by_id[r.id] for r in built]

    def update(
        self, memory_id: str, *, user_id: str, actor: str = "api", reason: str | None = None, **changes: Any
    ) -> MemoryRecord:
        """Change fields of a memory; re-embeds when the summary changes."""
        user = v.user_id(user_id)
        old = self._require(user, memory_id)
        allowed = {"summary", "category", "importance", "pinned", "tags", "entities", "metadata", "expires_at"}
        unknown = set(changes) - allowed
        if unknown:
            raise ValidationError(f"cannot update {', '.join(sorted(unknown))}; updatable: {', '.join(sorted(allowed))}")
        if old.state is MemoryState.PURGED:
            raise ValidationError(f"memory {memory_id} was purged and cannot be updated")
        clean: dict[str, Any] = {}
        if changes.get("summary") is not None:
            clean["summary"] = v.summary(changes["summary"], self.settings.memory_summary_max_chars)
        if changes.get("category") is not None:
            clean["category"] = v.category(changes["category"], self.settings.categories)
        if changes.get("importance") is not None:
            clean["importance"] = v.importance(changes["importance"])
        if changes.get("pinned") is not None:
            clean["pinned"] = v.flag("pinned", changes["pinned"])
        for name in ("tags", "entities"):
            if changes.get(name) is not None:
                clean[name] = v.string_list(name, changes[name])
        if changes.get("metadata") is not None:
            clean["metadata"] = v.metadata(changes["metadata"], self.settings.memory_metadata_max_bytes)
        if "expires_at" in changes:
            clean["expires_at"] = v.when("expires_at", changes["expires_at"])
        new = old.model_copy(update={**clean, "updated_at": utcnow()})
        new = MemoryRecord.model_validate(new.model_dump())
        if all(getattr(new, k) == getattr(old, k) for k in clean):
            return old
        vector = self.embedder.embed_one(self.embed_text(new)) if new.summary != old.summary else None
        self.backend.apply(WriteBatch(
            upserts=[Upsert(new, vector)],
            history=[history_entry(HistoryEvent.UPDATE, memory_id=old.id, user_id=user, old=old, new=new,
                                   reason=reason or "update", actor=actor)],
            changes=[self._change(new, "updated")],
        ))
        self._publish("memory.updated", new)
        return new

    def _set_state(
        self, memory_id: str, user_id: str, event: HistoryEvent, state: MemoryState,
        allowed_from: tuple[MemoryState, ...], actor: str, reason: str | None, **extra: Any,
    ) -> MemoryRecord:
        user = v.user_id(user_id)
        old = self._require(user, memory_id)
        if old.state not in allowed_from:
            raise ValidationError(
                f"cannot {event.value.lower()} memory {memory_id}: it is {old.state.value} "
                f"(allowed from: {', '.join(s.value for s in allowed_from)})"
            )
        new = old.model_copy(update={"state": state, "updated_at": utcnow(), **extra})
        change = "deleted" if state is MemoryState.SOFT_DELETED else "restored"
        self.backend.apply(WriteBatch(
            upserts=[Upsert(new)],
            history=[history_entry(event, memory_id=old.id, user_id=user, old=old, new=new,
                                   reason=reason or event.value.lower(), actor=actor)],
            changes=[self._change(new, change)],
        ))
        self._publish("memory.deleted" if change == "deleted" else "memory.updated", new)
        return new

    def _change(self, rec: MemoryRecord, event: str) -> Change:
        return Change(id=new_id(), user_id=rec.user_id, thread_id=rec.thread_id or "", memory_id=rec.id,
                      event=event, meta={"summary": rec.summary, "category": rec.category})

    def _publish(self, kind: str, rec: MemoryRecord) -> None:
        self.events.publish(MemoryEvent(type=kind, user_id=rec.user_id, thread_id=rec.thread_id, memory_id=rec.id,
                                        data={"id": rec.id, "type": rec.type.value, "category": rec.category,
                                              "summary": rec.summary, "state": rec.state.value}))

    def delete(self, memory_id: str, *, user_id: str, actor: str = "api", reason: str | None = None) -> MemoryRecord:
        """Soft delete: the memory leaves retrieval and can be restored until it is purged."""
        purge_at = utcnow() + timedelta(days=self.settings.memory_purge_after_days)
        return self._set_state(memory_id, user_id, HistoryEvent.DELETE, MemoryState.SOFT_DELETED,
                               (MemoryState.ACTIVE, MemoryState.SUPERSEDED), actor, reason, purge_at=purge_at)

    def restore(self, memory_id: str, *, user_id: str, actor: str = "api", reason: str | None = None) -> MemoryRecord:
        return self._set_state(memory_id, user_id, HistoryEvent.RESTORE, MemoryState.ACTIVE,
                               (MemoryState.SOFT_DELETED,), actor, reason, purge_at=None)

    def purge(self, memory_id: str, *, user_id: str, actor: str = "api", reason: str | None = None) -> None:
        """Remove a memory's content and vector for good; a tombstone and the history event remain."""
        user = v.user_id(user_id)
        old = self._require(user, memory_id)
        if old.state is MemoryState.PURGED:
            return
        self.backend.apply(WriteBatch(
            purge_ids=[old.id],
            history=[history_entry(HistoryEvent.PURGE, memory_id=old.id, user_id=user,
                                   reason=reason or "purge", actor=actor)],
        ))

    # --- reads ---------------------------------------------------------------------------------
    def get(self, memory_id: str, *, user_id: str) -> MemoryRecord:
        return self._require(v.user_id(user_id), memory_id)

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
        return self.backend.list(user, conds, limit=v.positive("limit", limit),
                                 offset=v.positive("offset", offset, allow_zero=True, maximum=10**9))

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
    ) -> builtins.list[SearchHit]:
        """Memories most relevant to ``query``, each with its score and breakdown."""
        user = v.user_id(user_id)
        query = check_query(query)
        threshold = None if threshold is None else check_threshold(threshold, self.settings)
        conds = self._conditions(user, filters, include_inactive)
        limit = v.positive("limit", limit, maximum=1000)
        offset = v.positive("offset", offset, allow_zero=True)
        now = v.when("at", at) or utcnow()
        request = SearchRequest(user_id=user, query=query, conditions=conds, now=now, limit=limit,
                                offset=offset, threshold=threshold)
        return search(self.backend, self.embedder, self.settings, request)

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
    ) -> ContextBlock:
        """The context block for a turn (seed 000/002/004): semantic first, then recent episodic, then
        session summaries, within a token budget; the delta header when memories changed since
        ``since_rev`` (the revision the thread last saw; the block carries the current one)."""
        from memlane.retrieval.context import build_context

        return build_context(self.backend, self.embedder, self.settings, query=query, user_id=v.user_id(user_id),
                             thread_id=v.optional_scope("thread_id", thread_id), since_rev=since_rev,
                             budget_tokens=budget_tokens, agent=agent, now=v.when("at", at) or utcnow())

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
    ) -> QueryResult:
        """Seed 001 §6's single ``memory.query`` tool, with the agent's category allowlist enforced."""
        from memlane.retrieval.query import memory_query

        return memory_query(self.backend, self.embedder, self.settings, query=query, user_id=v.user_id(user_id),
                            agent=agent, categories=categories, filters=filters, top_k=top_k, return_=return_,
                            budget_tokens=budget_tokens, threshold=threshold, now=v.when("at", at) or utcnow())

    def history(self, memory_id: str, *, user_id: str, limit: int = 100) -> builtins.list[HistoryEntry]:
        user = v.user_id(user_id)
        self._require(user, memory_id)
        return self.backend.history(user, memory_id, limit=v.positive("limit", limit, maximum=100_000))

    def users(self) -> builtins.list[str]:
        return self.backend.list_users()

    def export_user(self, user_id: str) -> Iterator[dict[str, Any]]:
        """Everything a user has (memories, relations, history) as JSON-ready rows tagged ``kind``."""
        return self.backend.export_user(v.user_id(user_id))

    def delete_user(self, user_id: str) -> int:
        """Remove everything a user has; returns how many memories went."""
        return self.backend.delete_user(v.user_id(user_id))

    def import_rows(self, rows: Iterable[Mapping[str, Any]], *, batch_size: int = 64) -> int:
        """Load rows written by :meth:`export_user` (re-embedding memories); returns memories imported."""
        from memlane.engine.importer import import_rows

        return import_rows(self, rows, batch_size=batch_size)
