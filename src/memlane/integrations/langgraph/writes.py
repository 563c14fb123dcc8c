"""The store's writes, planned here and committed by the engine (``Memory.commit_mutation``): puts and
deletes with history, change rows and events; TTL refreshes (bookkeeping only) and sweeps."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from langgraph.store.base import PutOp
from pydantic_core import to_jsonable_python

from memlane.integrations.langgraph import items
from memlane.integrations.langgraph.vectors import encode, index_texts
from memlane.ledger.mutations import Mutation
from memlane.model.enums import MemoryState, MemoryType
from memlane.model.record import MemoryRecord, utcnow
from memlane.model.time_buckets import buckets

if TYPE_CHECKING:
    from memlane.integrations.langgraph.store import MemlaneStore

TIMED = (MemoryType.EPISODIC, MemoryType.SESSION)


@dataclass
class Prepared:
    """A put with its texts embedded (done before any lock is taken)."""

    op: PutOp
    user: str
    id: str
    value: dict[str, Any] | None = None  # JSON-ready (datetimes as ISO text, as PostgresStore returns them)
    derived: items.Derived | None = None
    vec: Any = None  # None: not indexed; "summary": the record's own vector; [base64, ...]: its own
    summary_vector: list[float] | None = None


def _commit(store: MemlaneStore, m: Mutation) -> None:
    """Commit through the engine, with history snapshots that leave out the items' vectors (they are
    derived data, and large)."""
    for entry in m.batch.history:
        for snap in (entry.old_value, entry.new_value):
            meta = (snap or {}).get("metadata", {}).get(items.LG)
            if isinstance(meta, dict) and isinstance(meta.get("vec"), list):
                meta["vec"] = f"<{len(meta['vec'])} vector(s)>"
    store.memory.commit_mutation(m)


def prepare(store: MemlaneStore, ops: Sequence[PutOp]) -> list[Prepared]:
    """Derive each value's record fields and embed every text of the batch in one call."""
    settings = store.memory.settings
    out: list[Prepared] = []
    texts: list[str] = []
    spans: list[tuple[Prepared, int, list[str]]] = []
    for op in ops:
        user, rid = items.record_id(tuple(op.namespace), op.key, store.user_of(op.namespace))
        p = Prepared(op, user, rid)
        out.append(p)
        if op.value is None:
            continue
        p.value = value = to_jsonable_python(dict(op.value))
        fields = None if op.index is False else (op.index if op.index is not None else store.index_fields)
        found = index_texts(value, fields) if fields else []
        p.derived = items.derive(
            value, tuple(op.namespace), found, settings.categories, settings.memory_summary_max_chars
        )
        if op.index is False:
            continue
        wanted = found if fields else [p.derived.summary]
        spans.append((p, len(texts), wanted))
        texts.extend(wanted if p.derived.summary in wanted else [*wanted, p.derived.summary])
    vectors = store.memory.embedder.embed(texts) if texts else []
    for p, start, wanted in spans:
        assert p.derived is not None
        own = vectors[start : start + len(wanted)]
        at = wanted.index(p.derived.summary) if p.derived.summary in wanted else len(wanted)
        p.summary_vector = vectors[start + at]
        p.vec = "summary" if wanted == [p.derived.summary] else [encode(v) for v in own]
    return out


def apply_puts(store: MemlaneStore, ops: Sequence[PutOp]) -> None:
    last: dict[tuple[tuple[str, ...], str], PutOp] = {}
    for op in ops:  # the same item twice in one batch: the last put wins
        last[(tuple(op.namespace), op.key)] = op
    prepared = prepare(store, list(last.values()))
    by_user: dict[str, list[Prepared]] = {}
    for p in prepared:
        by_user.setdefault(p.user, []).append(p)
    for user, group in by_user.items():
        with store.backend.user_lock(user):
            existing = store.find(user, [(tuple(p.op.namespace), p.op.key) for p in group])
            m = Mutation(actor=store.actor)
            for p in group:
                _plan(store, p, existing.get((tuple(p.op.namespace), p.op.key)), m)
            _commit(store, m)


def _plan(store: MemlaneStore, p: Prepared, old: MemoryRecord | None, m: Mutation) -> None:
    now = utcnow()
    live = old if old is not None and old.state is MemoryState.ACTIVE else None
    if p.op.value is None:
        if live is not None:
            m.delete(
                live,
                now + timedelta(days=store.memory.settings.memory_purge_after_days),
                "langgraph store delete",
            )
        return
    assert p.derived is not None
    d, ns, ttl = p.derived, tuple(p.op.namespace), p.op.ttl
    meta = {"ns": list(ns), "key": p.op.key, "value": p.value, "ttl": ttl, "vec": p.vec}
    expires = now + timedelta(minutes=ttl) if ttl is not None else None
    fields: dict[str, Any] = {
        "summary": d.summary,
        "category": d.category,
        "tags": d.tags,
        "entities": d.entities,
        "importance": d.importance,
        "pinned": d.pinned,
        "source": d.source,
        "type": d.type,
        "expires_at": expires,
        "state": MemoryState.ACTIVE,
    }
    if old is None:
        base = MemoryRecord(
            id=p.id,
            user_id=p.user,
            summary=d.summary,
            created_at=now,
            updated_at=now,
            valid_from=now,
            metadata={},
        )
    else:
        base = old
        if (
            live is not None
            and items.store_meta(live) == meta
            and all(getattr(live, k) == v for k, v in fields.items() if k != "expires_at")
        ):
            if expires is not None:  # the same put again only restarts the TTL
                m.touch(live.model_copy(update={"expires_at": expires}))
            return
    key = p.op.key if len(ns) == 2 and items.namespace_type(ns) else base.key
    if old is not None and old.key is None and p.op.key == old.id:
        key = None  # a key-less memory addressed by its id keeps having no key
    record = MemoryRecord.model_validate(
        {
            **base.model_dump(),
            **fields,
            "key": key,
            "updated_at": now,
            "metadata": {**base.metadata, items.LG: meta},
            "valid_to": None,
            "superseded_by": None,
            "purge_at": None,
        }
    )
    if record.type in TIMED and record.date_iso is None and record.valid_from is not None:
        record.date_iso, record.week, record.year = buckets(record.valid_from, store.memory.settings.timezone)
    vector = p.summary_vector
    if vector is None and old is not None and old.summary != record.summary:
        vector = store.memory.embedder.embed_one(record.summary)  # no stale vector under a new summary
    if old is None:
        m.create(record, vector, "langgraph store put")
    else:
        m.update(old, record, vector, "langgraph store put")


def refresh(store: MemlaneStore, touched: Iterable[MemoryRecord]) -> None:
    """Restart the TTL of items just read (``refresh_ttl``): bookkeeping, like ``last_accessed``,
    so no history row. Re-read under the user's lock, so a concurrent put is never overwritten."""
    by_user: dict[str, set[str]] = {}
    for rec in touched:
        meta = items.store_meta(rec)
        if meta is not None and meta.get("ttl") is not None:
            by_user.setdefault(rec.user_id, set()).add(rec.id)
    now = utcnow()
    for user, ids in by_user.items():
        with store.backend.user_lock(user):
            m = Mutation(actor=store.actor)
            for rec in store.backend.memories.get_many(user, sorted(ids)):
                meta = items.store_meta(rec)
                if rec.state is MemoryState.ACTIVE and meta is not None and meta.get("ttl") is not None:
                    m.touch(rec.model_copy(update={"expires_at": now + timedelta(minutes=meta["ttl"])}))
            store.memory.commit_mutation(m)  # touches only: no change row, so no event


def expired(rec: MemoryRecord, now: datetime) -> bool:
    return rec.expires_at is not None and rec.expires_at <= now


def sweep(store: MemlaneStore) -> int:
    """Soft-delete items whose TTL ran out (with a history row); return how many."""
    now, count = utcnow(), 0
    for user in [store.bound_user] if store.bound_user else store.backend.memories.list_users():
        due = [
            r.id
            for r in store.scan(user)
            if expired(r, now) and (items.store_meta(r) or {}).get("ttl") is not None
        ]
        if not due:
            continue
        with store.backend.user_lock(user):
            m = Mutation(actor=store.actor)
            for rec in store.backend.memories.get_many(user, due):
                if rec.state is MemoryState.ACTIVE and expired(rec, utcnow()):
                    m.delete(
                        rec,
                        utcnow() + timedelta(days=store.memory.settings.memory_purge_after_days),
                        "ttl expired",
                    )
            _commit(store, m)
            count += len(m.batch.upserts)
    return count
