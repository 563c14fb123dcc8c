"""``MemlaneStore``: LangGraph's ``BaseStore`` over any memlane backend.

How items map onto memlane records:

- **User scope.** One namespace label names the memlane user (``user_label.py``). By default the
  first (seed-style ``(user_id, "semantic")``, LangGraph's ``(user_id, "memories")``), or the second
  after a collection label (LangMem's ``("memories", "{user_id}")``); ``user_namespace_index`` fixes
  it (an index, or a template). A collection label or a memory type is never a user: refused. A label that is not a valid user id
  (``"my docs"``, ``"用户"``) maps to the stable scope ``lg:<sha256 prefix>``, so every namespace works
  and tenancy still holds per label. Reads are per user: a search or listing must name the user in its
  prefix, or the store is bound to one (``user_id=...``: other users' namespaces are refused), or it
  opted in to reads across users (``cross_user=True``); otherwise it is refused.
- **One item, one record.** ``put(ns, key, value)`` writes one memory of that user. Its id is memlane's
  keyed id ``uuid5(user|type::key)`` for ``(user, type)`` namespaces (so ``store.put(("maya", "semantic"),
  "profile:pet:luna:age", ...)`` and ``Memory.put(..., key="profile:pet:luna:age")`` are one memory),
  else ``uuid5`` of the whole path. The namespace, key, TTL, the value verbatim and the item's own vectors
  live in ``record.metadata["langgraph"]``; the value also fills the record's fields: ``summary`` (from
  ``summary``, LangMem's ``content`` or ``content.content``, ``text``, else the first indexed text or the
  JSON), ``category``, ``tags``, ``entities``, ``importance``, ``pinned``, ``source``, and ``type`` (the
  namespace's second label when it names a memory type, else the value's ``type``, else semantic).
  A put indexed by fields (the index config's or its own) with no text there and no summary is a
  ``MissingSummaryError`` naming the field to add, and nothing of the batch is stored.
- **memlane's own memories show too.** A memory formed by memlane (``Memory.add``/``put``) appears in
  ``(user_id, type)`` under its key (or its id when it has none) with memlane's own value (summary,
  category, tags, importance, ...). When memlane later changes a store-written memory (a merge's new
  summary, an edited category), the item's value shows the changed fields.
- **Writes keep history.** A put is an ADD or UPDATE history row (actor ``langgraph``); a delete is a
  soft delete (restorable until purged). Only active memories are items.
- **Search.** ``query=None`` lists newest first. A query is ranked by the database's vector search
  (cosine similarity of each memory's summary vector, per user, filtered on state and type in the
  database), widening the candidate pool until the namespace prefix and value filters leave a full
  page; items without vectors follow. With an ``index`` config an item's vectors are its own (LangGraph's
  max pooling over the texts its ``index`` fields select; ``distance_type`` cosine, inner_product or l2),
  kept in its metadata, so those stores rank over the user's items here. Filters are LangGraph's
  (``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``, nested dicts) over the item value.
- **Embeddings.** The store embeds with the Memory's embedder (``MemlaneStore.open(index=...)`` builds one
  over ``index["embed"]``). Without an index config an item embeds its summary, as memlane does.
- **TTL** as LangGraph defines it: ``ttl`` minutes sets ``expires_at``; reads with ``refresh_ttl``
  restart it; ``omit_expired`` hides expired items before a sweep; ``sweep_ttl``/``start_ttl_sweeper``
  soft-delete expired items.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import heapq
import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
    validate_op_namespace,
)

from memlane.engine.memory import Memory
from memlane.integrations.langgraph import items, match, writes
from memlane.integrations.langgraph.user_label import UserLabel, check_user_id
from memlane.integrations.langgraph.vectors import (
    DISTANCES,
    LangChainEmbedder,
    as_array,
    best_scores,
    decode,
    embed_query,
    require_text,
)
from memlane.model.enums import MemoryState
from memlane.model.filters import Condition
from memlane.model.record import MemoryRecord, utcnow
from memlane.storage.base import Backend

log = logging.getLogger("memlane.langgraph")
PAGE = 500
Address = tuple[tuple[str, ...], str]


class MemlaneStore(BaseStore):
    """A LangGraph store whose items are memlane memories (see the module docstring)."""

    supports_ttl = True

    def __init__(
        self,
        memory: Memory,
        *,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        actor: str = "langgraph",
        user_namespace_index: int | Sequence[str] | None = None,
        user_id: str | None = None,
        cross_user: bool = False,
    ) -> None:
        """``user_namespace_index``: which namespace label names the memlane user (0: ``(user, ...)``;
        LangMem's ``("memories", "{user_id}")``: 1), or a namespace template whose ``{...}`` label marks
        it; ``None`` (default) detects it (see ``user_label.py``). ``user_id`` binds the store to one user: namespaces naming another are refused, and reads
        that name no user read that one. ``cross_user=True`` opts in to reads across users
        (``search(())``, ``list_namespaces()``), which are refused otherwise."""
        self.memory, self.actor, self.cross_user = memory, actor, cross_user
        self.user_label = UserLabel(user_namespace_index)
        self.user_index = self.user_label.fixed
        if user_id is not None:
            check_user_id(user_id)
        self.bound_user = None if user_id is None else items.scope_user(user_id)
        self.index_config: IndexConfig | None = None
        self.index_fields: list[str] | None = None
        self.distance = "cosine"
        if index:
            self.index_config = index.copy()
            embedder = memory.embedder
            if "embed" in index and not (
                isinstance(embedder, LangChainEmbedder) and embedder.source is index["embed"]
            ):
                raise ValueError(
                    "the store embeds with memory.embedder: open it with MemlaneStore.open(db, "
                    "index=...), or drop 'embed' from the index config"
                )
            if index.get("dims") not in (None, embedder.dims):
                raise ValueError(
                    f"index dims={index.get('dims')} but the memory's embedder makes {embedder.dims}"
                )
            self.index_fields = list(index.get("fields") or ["$"])
            self.distance = str(index.get("distance_type", "cosine"))
            if self.distance not in DISTANCES:
                raise ValueError(
                    f"unsupported distance_type {self.distance!r}; use one of {', '.join(DISTANCES)}"
                )
        self.ttl_config = ttl  # kept by reference: LangGraph code tunes it on the live store
        self._owns_memory = False
        self._sweeper: tuple[threading.Thread, threading.Event, concurrent.futures.Future[None]] | None = None

    @classmethod
    def open(
        cls,
        db: str | None = None,
        *,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        user_namespace_index: int | Sequence[str] | None = None,
        user_id: str | None = None,
        cross_user: bool = False,
        **memory_kwargs: Any,
    ) -> MemlaneStore:
        """A store over a new :class:`Memory` on ``db``; with ``index["embed"]`` that model embeds. The
        scope options are the constructor's."""
        if index and index.get("embed") is not None:
            if not index.get("dims"):
                raise ValueError("an index config with 'embed' needs 'dims'")
            memory_kwargs["embedder"] = LangChainEmbedder(index["embed"], index["dims"])
        store = cls(
            Memory(db, **memory_kwargs),
            index=index,
            ttl=ttl,
            user_namespace_index=user_namespace_index,
            user_id=user_id,
            cross_user=cross_user,
        )
        store._owns_memory = True
        return store

    @property
    def backend(self) -> Backend:
        return self.memory.backend

    def setup(self) -> None:
        """Apply pending schema migrations (idempotent; opening the backend already does)."""
        self.backend.migrate()

    def close(self) -> None:
        self.stop_ttl_sweeper()
        if self._owns_memory:
            self.memory.close()

    def __enter__(self) -> MemlaneStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the one entry point --------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Reads see the store as it was before the batch; then its puts apply (the last put of an
        item wins), as in LangGraph's own stores. Every op is validated before anything runs."""
        ops = list(ops)
        for op in ops:
            validate_op_namespace(op)
            if isinstance(op, GetOp | PutOp) and not op.namespace:
                raise InvalidNamespaceError("an item's namespace cannot be empty")
            if not isinstance(op, GetOp | SearchOp | ListNamespacesOp | PutOp):
                raise ValueError(f"unknown store operation {type(op).__name__}")
            if isinstance(op, GetOp | PutOp):
                self.user_of(tuple(op.namespace))
            if isinstance(op, PutOp) and op.value is not None and op.index is not False:
                fields = self.index_fields if op.index is None else list(op.index)
                if fields:  # indexed by fields: without an index config a put embeds its summary (or JSON)
                    value = dict(op.value)
                    _, summary = items.summary_source(value, self.memory.settings.memory_summary_max_chars)
                    require_text(op.key, value, fields, has_summary=summary is not None)
            if isinstance(op, SearchOp):
                match.check_filter(op.filter)
        results: list[Result] = [None] * len(ops)
        touched: list[MemoryRecord] = []
        gets = [(i, op) for i, op in enumerate(ops) if isinstance(op, GetOp)]
        if gets:
            self._get(gets, results, touched)
        for i, op in enumerate(ops):
            if isinstance(op, SearchOp):
                results[i] = self._search(op, touched)
            elif isinstance(op, ListNamespacesOp):
                results[i] = self._list_namespaces(op)
        if touched:
            writes.refresh(self, touched)
        puts = [op for op in ops if isinstance(op, PutOp)]
        if puts:
            writes.apply_puts(self, puts)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    # --- tenancy ------------------------------------------------------------------------------
    def user_of(self, namespace: Sequence[str]) -> str:
        """The memlane user an item's namespace names (see :class:`UserLabel`), checked against the
        store's bound user."""
        user = items.scope_user(self.user_label.label(namespace))
        if self.bound_user is not None and user != self.bound_user:
            raise InvalidNamespaceError(
                f"this store acts for user {self.bound_user!r}; namespace {tuple(namespace)!r} names another user"
            )
        return user

    def _users(self, prefix: Sequence[str]) -> list[str]:
        """The users a search or listing under ``prefix`` reads: the one the prefix names, else the
        bound user, else every user, only with ``cross_user=True``."""
        if self.user_label.named(prefix):
            return [self.user_of(prefix)]
        if self.bound_user is not None:
            return [self.bound_user]
        if not self.cross_user:
            raise InvalidNamespaceError(
                f"this read names no user: give the user {self.user_label.describe()}, open the store "
                "for one user (user_id=...), or opt in to reads across users with cross_user=True"
            )
        return self.backend.memories.list_users()

    # --- reads ----------------------------------------------------------------------------------
    def find(self, user: str, addresses: Sequence[Address]) -> dict[Address, MemoryRecord]:
        """Records (in any state) at the given items of one user. A ``(user, type)`` key that is the id
        of a key-less memlane memory addresses that memory."""
        ids = {a: items.record_id(a[0], a[1], user)[1] for a in addresses}
        found = {r.id: r for r in self.backend.memories.get_many(user, list(dict.fromkeys(ids.values())))}
        out = {a: found[i] for a, i in ids.items() if i in found and items.address(found[i]) == a}
        rest = [a for a in addresses if a not in out and len(a[0]) == 2 and items.namespace_type(a[0])]
        if rest:
            native = {r.id: r for r in self.backend.memories.get_many(user, [a[1] for a in rest])}
            out.update((a, native[a[1]]) for a in rest if a[1] in native and items.address(native[a[1]]) == a)
        return out

    def _visible(self, rec: MemoryRecord) -> bool:
        if rec.state is not MemoryState.ACTIVE:
            return False
        return not ((self.ttl_config or {}).get("omit_expired") and writes.expired(rec, utcnow()))

    def _item(self, rec: MemoryRecord, score: float | None = None) -> SearchItem:
        ns, key = items.address(rec)
        s = self.memory.settings
        return SearchItem(
            ns,
            key,
            items.item_value(rec, s.categories, s.memory_summary_max_chars),
            rec.created_at,
            rec.updated_at,
            score,
        )

    def _get(self, gets: list[tuple[int, GetOp]], results: list[Result], touched: list[MemoryRecord]) -> None:
        by_user: dict[str, list[tuple[int, GetOp]]] = {}
        for i, op in gets:
            by_user.setdefault(self.user_of(op.namespace), []).append((i, op))
        for user, group in by_user.items():
            found = self.find(user, [(tuple(op.namespace), op.key) for _, op in group])
            for i, op in group:
                rec = found.get((tuple(op.namespace), op.key))
                if rec is not None and self._visible(rec):
                    item = self._item(rec)
                    results[i] = Item(
                        value=item.value,
                        key=item.key,
                        namespace=item.namespace,
                        created_at=item.created_at,
                        updated_at=item.updated_at,
                    )
                    if op.refresh_ttl:
                        touched.append(rec)

    def scan(self, user: str, conditions: Sequence[Condition] = ()) -> Iterator[MemoryRecord]:
        """Active memories of one user, newest first, page by page."""
        conds = [Condition("state", "$eq", MemoryState.ACTIVE.value), *conditions]
        seen: set[str] = set()
        offset = 0
        while True:
            page = self.backend.memories.list(user, conds, limit=PAGE, offset=offset, newest_first=True)
            for rec in page:
                if rec.id not in seen:
                    seen.add(rec.id)
                    yield rec
            if len(page) < PAGE:
                return
            offset += PAGE

    def _search(self, op: SearchOp, touched: list[MemoryRecord]) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        users = self._users(prefix)
        conds = [Condition("type", "$eq", prefix[1])] if len(prefix) >= 2 and prefix[1] in items.TYPES else []

        def keep(rec: MemoryRecord) -> SearchItem | None:
            if items.address(rec)[0][: len(prefix)] != prefix or not self._visible(rec):
                return None
            item = self._item(rec)
            return item if match.matches(item.value, op.filter) else None

        def candidates(user: str) -> Iterator[tuple[MemoryRecord, SearchItem]]:
            for rec in self.scan(user, conds):
                item = keep(rec)
                if item is not None:
                    yield rec, item

        wanted = max(op.offset, 0) + max(op.limit, 0)
        if op.query and self.index_fields is None:
            found = self._ranked(users, op.query, conds, keep, wanted, candidates)
        else:
            merged = heapq.merge(
                *[candidates(u) for u in users], key=lambda c: (c[0].updated_at, c[0].id), reverse=True
            )
            found = (
                self._rank(list(merged), op.query)
                if op.query
                else [c for _, c in zip(range(wanted), merged, strict=False)]
            )
        page = found[op.offset : op.offset + op.limit]
        if op.refresh_ttl:
            touched.extend(rec for rec, _ in page)
        return [item for _, item in page]

    def _ranked(
        self,
        users: list[str],
        query: str,
        conds: list[Condition],
        keep: Callable[[MemoryRecord], SearchItem | None],
        wanted: int,
        candidates: Callable[[str], Iterator[tuple[MemoryRecord, SearchItem]]],
    ) -> list[tuple[MemoryRecord, SearchItem]]:
        """Items ranked by the database's vector search (cosine similarity of the item's summary
        vector), best first; the pool widens until the prefix and value filters leave ``wanted``.
        Items without a vector (``index=False``) follow, newest first, as LangGraph's stores do."""
        vector = embed_query(self.memory.embedder, query)
        db_conds = [Condition("state", "$eq", MemoryState.ACTIVE.value), *conds]
        out: list[tuple[MemoryRecord, SearchItem]] = []
        for user in users:
            pool = max(4 * wanted, 40)
            while True:
                hits = self.backend.memories.vector_search(user, vector, db_conds, limit=pool)
                kept = [
                    (h.record, _scored(item, h.score)) for h in hits if (item := keep(h.record)) is not None
                ]
                if len(kept) >= wanted or len(hits) < pool:
                    break
                pool *= 4
            out += kept
            if len(hits) < pool and len(kept) < wanted:  # every vector seen: the unvectored items follow
                ranked = {rec.id for rec, _ in kept}
                out += [c for c in candidates(user) if c[0].id not in ranked]
        scored = sorted((c for c in out if c[1].score is not None), key=lambda c: -(c[1].score or 0.0))
        return scored + [c for c in out if c[1].score is None]

    def _rank(
        self, found: list[tuple[MemoryRecord, SearchItem]], query: str
    ) -> list[tuple[MemoryRecord, SearchItem]]:
        """Score every candidate (best of its vectors), best first; items without vectors last."""
        own: dict[str, list[str]] = {}
        for rec, _ in found:
            meta = items.store_meta(rec)
            if meta is None or meta.get("vec") == "summary":
                own.setdefault(rec.user_id, []).append(rec.id)
        stored: dict[str, list[float]] = {}
        for user, ids in own.items():
            for chunk in range(0, len(ids), PAGE):
                stored.update(self.backend.memories.vectors(user, ids[chunk : chunk + PAGE]))
        vectors = []
        for rec, _ in found:
            meta = items.store_meta(rec)
            vec = "summary" if meta is None else meta.get("vec")
            if vec == "summary":
                vectors.append([as_array(stored[rec.id])] if rec.id in stored else [])
            else:
                vectors.append([decode(v) for v in vec] if isinstance(vec, list) else [])
        scores = best_scores(embed_query(self.memory.embedder, query), vectors, self.distance)
        ranked = sorted(((s, n) for n, s in enumerate(scores) if s is not None), key=lambda t: -t[0])
        out = [(found[n][0], _scored(found[n][1], s)) for s, n in ranked]
        out.extend(c for c, s in zip(found, scores, strict=True) if s is None)
        return out

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conds = match.conditions(op.match_conditions)
        prefix = next((tuple(p) for kind, p in conds if kind == "prefix" and p), ())
        found: set[tuple[str, ...]] = set()
        for user in self._users(prefix):
            found.update(items.address(r)[0] for r in self.scan(user) if self._visible(r))
        names = [ns for ns in found if match.namespace_matches(ns, conds)]
        if op.max_depth is not None:
            names = list({ns[: op.max_depth] for ns in names})
        return sorted(names)[op.offset : op.offset + op.limit]

    # --- TTL --------------------------------------------------------------------------------------
    def sweep_ttl(self) -> int:
        """Soft-delete the items whose TTL has run out; returns how many."""
        return writes.sweep(self)

    def start_ttl_sweeper(
        self, sweep_interval_minutes: float | None = None
    ) -> concurrent.futures.Future[None]:
        """Sweep every ``sweep_interval_minutes`` (default: the TTL config's, else 5) in a daemon thread;
        the future completes when :meth:`stop_ttl_sweeper` stops it."""
        if self._sweeper is not None:
            return self._sweeper[2]
        minutes = sweep_interval_minutes or (self.ttl_config or {}).get("sweep_interval_minutes") or 5
        stop, done = threading.Event(), concurrent.futures.Future[None]()

        def run() -> None:
            while not stop.wait(float(minutes) * 60):
                try:
                    self.sweep_ttl()
                except Exception:  # noqa: BLE001 - a failed sweep is retried at the next interval
                    log.exception("TTL sweep failed; retrying in %s minutes", minutes)
            done.set_result(None)

        thread = threading.Thread(target=run, name="memlane-langgraph-ttl", daemon=True)
        self._sweeper = (thread, stop, done)
        thread.start()
        return done

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        if self._sweeper is None:
            return True
        thread, stop, _ = self._sweeper
        stop.set()
        thread.join(timeout)
        if not thread.is_alive():
            self._sweeper = None
        return not thread.is_alive()


def _scored(item: SearchItem, score: float) -> SearchItem:
    return SearchItem(item.namespace, item.key, item.value, item.created_at, item.updated_at, score)
