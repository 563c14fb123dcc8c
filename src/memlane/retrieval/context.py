"""The context block (what the ``memory_context`` node and the chat proxy inject): what the assistant
is told about the user at a turn, within a token budget.

Order is priority: the delta header (what changed, from the change log) when memories changed since the
revision the thread last saw, then semantic memories (context-mode ``all`` categories always, the rest
by relevance), then 1-3 recent episodic memories relevant to the query (up to
``MEMORY_CONTEXT_RECALL_EPISODIC`` for a recall-intent question, in the budget the semantic part leaves),
then the memories other users shared with the user (each line naming its owner: their words, never the
user's), then relevant session summaries, then relevant earlier messages of the user's group chats. Items
are added in that order until the next one would exceed the budget; the rest are counted in ``dropped``.
With the budget left, up to two memories linked to a shown one appear as indented ``related:`` bullets
under it (:mod:`memlane.retrieval.related`).

Three retrievals feed the block: semantic (and insight) memories, and episodic ones, each with search's
hybrid ranking, recall intent and time phrases; and with session memory on, the group-chat recall
(:mod:`memlane.retrieval.chat_recall`: session summaries and recorded messages through one reranker).
The query is embedded once for all. A retrieved memory under the relevance cutoff
(``MEMORY_CONTEXT_MIN_RELEVANCE``, or the embedder's measured one in :data:`MIN_RELEVANCE`) is left out,
unless it is pinned or its category is context-mode ``all``; recent events are not cut when the question
names a time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from memlane.model.config import Settings
from memlane.model.enums import MemoryType
from memlane.model.errors import ValidationError
from memlane.model.filters import Condition, live
from memlane.model.jobs import Change
from memlane.model.provenance import attributed
from memlane.model.record import MemoryRecord, SearchHit
from memlane.model.retrieval import ContextBlock, RelatedMemory
from memlane.model.session import SessionMessage
from memlane.providers.embed import Embedder
from memlane.retrieval.allowlist import CategoryConfig, load_categories
from memlane.retrieval.chat_recall import recall
from memlane.retrieval.intent import is_recall, plan_query
from memlane.retrieval.query import check_query
from memlane.retrieval.related import related_memories
from memlane.retrieval.rerank import composite
from memlane.retrieval.search import SearchRequest, search
from memlane.retrieval.tokens import Budget, check_budget, estimate_tokens, truncate
from memlane.storage.base import Backend

EPISODIC_MAX = 3  # at most 3 recent episodic memories per block (more on recall intent: the settings)
EPISODIC_TOPK = 12  # the timed channel's candidate pool is small
ITEM_MAX_CHARS = 280  # an item is cut to at most 280 characters
SESSION_MAX_CHARS = 420  # max chars per session summary snippet
ALWAYS_POOL = 10  # newest memories of context-mode `all` categories considered per block
DELTA_MAX = 3  # the delta header has at most 3 bullets
DELTA_WINDOW = 50  # the newest change-log rows considered
DELTA_LABELS = {
    "created": "+created",
    "updated": "↑updated",
    "changed_fact": "↑updated",
    "merged": "↔merged",
    "superseded": "↑superseded",
    "deleted": "−deleted",
    "soft_deleted": "−deleted",
    "purged": "−purged",
    "restored": "↺restored",
}
# The relevance cutoff (MEMORY_CONTEXT_MIN_RELEVANCE unset) per embedder, in its cosine units plus the
# keyword evidence; measured for the bundled model with benchmarks/relevance_cutoff_bench.py
# (docs/benchmarks.md); an embedder with no measured value has no cutoff.
MIN_RELEVANCE = {"local": 0.10}
SEMANTIC_TYPES = [MemoryType.SEMANTIC.value, MemoryType.INSIGHT.value]
ANCHORS = ("semantic", "episodic", "shared")  # the sections whose memories can have related bullets
HEADERS = {
    "semantic": "Known about the user:",
    "episodic": "Recent events:",
    "shared": "Shared with the user by others (their words, not the user's):",
    "sessions": "Relevant earlier session summaries:",
    "messages": "Relevant earlier messages:",
}


class _OnceEmbedder(Embedder):
    """Embeds the turn's query once for the block's searches, whether or not the embedder caches."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name, self.model, self.dims = inner.name, inner.model, inner.dims
        self._memo: dict[str, list[float]] = {}

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        todo = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if todo:
            self._memo.update(zip(todo, self.inner.embed(todo), strict=True))
        return [self._memo[t] for t in texts]


def build_context(
    backend: Backend,
    embedder: Embedder,
    settings: Settings,
    *,
    query: str,
    user_id: str,
    thread_id: str | None,
    since_rev: int | None,
    budget_tokens: int | None,
    agent: str | None,
    now: datetime,
    chat_id: str | None = None,
) -> ContextBlock:
    """The block for one turn of ``thread_id`` (``None``: changes tied to no thread); with ``agent``,
    every section and the delta keep to the agent's allowlist (and no raw message is shown: messages
    have no category). ``chat_id``: the group chat asking, whose sessions and messages are recalled
    (None: all the user's chats)."""
    text = check_query(query)
    limit = check_budget(budget_tokens, settings.memory_context_budget_tokens)
    if since_rev is not None and (
        isinstance(since_rev, bool) or not isinstance(since_rev, int) or since_rev < 0
    ):
        raise ValidationError(
            f"since_rev must be a revision number (an integer from 0), got {since_rev!r}; "
            "pass the `rev` of the previous context block, or omit it on a thread's first turn"
        )
    cfg = load_categories(settings)
    allowed = None if agent is None else cfg.allowed(agent)
    once = _OnceEmbedder(embedder)
    thread = thread_id or ""
    rev = backend.changes.thread_revision(user_id, thread)
    block = ContextBlock(text="", since_rev=since_rev, rev=rev, budget_tokens=limit or 0)
    changes = delta_lines(backend, user_id, thread, since_rev, rev, allowed) if since_rev is not None else []
    sections = _retrieve(backend, once, settings, cfg, text, user_id, thread_id, chat_id, allowed, now)

    def related(shown: list[MemoryRecord], exclude: set[str]) -> list[RelatedMemory]:
        scope = live(now) + ([Condition("category", "$in", list(allowed))] if allowed is not None else [])
        return related_memories(backend, user_id, shown, scope, exclude)

    pick = related if settings.memory_context_related else None
    _render(block, changes, sections, cfg, settings.timezone, Budget(limit), user_id, pick)
    return block


def _retrieve(
    backend: Backend,
    embedder: Embedder,
    settings: Settings,
    cfg: CategoryConfig,
    query: str,
    user_id: str,
    thread_id: str | None,
    chat_id: str | None,
    allowed: tuple[str, ...] | None,
    now: datetime,
) -> dict[str, list[Any]]:
    """Separate retrievals, so no channel can crowd another out of a shared candidate pool; context-mode
    ``all`` categories are listed."""
    out: dict[str, list[Any]] = {"semantic": [], "episodic": [], "shared": [], "sessions": [], "messages": []}
    if allowed is not None and not allowed:
        return out
    scope = live()
    if allowed is not None:
        scope.append(Condition("category", "$in", list(allowed)))

    def run(types: list[str], limit: int, pool: Settings) -> list[SearchHit]:
        req = SearchRequest(
            user_id=user_id,
            query=query,
            now=now,
            limit=limit,
            thread_id=thread_id,
            conditions=[*scope, Condition("type", "$in", types)],
            threshold=settings.memory_score_threshold or None,
        )
        return search(backend, embedder, pool, req)

    topn = settings.memory_context_topn
    always = cfg.always(allowed)
    listed = (
        _always(backend, settings, user_id, [*scope, Condition("type", "$in", SEMANTIC_TYPES)], always, now)
        if always
        else []
    )
    found = run(SEMANTIC_TYPES, topn, settings)
    if always:
        seen = {h.memory.id: h for h in found}
        picked = [seen.get(h.memory.id, h) for h in listed]  # a searched hit keeps its similarity
        ids = {h.memory.id for h in picked}
        found = picked + [h for h in found if h.memory.id not in ids]
    small = settings.model_copy(
        update={"memory_context_topk": min(EPISODIC_TOPK, settings.memory_context_topk)}
    )
    episodic = run([MemoryType.EPISODIC.value], episodic_limit(query, settings), small)
    cutoff = min_relevance(settings, embedder.name)
    if cutoff > 0:
        found = [h for h in found if _relevant(h, cutoff, always)]
        # a question naming a time ("last week") picks its events by date, not by words: not cut
        timed = plan_query(query, now, tz=settings.timezone, time_phrases=settings.memory_time_phrases).window
        if timed is None:
            episodic = [h for h in episodic if _relevant(h, cutoff, always)]
    # what others shared is kept apart from what the user said, below it
    out["semantic"] = [h for h in found if h.memory.user_id == user_id]
    out["episodic"] = [h for h in episodic if h.memory.user_id == user_id]
    out["shared"] = [h for h in [*found, *episodic] if h.memory.user_id != user_id]
    if settings.context_session_memory_enabled:
        items = recall(
            backend,
            embedder,
            small,
            query=query,
            user_id=user_id,
            chat_id=chat_id,
            now=now,
            max_messages=settings.context_session_max_messages if allowed is None else 0,
            max_sessions=settings.context_session_max_retrieved,
            scope=scope,
        )
        out["sessions"] = [i.session for i in items if i.session is not None]
        out["messages"] = [i.message for i in items if i.message is not None]
    return out


def episodic_limit(query: str, settings: Settings) -> int:
    """How many episodic memories the block may show: more when the question asks to recall the past."""
    return settings.memory_context_recall_episodic if is_recall(query) else EPISODIC_MAX


def min_relevance(settings: Settings, embedder_name: str) -> float:
    """The block's relevance cutoff: ``MEMORY_CONTEXT_MIN_RELEVANCE``, or the embedder's measured one."""
    if settings.memory_context_min_relevance is not None:
        return settings.memory_context_min_relevance
    return MIN_RELEVANCE.get(embedder_name, 0.0)


def _relevant(hit: SearchHit, cutoff: float, always: tuple[str, ...]) -> bool:
    """A memory stays when its relevance (similarity with the keyword evidence) reaches the cutoff, or it
    is pinned, or its category is context-mode ``all`` (shown at every turn, relevant or not)."""
    rec = hit.memory
    return rec.pinned or rec.category in always or hit.breakdown.similarity >= cutoff


def _always(
    backend: Backend,
    settings: Settings,
    user_id: str,
    conds: list[Condition],
    always: tuple[str, ...],
    now: datetime,
) -> list[SearchHit]:
    """Context mode ``all``: the categories' pinned and newest memories (a listing, not a search: their
    breakdown has similarity 0), best ``memory_context_topn`` by importance, recency and pinning."""
    conds = [*conds, Condition("category", "$in", list(always))]
    topn = settings.memory_context_topn
    pool = {
        r.id: r
        for r in backend.memories.list(
            user_id, [*conds, Condition("pinned", "$eq", True)], limit=topn, shared=True
        )
    }
    pool.update(
        (r.id, r)
        for r in backend.memories.list(user_id, conds, limit=ALWAYS_POOL, shared=True)
        if r.id not in pool
    )
    decay = settings.memory_decay_half_life_days if settings.memory_decay_enabled else None
    hits = []
    for rec in pool.values():
        b = composite(
            rec,
            0.0,
            now,
            settings.memory_rerank_weights,
            half_life_days=settings.memory_recency_half_life_days,
            decay_half_life_days=decay,
        )
        hits.append(SearchHit(memory=rec, score=b.final, breakdown=b))
    hits.sort(key=lambda h: h.score, reverse=True)
    return hits[:topn]


def delta_lines(
    backend: Backend, user_id: str, thread: str, since_rev: int, rev: int, allowed: tuple[str, ...] | None
) -> list[tuple[Change, str]]:
    """The delta header: the thread's changes after ``since_rev`` (up to ``rev``), latest per memory, newest
    first, at most :data:`DELTA_MAX`, as bullets; with an agent, only changes in its allowlist."""
    if since_rev >= rev:
        return []
    rows = [
        c
        for c in backend.changes.changes_since(
            user_id, thread, max(since_rev, rev - DELTA_WINDOW), limit=DELTA_WINDOW
        )
        if c.rev <= rev and c.event in DELTA_LABELS
    ]
    latest = sorted({c.memory_id: c for c in rows}.values(), key=lambda c: c.rev, reverse=True)
    lookup = [c.memory_id for c in latest if "category" not in c.meta or c.event == "merged"]
    records = {r.id: r for r in backend.memories.get_many(user_id, lookup, shared=True)} if lookup else {}
    out: list[tuple[Change, str]] = []
    for change in latest:
        rec = records.get(change.memory_id)
        category = change.meta.get("category") or (rec.category if rec else None)
        if allowed is not None and category not in allowed:
            continue
        summary = rec.summary if rec and change.event == "merged" else change.meta.get("summary", "")
        label = DELTA_LABELS.get(change.event, change.event)
        imp = change.meta.get("importance")
        tail = f" (imp={imp})" if change.event == "created" and imp is not None else ""
        line = f"- {label}: [{category or 'Other'}] {truncate(str(summary), ITEM_MAX_CHARS)}{tail}"
        out.append((change, line))
        if len(out) == DELTA_MAX:
            break
    return out


Related = Callable[[list[MemoryRecord], set[str]], list[RelatedMemory]]


def _render(
    block: ContextBlock,
    changes: list[tuple[Change, str]],
    sections: dict[str, list[Any]],
    cfg: CategoryConfig,
    tz: str,
    budget: Budget,
    reader: str,
    related: Related | None = None,
) -> None:
    lines: list[str] = []
    zone = ZoneInfo(tz)
    anchors: dict[str, int] = {}  # a shown memory's id -> its line
    pending = len(changes) + sum(len(v) for v in sections.values())
    for n, (change, line) in enumerate(changes):
        first = [f"Memory updates since rev {block.since_rev}:"] if n == 0 else []
        if not budget.take("\n".join([*first, line]) + "\n"):
            block.dropped = pending
            break
        lines += [*first, line]
        block.delta.append(change)
        pending -= 1
    else:
        for name, hits in sections.items():
            shown: list[Any] = getattr(block, name)
            for hit in hits:
                line = (
                    _message_line(hit, zone)
                    if name == "messages"
                    else _line(name, hit.memory, cfg, zone, reader)
                )
                first = [HEADERS[name]] if not shown else []
                if not budget.take("\n".join([*first, line]) + "\n"):
                    block.dropped = pending
                    break
                lines += [*first, line]
                shown.append(hit)
                if name in ANCHORS:
                    anchors.setdefault(hit.memory.id, len(lines) - 1)
                pending -= 1
            if block.dropped:
                break
    if related is not None and anchors:
        lines = _with_related(block, lines, anchors, related, cfg, zone, budget, reader)
    block.text = "\n".join(lines)
    block.tokens = estimate_tokens(block.text)


def _with_related(
    block: ContextBlock,
    lines: list[str],
    anchors: dict[str, int],
    related: Related,
    cfg: CategoryConfig,
    zone: ZoneInfo,
    budget: Budget,
    reader: str,
) -> list[str]:
    """``lines`` with the related bullets that fit the budget left, each indented under its memory."""
    shown = [h.memory for name in ANCHORS for h in getattr(block, name)]
    everything = {
        h.memory.id for name in ("semantic", "episodic", "shared", "sessions") for h in getattr(block, name)
    }
    under: dict[int, list[str]] = {}
    for item in related(shown, everything):
        line = "  - related: " + _line("related", item.memory, cfg, zone, reader)[2:]
        if budget.take(line + "\n"):
            under.setdefault(anchors[item.to], []).append(line)
            block.related.append(item)
    return [out for n, line in enumerate(lines) for out in (line, *under.get(n, ()))]


def _line(section: str, rec: MemoryRecord, cfg: CategoryConfig, zone: ZoneInfo, reader: str) -> str:
    cap = cfg.policy(rec.category).rag_length
    if section == "sessions":
        when = _window(rec, zone)
        topics = f" (topics: {', '.join(rec.tags[:4])})" if rec.tags else ""
        return f"- {when}{truncate(rec.summary, cap or SESSION_MAX_CHARS)}{topics}"
    summary = attributed(truncate(rec.summary, cap or ITEM_MAX_CHARS), rec, reader)
    if rec.type is MemoryType.EPISODIC:
        day = rec.date_iso or (rec.valid_from or rec.created_at).astimezone(zone).date().isoformat()
        return f"- {day}: [{rec.category}] {summary}"
    return f"- [{rec.category}] {summary}"


def _message_line(m: SessionMessage, zone: ZoneInfo) -> str:
    when = m.at.astimezone(zone).strftime("%Y-%m-%d %H:%M")
    return f"- {when} {m.sender or m.role}: {truncate(' '.join(m.text.split()), ITEM_MAX_CHARS)}"


def _window(rec: MemoryRecord, zone: ZoneInfo) -> str:
    start: Any = rec.valid_from
    if start is None:
        return ""
    start = start.astimezone(zone)
    text = start.strftime("%Y-%m-%d %H:%M")
    if rec.valid_to is not None:
        end = rec.valid_to.astimezone(zone)
        text += "–" + end.strftime("%H:%M" if end.date() == start.date() else "%Y-%m-%d %H:%M")
    return text + ": "
