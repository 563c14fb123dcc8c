"""Related bullets of the context block: the memories linked to a memory the block shows.

Under a shown memory, the block may add the memories a relation edge (``Memory.link``, formation's
``related_to`` edges, ``follows``) ties it to, one indented ``related:`` line each: at most
:data:`RELATED_MAX` per block, none already in the block, only live memories of the types the block
shows, within the agent's allowlist. The first shown memories' edges come first, the strongest edge
of each first. They are added after every retrieved item has had its place, so they never push a
retrieved memory out of the budget; one that does not fit is left out. ``MEMORY_CONTEXT_RELATED=false``
turns them off.
"""

from __future__ import annotations

from collections.abc import Sequence

from memlane.model.enums import MemoryType
from memlane.model.filters import Condition
from memlane.model.record import MemoryRecord
from memlane.model.retrieval import RelatedMemory
from memlane.storage.base import Backend

RELATED_MAX = 2
RELATED_TYPES = [MemoryType.SEMANTIC.value, MemoryType.INSIGHT.value, MemoryType.EPISODIC.value]


def related_memories(
    backend: Backend,
    user_id: str,
    shown: Sequence[MemoryRecord],
    scope: Sequence[Condition],
    exclude: set[str],
    limit: int = RELATED_MAX,
) -> list[RelatedMemory]:
    """The memories to show under ``shown`` (in block order), at most ``limit``, none in ``exclude``."""
    order = {rec.id: n for n, rec in reversed(list(enumerate(shown)))}
    if not order or limit <= 0:
        return []
    picks: list[tuple[int, float, str, str, str]] = []  # (anchor's place, -strength, far id, anchor, type)
    for e in backend.memories.relations(user_id, list(order)):
        for here, there in ((e.from_id, e.to_id), (e.to_id, e.from_id)):
            if here in order and there not in exclude and there not in order:
                picks.append((order[here], -e.strength, there, here, e.relation_type))
    if not picks:
        return []
    ids = sorted({p[2] for p in picks})
    conds = [*scope, Condition("id", "$in", ids), Condition("type", "$in", RELATED_TYPES)]
    found = {r.id: r for r in backend.memories.list(user_id, conds, limit=len(ids), shared=True)}
    out: list[RelatedMemory] = []
    for _, strength, there, here, kind in sorted(picks):
        if there in found and all(r.memory.id != there for r in out):
            out.append(RelatedMemory(memory=found[there], to=here, relation_type=kind, strength=-strength))
            if len(out) == limit:
                break
    return out
