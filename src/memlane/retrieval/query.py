"""``memory.query``: an agent's one search tool, with the agent's category allowlist enforced in the
database filter (``category $in allowlist``) whatever the request's ``filters`` say."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from memlane.model.category import title_case
from memlane.model.config import Settings
from memlane.model.errors import ValidationError
from memlane.model.filters import Condition, live, parse_filters
from memlane.model.provenance import attributed, shared_by
from memlane.model.record import SearchHit
from memlane.model.retrieval import QueryResult
from memlane.model.text import check_text
from memlane.providers.embed import Embedder
from memlane.retrieval.allowlist import CategoryConfig, load_categories, lower
from memlane.retrieval.search import SearchRequest, search
from memlane.retrieval.tokens import Budget, check_budget, truncate
from memlane.storage.base import Backend

RETURN_MODES = ("bullets", "full")
MAX_TOP_K = 100


def check_query(query: Any) -> str:
    if not isinstance(query, str) or not query.strip():
        raise ValidationError("query must be a non-empty string (what to look up in the user's memories)")
    return check_text("query", query)


def check_threshold(value: Any, settings: Settings) -> float | None:
    """A similarity floor in [-1, 1]; ``None`` takes ``MEMORY_SCORE_THRESHOLD`` when that is set (> 0)."""
    if value is None:
        return settings.memory_score_threshold or None
    if isinstance(value, bool) or not isinstance(value, int | float) or not -1.0 <= value <= 1.0:
        raise ValidationError(
            f"threshold must be a cosine similarity from -1 to 1 (e.g. 0.65), got {value!r}"
        )
    return float(value)


def scoped_conditions(
    filters: Mapping[str, Any] | None, user_id: str, categories: Sequence[str]
) -> list[Condition]:
    """The request's filters (validated), active memories unless a ``state`` filter says otherwise, and
    ``category $in categories``: a ``category`` filter is ANDed with it, so it can narrow, never widen."""
    conds = [_title_category(c) for c in parse_filters(filters, user_id=user_id)]
    if not any(c.field == "state" for c in conds):
        conds.extend(live())
    conds.append(Condition("category", "$in", list(categories)))
    return conds


def _title_category(cond: Condition) -> Condition:
    if cond.field != "category" or cond.value is None:
        return cond
    value = [title_case(v) for v in cond.value] if isinstance(cond.value, list) else title_case(cond.value)
    return Condition(cond.field, cond.op, value)


def memory_query(
    backend: Backend,
    embedder: Embedder,
    settings: Settings,
    *,
    query: str,
    user_id: str,
    agent: str,
    categories: Sequence[str] | None,
    filters: Mapping[str, Any] | None,
    top_k: int,
    return_: str,
    budget_tokens: int | None,
    threshold: float | None,
    now: datetime,
) -> QueryResult:
    """Up to ``top_k`` of the user's memories most relevant to ``query`` within the categories the
    agent may read, as bullets or full items, stopping before ``budget_tokens`` would be exceeded."""
    text = check_query(query)
    if return_ not in RETURN_MODES:
        raise ValidationError(f"return must be one of {', '.join(RETURN_MODES)}, got {return_!r}")
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        raise ValidationError(f"top_k must be an integer from 1 to {MAX_TOP_K}, got {top_k!r}")
    budget = Budget(check_budget(budget_tokens, None))
    floor = check_threshold(threshold, settings)
    cfg = load_categories(settings)
    scope = cfg.scope(agent, categories)
    result = QueryResult(agent=agent.strip().lower(), mode=return_, categories=[lower(c) for c in scope])
    conds = scoped_conditions(filters, user_id, scope)
    if not scope:
        return result
    hits = search(
        backend,
        embedder,
        settings,
        SearchRequest(user_id=user_id, query=text, conditions=conds, now=now, limit=top_k, threshold=floor),
    )
    for n, hit in enumerate(hits):
        item = bullet(hit, cfg, user_id) if return_ == "bullets" else full(hit, user_id)
        rendered = item["text"] if return_ == "bullets" else json.dumps(item, ensure_ascii=False)
        if not budget.take(rendered):
            result.dropped = len(hits) - n
            break
        result.items.append(item)
    result.tokens = budget.used
    return result


def bullet(hit: SearchHit, cfg: CategoryConfig, reader: str) -> dict[str, Any]:
    """``{"id", "category", "text": "[category] summary"}``; ``rag_length`` caps the summary. A memory
    shared with ``reader`` says whose it is: ``"shared_by"`` and ``[category] shared by <owner>: summary``."""
    rec = hit.memory
    name = lower(rec.category)
    summary = attributed(truncate(rec.summary, cfg.policy(rec.category).rag_length), rec, reader)
    owner = shared_by(rec, reader)
    return {
        "id": rec.id,
        "category": name,
        "text": f"[{name}] {summary}",
        **({"shared_by": owner} if owner else {}),
    }


def full(hit: SearchHit, reader: str) -> dict[str, Any]:
    """The whole summary, the record's metadata (unset fields left out) and the score with its breakdown;
    ``"shared_by"`` names the owner of a memory shared with ``reader`` (None for their own)."""
    rec = hit.memory
    # read bookkeeping (moved by this very read) is left out: it is not what the memory says
    meta = rec.model_dump(
        mode="json",
        exclude={"summary", "category", "id", "user_id", "last_accessed", "access_count"},
        exclude_none=True,
    )
    return {
        "id": rec.id,
        "category": lower(rec.category),
        "summary": rec.summary,
        "shared_by": shared_by(rec, reader),
        "score": hit.score,
        "breakdown": hit.breakdown.model_dump(),
        "metadata": meta,
    }
