"""The writes of :class:`~memlane.engine.memory.Memory`: put, update, delete, restore, purge, link.

Each validates its input, plans a :class:`~memlane.ledger.mutations.Mutation` from the records read
under the write lock, and commits it through the one write path (one change row and one event per write).
"""

from __future__ import annotations

import builtins
import warnings
from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from typing import Any

from memlane.engine import validate as v
from memlane.ledger.bus import EventBus
from memlane.ledger.commit import commit, commit_planned
from memlane.ledger.mutations import Mutation
from memlane.lifecycle.purge import purge_all
from memlane.lifecycle.purge import scope as purge_scope
from memlane.model.category import title_case
from memlane.model.config import Settings
from memlane.model.enums import MemoryState, MemoryType
from memlane.model.errors import ConflictError, ForbiddenError, NotFoundError, ValidationError
from memlane.model.ids import GLOBAL_USER, deterministic_id, new_id
from memlane.model.procedure import CATEGORY as PROCEDURAL
from memlane.model.record import MemoryRecord, Relation, utcnow
from memlane.model.time_buckets import buckets
from memlane.providers.embed import Embedder
from memlane.storage import Backend

TIMED_TYPES = (MemoryType.EPISODIC, MemoryType.SESSION)


class WritesAPI:
    """Mixed into ``Memory``, as :class:`~memlane.engine.formation_api.FormationAPI` is: every write of
    every interface (CLI, HTTP, LangGraph) goes through these methods."""

    settings: Settings
    backend: Backend
    embedder: Embedder
    events: EventBus

    def embed_text(self, record: MemoryRecord) -> str:
        """What is embedded for a memory: its summary, with the contextual header when configured
        (``MEMORY_EMBEDDING_HEADER``; see :mod:`memlane.retrieval.embed_text`)."""
        from memlane.retrieval.embed_text import memory_text

        return memory_text(record, self.settings)

    def _require(self, user_id: str, memory_id: str) -> MemoryRecord:
        """The user's own memory (one only shared with them is a ForbiddenError)."""
        return self._owned(
            {v.memory_id(memory_id): self.backend.memories.get(user_id, memory_id)}, user_id, memory_id
        )

    def _owned(self, stored: Mapping[str, MemoryRecord | None], user_id: str, memory_id: str) -> MemoryRecord:
        """``memory_id`` as read under the write lock (``stored``: the user's own records), or the error
        that says why the user cannot change it: no such memory, or one they only see through a link."""
        record = stored.get(memory_id)
        if record is not None:
            return record
        seen = self.backend.memories.get(user_id, memory_id, shared=True)
        if seen is None:
            raise NotFoundError(f"no memory {memory_id!r} for user {user_id!r}")
        owner = "a global memory" if seen.user_id == GLOBAL_USER else f"shared with them by {seen.user_id!r}"
        raise ForbiddenError(
            f"memory {memory_id} is {owner}: user {user_id!r} may read it but not change it; "
            "unshare it to remove it from their memories"
        )

    def build_record(self, summary: str, *, user_id: str, **fields: Any) -> MemoryRecord:
        """Validate a new memory's fields and return the record (nothing is written)."""
        return self._build(summary, v.user_id(user_id), dict(fields))

    def _build(self, summary: str, user: str, fields: dict[str, Any]) -> MemoryRecord:
        """:meth:`build_record` for an owner already checked (a user, or ``GLOBAL_USER``)."""
        mtype = v.memory_type(fields.pop("type", MemoryType.SEMANTIC))
        key = v.key(fields.pop("key", None))
        retry_key = v.idempotency_key(fields.pop("idempotency_key", None))
        at = v.when("at", fields.pop("at", None)) or utcnow()
        valid_from = v.when("valid_from", fields.pop("valid_from", None)) or at
        record = MemoryRecord(
            id=deterministic_id(user, mtype.value, key)
            if key
            else (deterministic_id(user, "idempotency", retry_key) if retry_key else new_id()),
            user_id=user,
            type=mtype,
            key=key,
            summary=v.summary(summary, self.settings.memory_summary_max_chars),
            category=_category(mtype, fields.pop("category", None), self.settings.categories),
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
            **{
                n: v.optional_scope(n, fields.pop(n, None))
                for n in ("agent_id", "run_id", "actor_id", "thread_id", "chat_id")
            },
        )
        if fields:
            raise ValidationError(f"unknown field(s) for a memory: {', '.join(sorted(fields))}")
        if mtype in TIMED_TYPES:
            record.date_iso, record.week, record.year = buckets(valid_from, self.settings.timezone)
        return record

    def put(self, summary: str, *, user_id: str, actor: str = "api", **fields: Any) -> MemoryRecord:
        """Store a ready memory. With ``key`` the id is ``uuid5(user|type::key)`` and the put is
        idempotent: the same key updates that memory in place (and is a no-op when nothing changed).
        Without a key, ``idempotency_key`` makes a retried put return the memory the first one made."""
        return self.put_many([{"summary": summary, **fields}], user_id=user_id, actor=actor)[0]

    def put_many(
        self, items: Sequence[Mapping[str, Any]], *, user_id: str | None = None, actor: str = "api"
    ) -> builtins.list[MemoryRecord]:
        """Store many memories with batched embedding calls and one transaction. Each item may name
        its own ``user_id`` (bulk ingest across users); otherwise ``user_id`` applies to all.

        An item with ``key`` updates the memory of that key with the fields it gives (the rest stay
        as stored); one with ``idempotency_key`` (and no key) is created once: a retry returns the
        memory the first call made. Both are read under the write transaction's lock, so concurrent
        puts of one key write one memory and a true history."""
        if isinstance(items, Mapping) or not isinstance(items, Sequence):
            raise ValidationError("put_many takes a list of memories (dicts with at least 'summary')")
        built = [self.build_record(**{"user_id": user_id, **dict(item)}) for item in items]
        return self._store(items, built, actor)

    def _store(
        self, items: Sequence[Mapping[str, Any]], built: builtins.list[MemoryRecord], actor: str
    ) -> builtins.list[MemoryRecord]:
        """:meth:`put_many` once the records are built."""
        given = {b.id: set(dict(i)) for i, b in zip(items, built, strict=True)}
        retried = {
            b.id for i, b in zip(items, built, strict=True) if b.key is None and i.get("idempotency_key")
        }
        records = list({r.id: r for r in built}.values())  # the same key twice in one call: last wins
        reads: dict[str, builtins.list[str]] = {}
        for r in records:  # only a keyed or idempotent id can already exist; fresh ids are random
            if r.key or r.id in retried:
                reads.setdefault(r.user_id, []).append(r.id)
        seen = {r.id: r for user, ids in reads.items() for r in self.backend.memories.get_many(user, ids)}
        vectors = _Vectors(self)  # embed outside the lock the texts the stored records suggest
        planned = [
            r if r.id not in seen else _given(seen[r.id], r, given[r.id])
            for r in records
            if r.id not in seen or r.id not in retried
        ]
        vectors.prepare([r for r in planned if r.id not in seen or r.summary != seen[r.id].summary])
        out: dict[str, MemoryRecord] = {}

        def plan(stored: dict[str, MemoryRecord]) -> Mutation:
            m = Mutation(actor=actor)
            for rec in records:
                old = stored.get(rec.id)
                if old is None:
                    m.create(rec, vectors.of(rec), "put")
                    out[rec.id] = rec
                elif rec.id in retried:
                    if old.summary != rec.summary and old.state is not MemoryState.PURGED:
                        raise ConflictError(
                            f"idempotency key already used for memory {old.id} with another "
                            "summary; use a new key for a new memory"
                        )
                    out[rec.id] = old  # a retry: the first call's result
                else:
                    new = _given(old, rec, given[rec.id])
                    if new == old:
                        out[rec.id] = old
                        continue
                    new.updated_at, new.state = rec.updated_at, MemoryState.ACTIVE
                    m.update(
                        old,
                        new,
                        vectors.of(new) if new.summary != old.summary else None,
                        "put with existing key",
                    )
                    out[rec.id] = new
            return m

        commit_planned(self.backend, self.events, reads, plan)
        return [out[r.id] for r in built]

    def commit_mutation(self, mutation: Mutation) -> None:
        """Commit record writes an integration planned itself (the LangGraph store's puts, deletes,
        TTL sweeps and refreshes, read under its user's lock) through the write path: one transaction,
        then one event per change row. Only creates, updates, soft deletes, restores and bookkeeping
        of valid users are taken; purges, links, shares, proposals, sessions and jobs go through the
        methods that check who may make them."""
        commit(self.backend, self.events, v.record_writes(mutation))

    def update(
        self, memory_id: str, *, user_id: str, actor: str = "api", reason: str | None = None, **changes: Any
    ) -> MemoryRecord:
        """Change fields of a memory; re-embeds when the summary changes."""
        user = v.user_id(user_id)
        allowed = {
            "summary",
            "category",
            "importance",
            "pinned",
            "tags",
            "entities",
            "metadata",
            "expires_at",
        }
        unknown = set(changes) - allowed
        if unknown:
            raise ValidationError(
                f"cannot update {', '.join(sorted(unknown))}; updatable: {', '.join(sorted(allowed))}"
            )
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

        def changed(old: MemoryRecord) -> MemoryRecord:
            if old.state is MemoryState.PURGED:
                raise ValidationError(f"memory {memory_id} was purged and cannot be updated")
            return MemoryRecord.model_validate(
                old.model_copy(update={**clean, "updated_at": utcnow()}).model_dump()
            )

        vectors = _Vectors(self)
        if "summary" in clean:
            vectors.prepare([changed(self._require(user, memory_id))])
        result: builtins.list[MemoryRecord] = []

        def plan(stored: dict[str, MemoryRecord]) -> Mutation:
            old = self._owned(stored, user, memory_id)
            new = changed(old)
            m = Mutation(actor=actor)
            if all(getattr(new, k) == getattr(old, k) for k in clean):
                result.append(old)
                return m
            m.update(old, new, vectors.of(new) if new.summary != old.summary else None, reason or "update")
            result.append(new)
            return m

        commit_planned(self.backend, self.events, {user: [v.memory_id(memory_id)]}, plan)
        return result[0]

    def _change_state(
        self,
        memory_id: str,
        user_id: str,
        verb: str,
        allowed_from: tuple[MemoryState, ...],
        write: Callable[[Mutation, MemoryRecord], MemoryRecord | None],
        actor: str,
    ) -> MemoryRecord | None:
        """Soft delete, restore or purge under the write lock, from the states ``allowed_from``."""
        user = v.user_id(user_id)
        result: builtins.list[MemoryRecord | None] = []

        def plan(stored: dict[str, MemoryRecord]) -> Mutation:
            old = self._owned(stored, user, memory_id)
            if old.state not in allowed_from:
                raise ValidationError(
                    f"cannot {verb} memory {memory_id}: it is {old.state.value} "
                    f"(allowed from: {', '.join(s.value for s in allowed_from)})"
                )
            m = Mutation(actor=actor)
            result.append(write(m, old))
            return m

        commit_planned(self.backend, self.events, {user: [v.memory_id(memory_id)]}, plan)
        return result[0]

    def delete(
        self, memory_id: str, *, user_id: str, actor: str = "api", reason: str | None = None
    ) -> MemoryRecord:
        """Soft delete: the memory leaves retrieval and can be restored until it is purged."""
        purge_at = utcnow() + timedelta(days=self.settings.memory_purge_after_days)
        rec = self._change_state(
            memory_id,
            user_id,
            "delete",
            (MemoryState.ACTIVE, MemoryState.SUPERSEDED),
            lambda m, old: m.delete(old, purge_at, reason or "delete"),
            actor,
        )
        assert rec is not None
        return rec

    def restore(
        self, memory_id: str, *, user_id: str, actor: str = "api", reason: str | None = None
    ) -> MemoryRecord:
        rec = self._change_state(
            memory_id,
            user_id,
            "restore",
            (MemoryState.SOFT_DELETED,),
            lambda m, old: m.restore(old, reason or "restore"),
            actor,
        )
        assert rec is not None
        return rec

    def purge(self, memory_id: str, *, user_id: str, actor: str = "api", reason: str | None = None) -> None:
        """Forget a memory for good, with the older versions it superseded and the insights inferred
        from them: their content, key, tags, metadata and vectors, and every copy of their text in
        history (reasons that quote it included), the change log, proposals and job payloads, are
        removed; a merge's survivor loses the tags and entities a purged duplicate brought it.
        Tombstones and the history's events (ids, event names, times, actors) remain. Purging a
        purged memory does nothing. (docs/lifecycle.md, "What a purge forgets".)"""
        self._purge(v.user_id(user_id), memory_id, actor, reason)

    def _purge(self, user: str, memory_id: str, actor: str, reason: str | None) -> None:
        """:meth:`purge` for an owner already checked (a user, or ``GLOBAL_USER``)."""
        mid = v.memory_id(memory_id)
        reach = purge_scope(self.backend, user, [mid])

        def plan(stored: dict[str, MemoryRecord]) -> Mutation:
            self._owned(stored, user, memory_id)
            m = Mutation(actor=actor)
            purge_all(m, stored, [mid], reason or "purge", reach.brought)
            return m

        commit_planned(self.backend, self.events, {user: reach.ids}, plan)

    def link(
        self,
        from_id: str,
        to_id: str,
        *,
        user_id: str,
        relation_type: str = "related",
        strength: float = 1.0,
        actor: str = "api",
    ) -> Relation:
        """Relate two memories of the user (an edge retrieval follows); linking them again does nothing."""
        user = v.user_id(user_id)
        if from_id == to_id:
            raise ValidationError("a memory cannot be linked to itself; give two different memory ids")
        if not isinstance(relation_type, str) or not relation_type.strip() or len(relation_type) > 64:
            raise ValidationError("relation_type must be a non-empty string of at most 64 characters")
        if isinstance(strength, bool) or not isinstance(strength, int | float) or not 0.0 <= strength <= 1.0:
            raise ValidationError(f"strength must be a number between 0 and 1, got {strength!r}")
        rel = Relation(
            from_id=from_id,
            to_id=to_id,
            user_id=user,
            relation_type=relation_type.strip(),
            strength=float(strength),
            created_at=utcnow(),
        )

        def plan(stored: dict[str, MemoryRecord]) -> Mutation:
            for mid in (from_id, to_id):
                if self._owned(stored, user, mid).state is MemoryState.PURGED:
                    raise ValidationError(f"memory {mid} was purged and cannot be linked")
            m = Mutation(actor=actor)
            if not any(
                r.to_id == to_id
                for r in self.backend.memories.relations(user, [from_id])
                if r.from_id == from_id
            ):
                m.link(stored[from_id], rel, f"linked to {to_id} ({rel.relation_type})")
            return m

        commit_planned(self.backend, self.events, {user: [v.memory_id(from_id), v.memory_id(to_id)]}, plan)
        return rel


PUT_FIELDS = (
    "summary",
    "category",
    "importance",
    "pinned",
    "tags",
    "entities",
    "metadata",
    "source_ref",
    "expires_at",
)


def _category(mtype: MemoryType, value: Any, allowed: Sequence[str]) -> str:
    """A procedural memory is always in ``Procedural`` (another category given is a warning, as an unknown
    one is): agent allowlists decide who reads procedures."""
    if mtype is not MemoryType.PROCEDURAL:
        return v.category(value, allowed)
    if value is not None and title_case(str(value)) != PROCEDURAL:
        warnings.warn(
            f"a procedural memory is filed under {PROCEDURAL}, not {value!r}",
            v.UnknownCategoryWarning,
            stacklevel=4,
        )
    return PROCEDURAL


def _given(old: MemoryRecord, rec: MemoryRecord, given: set[str]) -> MemoryRecord:
    """``old`` with the fields a keyed put gave (the rest stay as stored)."""
    return old.model_copy(update={f: getattr(rec, f) for f in PUT_FIELDS if f in given})


class _Vectors:
    """Vectors of the texts a write embeds: prepared in one batch before the write lock is taken;
    a text that changed meanwhile (a concurrent write) is embedded under the lock."""

    def __init__(self, memory: WritesAPI) -> None:
        self.memory = memory
        self.known: dict[str, Sequence[float]] = {}

    def prepare(self, records: Sequence[MemoryRecord]) -> None:
        texts = list(dict.fromkeys(self.memory.embed_text(r) for r in records))
        self.known.update(zip(texts, self.memory.embedder.embed(texts), strict=True) if texts else ())

    def of(self, record: MemoryRecord) -> Sequence[float]:
        text = self.memory.embed_text(record)
        if text not in self.known:
            self.known[text] = self.memory.embedder.embed_one(text)
        return self.known[text]
