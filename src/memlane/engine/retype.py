"""Moving a memory filed under the wrong type: an event stored as a lasting fact, or a lasting fact
("Luna turned 4") stored as an event.

:func:`retype` moves one memory between ``semantic`` and ``episodic`` through the one write path, with
a history row that says so ("retyped from episodic to semantic"). The memory keeps its id, text,
vector and links; the episodic time buckets (``date_iso``, ``week``, ``year``) are set or cleared for
the new type. A keyed memory whose id is its key's id (``uuid5(user|type::key)``) moves to the id the
key has under the new type, so a later put of that key updates it: the new id is the current memory,
the old one stays in history as superseded by it (its relations are copied to the new id).

:func:`misfiled` lists memories whose type looks wrong by two exact signs (see its docstring); it
changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memlane.engine import validate as v
from memlane.ledger.commit import commit_planned
from memlane.ledger.mutations import Mutation
from memlane.model.enums import MemoryState, MemoryType
from memlane.model.errors import ConflictError, ValidationError
from memlane.model.filters import Condition, live
from memlane.model.ids import deterministic_id
from memlane.model.misfiled import Misfiled
from memlane.model.record import MemoryRecord, Relation, utcnow
from memlane.model.time_buckets import buckets
from memlane.retrieval.timephrases import PATTERNS

if TYPE_CHECKING:
    from memlane.engine.writes_api import WritesAPI

RETYPABLE = (MemoryType.SEMANTIC, MemoryType.EPISODIC)
# relative phrases that place a one-off event in the past of the moment they were said
PAST_PHRASES = ("before_yesterday", "yesterday", "ago", "last_unit")
PAGE = 1000


def _check_type(value: Any) -> MemoryType:
    mtype = v.memory_type(value)
    if mtype not in RETYPABLE:
        raise ValidationError(
            f"cannot retype to {mtype.value}: retype moves memories between semantic and episodic "
            "(procedural, insight and session memories are made by their own calls)"
        )
    return mtype


def _keyed(rec: MemoryRecord) -> bool:
    """The memory's id is the id of its key under its type (a put of the key finds it)."""
    return rec.key is not None and rec.id == deterministic_id(rec.user_id, rec.type.value, rec.key)


def retyped(old: MemoryRecord, mtype: MemoryType, tz: str) -> MemoryRecord:
    """``old`` under ``mtype`` (same id): the episodic time buckets set or cleared."""
    at = utcnow()
    update: dict[str, Any] = {"type": mtype, "updated_at": at, "date_iso": None, "week": None, "year": None}
    if mtype is MemoryType.EPISODIC:
        update["date_iso"], update["week"], update["year"] = buckets(old.valid_from or old.created_at, tz)
    return old.model_copy(update=update)


def retype(
    mem: WritesAPI, memory_id: str, *, user_id: str, type: Any, actor: str, reason: str | None
) -> MemoryRecord:
    """:meth:`Memory.retype`."""
    from memlane.engine.writes_api import _Vectors

    user, mid, mtype = v.user_id(user_id), v.memory_id(memory_id), _check_type(type)
    current = mem._require(user, mid)
    moves = _keyed(current) and current.type is not mtype
    new_id = deterministic_id(user, mtype.value, current.key or "") if moves else mid
    vectors = _Vectors(mem)
    if moves:
        vectors.prepare([current])
        links = [k for k in mem.backend.memories.links(user, mid) if k.unlinked_at is None]
        if links:
            raise ConflictError(
                f"memory {mid} is keyed and shared with {', '.join(k.user_id for k in links)}: retyping "
                "gives it a new id; unshare it, retype it, then share the new memory"
            )
    result: list[MemoryRecord] = []

    def plan(stored: dict[str, MemoryRecord]) -> Mutation:
        old = mem._owned(stored, user, mid)
        if old.state is not MemoryState.ACTIVE:
            raise ValidationError(
                f"cannot retype memory {mid}: it is {old.state.value} (only active memories are retyped)"
            )
        if old.type not in RETYPABLE:
            raise ValidationError(
                f"cannot retype memory {mid}: it is a {old.type.value} memory; retype moves memories "
                "between semantic and episodic"
            )
        if old.type is mtype:
            raise ValidationError(f"memory {mid} is already {mtype.value}; nothing to retype")
        why = reason or f"retyped from {old.type.value} to {mtype.value}"
        m = Mutation(actor=actor)
        new = retyped(old, mtype, mem.settings.timezone)
        if not moves:
            m.update(old, new, None, why)
        else:
            if new_id in stored:
                raise ConflictError(
                    f"memory {mid} has key {old.key!r}, and the user already has a {mtype.value} memory "
                    f"of that key ({new_id}); update or delete that one instead"
                )
            new = new.model_copy(update={"id": new_id})
            closed = old.model_copy(
                update={
                    "state": MemoryState.SUPERSEDED,
                    "superseded_by": new_id,
                    "valid_to": m.at,
                    "updated_at": m.at,
                }
            )
            edges = _moved_edges(mem.backend.memories.relations(user, [mid]), mid, new_id)
            m.supersede(old, new, closed, vectors.of(new), None, why, edges)
        result.append(new)
        return m

    reads = [mid, *([new_id] if moves else [])]
    commit_planned(mem.backend, mem.events, {user: reads}, plan)
    return result[0]


def _moved_edges(edges: Sequence[Relation], old_id: str, new_id: str) -> list[Relation]:
    """The relations of ``old_id``, copied to ``new_id``."""
    return [
        e.model_copy(
            update={
                "from_id": new_id if e.from_id == old_id else e.from_id,
                "to_id": new_id if e.to_id == old_id else e.to_id,
            }
        )
        for e in edges
    ]


def _past_phrase(text: str) -> str | None:
    for kind, pattern in PATTERNS:
        if kind in PAST_PHRASES and (m := pattern.search(text)):
            return m.group(0)
    return None


def misfiled(mem: WritesAPI, *, user_id: str, limit: int) -> list[Misfiled]:
    """:meth:`Memory.misfiled`: the user's active semantic and episodic memories showing one of two
    exact signs of the wrong type (a hint for a person, not a judgement of meaning):

    - an episodic memory with a deterministic ``key``: keys name the slot of a lasting fact
      (``profile:pet:luna:age``), so it looks semantic;
    - a semantic memory whose summary places it by a relative past time phrase ("yesterday",
      "3 days ago", "last week"): a lasting fact is not dated relative to when it was said, a one-off
      event is, so it looks episodic.
    """
    user, limit = v.user_id(user_id), v.positive("limit", limit, maximum=1000)
    conds = [*live(), Condition("type", "$in", [t.value for t in RETYPABLE])]
    out: list[Misfiled] = []
    offset = 0
    while len(out) < limit:
        page = mem.backend.memories.list(user, conds, limit=PAGE, offset=offset)
        for rec in page:
            if rec.type is MemoryType.EPISODIC and rec.key:
                why = f"has the key {rec.key!r} of a lasting fact"
                out.append(Misfiled(memory=rec, suggested=MemoryType.SEMANTIC, why=why))
            elif rec.type is MemoryType.SEMANTIC and (phrase := _past_phrase(rec.summary)):
                why = f"dated {phrase!r}, as a one-off event is"
                out.append(Misfiled(memory=rec, suggested=MemoryType.EPISODIC, why=why))
        if len(page) < PAGE:
            break
        offset += PAGE
    return out[:limit]
