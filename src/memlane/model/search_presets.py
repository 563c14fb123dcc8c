"""Retrieval presets: named sets of overrides of the flat retrieval settings (docs/configuration.md).

A preset is chosen per call (``search(..., preset=...)``, ``query``, ``context``, the HTTP routes, the
CLI) or per process (``MEMLANE_SEARCH_PRESET``); a call's preset replaces the process's, they do not
stack. A setting the operator set (environment, config file or a ``Settings(...)`` argument) wins over
any preset's value for it: a preset only moves knobs left at their defaults. A call's own arguments
(``threshold``, ``limit``, ``budget_tokens``, ``top_k``) win over both.

The presets are plain data kept beside the settings (the model layer) so that the settings can refuse
an unknown ``MEMLANE_SEARCH_PRESET`` at startup.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memlane.model.errors import ValidationError

if TYPE_CHECKING:
    from memlane.model.config import Settings

DEFAULT_PRESET = "balanced"


@dataclass(frozen=True)
class SearchPreset:
    name: str
    description: str
    overrides: dict[str, Any] = field(default_factory=dict)


PRESETS: dict[str, SearchPreset] = {
    p.name: p
    for p in (
        SearchPreset("balanced", "Today's defaults: no overrides."),
        SearchPreset(
            "recent-first",
            "What happened lately counts more: recency weighs 0.35 instead of 0.15 and halves every "
            "7 days instead of 30 (an episode is as recent as when it happened).",
            {
                "memory_rerank_weights": {
                    "similarity": 0.55,
                    "importance": 0.20,
                    "recency": 0.35,
                    "pinned": 0.50,
                },
                "memory_recency_half_life_days": 7.0,
            },
        ),
        SearchPreset(
            "precise",
            "Fewer, surer results: relevance weighs 0.75 (importance 0.10, recency 0.05), a cosine floor "
            "of 0.25, inferred insights at a quarter of their score, 3 semantic items in a context block.",
            {
                "memory_rerank_weights": {
                    "similarity": 0.75,
                    "importance": 0.10,
                    "recency": 0.05,
                    "pinned": 0.50,
                },
                "memory_score_threshold": 0.25,
                "memory_insight_weight": 0.25,
                "memory_context_topn": 3,
            },
        ),
        SearchPreset(
            "broad",
            "More to choose from: 48 candidates reranked instead of 24, 8 semantic items and 5 session "
            "summaries in a context block within 800 tokens instead of 400.",
            {
                "memory_context_topk": 48,
                "memory_context_topn": 8,
                "context_session_max_retrieved": 5,
                "memory_context_budget_tokens": 800,
            },
        ),
    )
}


def unknown_preset(name: object) -> str:
    return f"unknown search preset {name!r}; known presets: {', '.join(PRESETS)}"


def check_preset(name: Any) -> str:
    """The preset's name; anything else is a :class:`ValidationError` naming the known presets."""
    if not isinstance(name, str) or name not in PRESETS:
        raise ValidationError(unknown_preset(name))
    return name


def with_preset(settings: Settings, preset: str | None = None) -> Settings:
    """``settings`` with the preset's overrides of the knobs the operator left at their defaults;
    ``preset`` None takes ``MEMLANE_SEARCH_PRESET``. ``balanced`` returns ``settings`` itself."""
    chosen = PRESETS[check_preset(settings.search_preset if preset is None else preset)]
    update = {k: v for k, v in chosen.overrides.items() if k not in settings.model_fields_set}
    return settings.model_copy(update=update) if update else settings
