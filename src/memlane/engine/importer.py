"""Import of JSONL rows written by ``export_user``: validated first, then written in batches."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError as PydanticError

from memlane.engine import validate as v
from memlane.engine.import_as import as_user
from memlane.formation.mutations import Mutation, commit
from memlane.model.enums import MemoryState
from memlane.model.errors import ValidationError
from memlane.model.invalid import describe
from memlane.model.record import HistoryEntry, MemoryRecord, Relation

if TYPE_CHECKING:
    from memlane.engine.memory import Memory


def parse_rows(rows: Iterable[Mapping[str, Any]], max_chars: int) -> tuple[list[MemoryRecord], list[HistoryEntry], list[Relation]]:
    """Validate every row before anything is written; the error names the row number."""
    memories: list[MemoryRecord] = []
    history: list[HistoryEntry] = []
    relations: list[Relation] = []
    for n, row in enumerate(rows, start=1):
        if not isinstance(row, Mapping):
            raise ValidationError(f"row {n}: expected a JSON object")
        data = {k: val for k, val in row.items() if k != "kind"}
        kind = row.get("kind", "memory")
        try:
            if kind == "memory":
                rec = MemoryRecord.model_validate(data)
                v.user_id(rec.user_id)
                if rec.state is not MemoryState.PURGED:
                    v.summary(rec.summary, max_chars)
                memories.append(rec)
            elif kind == "history":
                history.append(HistoryEntry.model_validate(data))
            elif kind == "relation":
                relations.append(Relation.model_validate(data))
            else:
                raise ValidationError(f"unknown kind {kind!r} (memory, history or relation)")
        except PydanticError as exc:
            raise ValidationError(f"row {n}: {describe(exc)}") from None
        except ValidationError as exc:
            raise ValidationError(f"row {n}: {exc}") from None
    return memories, history, relations


def import_rows(
    memory: Memory,
    rows: Iterable[Mapping[str, Any]],
    *,
    batch_size: int = 64,
    progress: Callable[[int], None] | None = None,
    user_id: str | None = None,
) -> int:
    if user_id is not None:
        rows = as_user(rows, v.user_id(user_id))
    memories, history, relations = parse_rows(rows, memory.settings.memory_summary_max_chars)
    for start in range(0, len(memories), batch_size):
        chunk = memories[start: start + batch_size]
        live = [r for r in chunk if r.state is not MemoryState.PURGED]
        vectors = dict(zip([r.id for r in live], memory.embedder.embed([memory.embed_text(r) for r in live]),
                           strict=True)) if live else {}
        m = Mutation(actor="import")
        for r in chunk:
            m.load(r, vectors.get(r.id))
        commit(memory.backend, memory.events, m)
        if progress:
            progress(len(chunk))
    if history or relations:
        known = {(h.user_id, h.id) for u in {h.user_id for h in history} for h in memory.backend.history(u, limit=10**9)}
        m = Mutation(actor="import")
        m.batch.history += [h for h in history if (h.user_id, h.id) not in known]
        m.batch.relations += relations  # the export's own history rows record these links
        commit(memory.backend, memory.events, m)
    return len(memories)
