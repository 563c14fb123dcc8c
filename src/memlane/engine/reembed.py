"""Backfill vectors after a change of embedder or contextual header.

Walks every user's memories (purged ones have no text and are skipped) in pages, embeds what
``Memory.embed_text`` gives for each, and writes the vectors. Progress is recorded in the backend's
meta table (``reembed:progress``) after every page, so an interrupted run continues where it stopped
when started again with the same embedder, header and mode; ``restart`` starts over. With
``missing_only`` only memories that have no vector yet are embedded.

A page is written through the write path's read-under-lock (no history or event: the text is
unchanged), and a memory whose text changed while its page was being
embedded is left alone: the write that changed it embedded it already.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memlane.ledger.commit import commit_planned
from memlane.ledger.mutations import Mutation
from memlane.model.enums import MemoryState
from memlane.model.errors import BackendError, ValidationError
from memlane.model.filters import Condition
from memlane.model.ids import GLOBAL_USER
from memlane.model.record import MemoryRecord
from memlane.storage.base import PENDING_EMBEDDER

if TYPE_CHECKING:
    from memlane.engine.memory import Memory

META_KEY = "reembed:progress"
DONE_KEY = "reembed:last"


@dataclass
class ReembedReport:
    signature: str
    users: int = 0
    scanned: int = 0
    embedded: int = 0
    resumed: bool = False
    skipped_users: list[str] = field(default_factory=list)


def signature(mem: Memory, missing_only: bool, user_id: str | None) -> str:
    from memlane.retrieval.embed_text import header_signature

    mode = "missing" if missing_only else "all"
    return f"{mem.embedder.identity}|{header_signature(mem.settings)}|{mode}|{user_id or '*'}"


def _load_state(mem: Memory, sig: str, restart: bool) -> dict[str, Any]:
    raw = mem.backend.get_meta(META_KEY)
    state: dict[str, Any] = json.loads(raw) if raw else {}
    if restart or state.get("signature") != sig or state.get("complete"):
        return {"signature": sig, "done_users": [], "user": None, "offset": 0, "embedded": 0}
    state["resumed"] = True
    return state


def _save(mem: Memory, state: dict[str, Any]) -> None:
    mem.backend.set_meta(META_KEY, json.dumps({k: v for k, v in state.items() if k != "resumed"}))


def embed_page(mem: Memory, user: str, ids: list[str], missing_only: bool) -> int:
    backend = mem.backend
    records = backend.memories.get_many(user, ids)
    if missing_only:
        have = backend.memories.vectors(user, [r.id for r in records])
        records = [r for r in records if r.id not in have]
    records = [r for r in records if r.state is not MemoryState.PURGED]
    if not records:
        return 0
    texts = [mem.embed_text(r) for r in records]
    vectors = mem.embedder.embed(texts)
    wanted = {r.id: (t, v) for r, t, v in zip(records, texts, vectors, strict=True)}

    def plan(stored: dict[str, MemoryRecord]) -> Mutation:  # the records as they are under the write lock
        m = Mutation(actor="reembed")
        for r in stored.values():
            if r.state is not MemoryState.PURGED and mem.embed_text(r) == wanted[r.id][0]:
                m.touch(r, wanted[r.id][1])
        return m

    return len(commit_planned(backend, None, {user: list(wanted)}, plan).batch.upserts)


def reembed(
    mem: Memory,
    *,
    missing_only: bool = False,
    user_id: str | None = None,
    batch_size: int = 64,
    restart: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> ReembedReport:
    """Re-embed memories (all users, or ``user_id``); ``progress(done, total)`` after every page."""
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    backend = mem.backend
    if not backend.has_vectors:  # every vector would be dropped: say so instead of embedding for nothing
        raise BackendError(" ".join(["this store keeps no vectors;", *backend.notices()]))
    switching = _start_switch(mem, missing_only, user_id)
    sig = signature(mem, missing_only, user_id)
    state = _load_state(mem, sig, restart)
    report = ReembedReport(signature=sig, resumed=bool(state.get("resumed")), embedded=int(state["embedded"]))
    users = [user_id] if user_id else sorted(backend.memories.list_users())
    if not user_id and backend.memories.count(GLOBAL_USER):  # global memories are vectors of this store too
        users.append(GLOBAL_USER)
    live = [Condition("state", "$ne", MemoryState.PURGED.value)]
    counts = {u: backend.memories.count(u, live) for u in users}
    total = sum(counts.values())
    done = sum(counts[u] for u in users if u in state["done_users"])
    if progress:
        progress(done, total)
    for user in users:
        report.users += 1
        if user in state["done_users"]:
            report.skipped_users.append(user)
            continue
        offset = int(state["offset"]) if state["user"] == user else 0
        done += min(offset, counts[user])
        while True:
            page = backend.memories.list(user, live, limit=batch_size, offset=offset, newest_first=False)
            if not page:
                break
            report.embedded += embed_page(mem, user, [r.id for r in page], missing_only)
            report.scanned += len(page)
            offset += len(page)
            done += len(page)
            state.update(user=user, offset=offset, embedded=report.embedded)
            _save(mem, state)
            if progress:
                progress(min(done, total), total)
        state["done_users"].append(user)
        state.update(user=None, offset=0)
        _save(mem, state)
    state["complete"] = True
    _save(mem, state)
    backend.set_meta(DONE_KEY, sig)
    if switching:  # every vector is the new embedder's now: the store answers to it alone
        backend.set_meta("embedder", mem.embedder.identity)
        backend.set_meta(PENDING_EMBEDDER, "")
    return report


def _start_switch(mem: Memory, missing_only: bool, user_id: str | None) -> bool:
    """True when this run moves the store to another embedder (recorded as pending until it ends)."""
    backend = mem.backend
    identity = mem.embedder.identity
    if backend.get_meta("embedder") == identity and not backend.get_meta(PENDING_EMBEDDER):
        return False
    if missing_only or user_id:
        raise ValidationError(
            f"this store's vectors were made by {backend.get_meta('embedder')}; changing to {identity} "
            "re-embeds every memory: run reembed without --user / --missing-only"
        )
    backend.set_meta(PENDING_EMBEDDER, identity)
    return True
