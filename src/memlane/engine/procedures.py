"""``mem.procedures``: procedural memories, saved on an explicit trigger, never in the default
context, read by agents whose allowlist has ``procedural`` (``memory.query``) or listed here."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from memlane.engine import validate as v
from memlane.engine.namespace import Namespace, warn_renamed
from memlane.model.enums import MemoryType
from memlane.model.errors import NotFoundError, ValidationError
from memlane.model.filters import Condition, live
from memlane.model.ids import deterministic_id
from memlane.model.procedure import CATEGORY, check_name, check_steps, procedure_key, procedure_summary
from memlane.model.record import MemoryRecord


class Procedures(Namespace):
    """Writes go through :meth:`Memory.put` (one write path)."""

    def __call__(self, *, user_id: str, limit: int = 100) -> builtins.list[MemoryRecord]:
        """The old ``mem.procedures(...)``, kept one release: :meth:`list`."""
        warn_renamed("Memory.procedures", "mem.procedures.list")
        return self.list(user_id=user_id, limit=limit)

    def add(
        self, name: str, steps: Sequence[str] | str, *, user_id: str, actor: str = "api", **fields: Any
    ) -> MemoryRecord:
        """Save (or replace, by name) a procedure of numbered imperative steps. ``fields``: ``tags``,
        ``importance``, ``pinned``, ``agent_id``, ``run_id``, ``thread_id``. The previous steps of the
        same name stay in the memory's history."""
        title, clean = check_name(name), check_steps(steps)
        if "category" in fields or "type" in fields or "key" in fields or "summary" in fields:
            raise ValidationError(
                "a procedure's type, category, key and summary follow from its name and steps"
            )
        return self.mem.put(
            procedure_summary(title, clean),
            user_id=user_id,
            actor=actor,
            type=MemoryType.PROCEDURAL,
            category=CATEGORY,
            key=procedure_key(title),
            metadata={"procedure": title, "steps": clean},
            **fields,
        )

    def get(self, name: str, *, user_id: str) -> MemoryRecord:
        """The active procedure of that name."""
        user, title = v.user_id(user_id), check_name(name)
        memory_id = deterministic_id(user, MemoryType.PROCEDURAL.value, procedure_key(title))
        rec = self.mem.backend.memories.get(user, memory_id)
        if rec is None or not rec.is_active:
            raise NotFoundError(
                f"no procedure {title!r} for user {user!r}; list them with mem.procedures.list()"
            )
        return rec

    def list(self, *, user_id: str, limit: int = 100) -> builtins.list[MemoryRecord]:
        """The user's active procedures."""
        user = v.user_id(user_id)
        conds = [*live(), Condition("type", "$eq", MemoryType.PROCEDURAL.value)]
        return self.mem.backend.memories.list(user, conds, limit=v.positive("limit", limit))
