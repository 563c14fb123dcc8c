"""Create/update bands per embedder (DESIGN: thresholds belong to an embedder).

``auto``: at or above, the neighbour is the same fact. ``low``..``auto``: ask the same-fact check.
``floor``: below it a neighbour is unrelated (no conflict check). ``link``: relation edges.
A category can have its own auto / low / floor for semantic or episodic memories
(``MEMORY_BANDS_BY_CATEGORY``), over both the embedder's bands and the type-wide overrides.
Local (all-MiniLM-L6-v2) values are measured with ``memlane calibrate``; Titan v2 (bedrock) values are
the 0.90 / 0.80 bands it was first tuned with.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from memlane.model.category_bands import band_key
from memlane.model.config import Settings
from memlane.model.enums import MemoryType


@dataclass(frozen=True)
class Bands:
    auto: float
    low: float
    floor: float
    link: float


DEFAULTS: dict[str, dict[str, Bands]] = {
    # fitted by `memlane calibrate --embedder local --ignore-updates` on the shipped 224 pairs (floors kept
    # lower than fitted: a conflict check with the rules costs little and catches more corrections)
    "local": {"semantic": Bands(0.78, 0.63, 0.40, 0.55), "episodic": Bands(0.80, 0.80, 0.55, 0.60)},
    "bedrock": {"semantic": Bands(0.90, 0.80, 0.55, 0.70), "episodic": Bands(0.92, 0.85, 0.65, 0.75)},
    "openai": {"semantic": Bands(0.90, 0.80, 0.50, 0.65), "episodic": Bands(0.92, 0.85, 0.60, 0.70)},
    "hash": {"semantic": Bands(0.85, 0.60, 0.30, 0.50), "episodic": Bands(0.88, 0.70, 0.40, 0.55)},
}


def bands_for(embedder: str, mem_type: MemoryType, settings: Settings, category: str | None = None) -> Bands:
    """The bands deciding a ``mem_type`` candidate; with ``category``, that category's own where set."""
    table = DEFAULTS.get(embedder, DEFAULTS["openai"])
    episodic = mem_type in (MemoryType.EPISODIC, MemoryType.SESSION)
    base = table["episodic" if episodic else "semantic"]
    auto = settings.episodic_auto_update if episodic else settings.semantic_auto_update
    low = settings.episodic_check_low if episodic else settings.semantic_check_low
    bands = replace(
        base,
        auto=auto if auto is not None else base.auto,
        low=low if low is not None else base.low,
        link=settings.memory_link_min if settings.memory_link_min is not None else base.link,
    )
    if category is None:
        return bands
    own = settings.memory_bands_by_category.get(band_key(category, "episodic" if episodic else "semantic"))
    if own is None:
        return bands
    return replace(bands, auto=own[0], low=own[1], floor=own[2])
