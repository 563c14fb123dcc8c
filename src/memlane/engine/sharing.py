"""``mem.sharing``: shared and global memories (docs/shared-memories.md).

A memory keeps its one owner; a link lets another user see it (read, search, context), never change
it, and never as their own words: every surface names its owner (:mod:`memlane.model.provenance`) and
formation never lets it absorb what the user says (:func:`memlane.formation.decide.decide`). The owner shares and unshares; a user it is shared with can unshare it from themselves only.
Global memories belong to the reserved owner ``GLOBAL_USER`` and reach users through the bootstrap
(:mod:`memlane.lifecycle.bootstrap`); only the operator (an admin key) writes them.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from typing import Any

from memlane.engine import validate as v
from memlane.engine.namespace import Namespace
from memlane.ledger.commit import commit_planned
from memlane.ledger.mutations import Mutation
from memlane.model.enums import MemoryState
from memlane.model.errors import ConflictError, NotFoundError, ValidationError
from memlane.model.ids import GLOBAL_USER
from memlane.model.link import MemoryLink
from memlane.model.record import MemoryRecord

MAX_USERS = 100  # users named in one share or unshare


class Sharing(Namespace):
    """Writes go through the core write path of :class:`~memlane.engine.memory.Memory`."""

    # --- sharing ---------------------------------------------------------------------------------
    def share(
        self, memory_id: str, *, user_id: str, with_users: Sequence[str], actor: str = "api"
    ) -> builtins.list[MemoryLink]:
        """Let ``with_users`` see the user's active memory ``memory_id`` (read, search, context; never
        change it). Sharing again with a user who has it does nothing; one who unshared it sees it again.
        Returns the links of ``with_users``."""
        user, mid = v.user_id(user_id), v.memory_id(memory_id)
        targets = _users("with_users", with_users)
        out: builtins.list[MemoryLink] = []

        def plan(stored: dict[str, MemoryRecord]) -> Mutation:
            rec = self.mem._owned(stored, user, mid)
            if user in targets:
                raise ConflictError(f"memory {mid} already belongs to {user!r}; share it with other users")
            if rec.state is not MemoryState.ACTIVE:
                raise ValidationError(
                    f"cannot share memory {mid}: it is {rec.state.value}; only active memories can be shared"
                )
            held = {k.user_id: k for k in self.mem.backend.memories.links(user, mid) if k.is_open}
            m = Mutation(actor=actor)
            fresh = [
                MemoryLink(user_id=t, memory_id=mid, linked_at=m.at, linked_by=user)
                for t in targets
                if t not in held
            ]
            m.share(rec, fresh, f"shared by {user}")
            made = {k.user_id: k for k in fresh}
            out[:] = [held.get(t) or made[t] for t in targets]
            return m

        commit_planned(self.mem.backend, self.mem.events, {user: [mid]}, plan)
        return out

    def unshare(
        self,
        memory_id: str,
        *,
        user_id: str,
        from_users: Sequence[str] | None = None,
        actor: str = "api",
        reason: str | None = None,
    ) -> builtins.list[MemoryLink]:
        """Close links to ``memory_id``; the other users' links stay. Its owner closes those of
        ``from_users`` (default: all); a user it is shared with closes their own (``from_users`` omitted
        or just themselves). Returns the links as closed."""
        user, mid = v.user_id(user_id), v.memory_id(memory_id)
        names = None if from_users is None else _users("from_users", from_users)
        why = None if reason is None else v.text("reason", reason)
        out: builtins.list[MemoryLink] = []

        def plan(stored: dict[str, MemoryRecord]) -> Mutation:
            owner = stored.get(mid) is not None
            held = {k.user_id: k for k in self.mem.backend.memories.links(user, mid) if k.is_open}
            if not owner and (names not in (None, [user]) or user not in held):
                self.mem._owned(stored, user, mid)  # not found, or not theirs to unshare from others
                raise NotFoundError(f"memory {mid} is not shared with user {user!r}")
            chosen = (names if names is not None else sorted(held)) if owner else [user]
            missing = [n for n in chosen if n not in held]
            if missing:
                raise NotFoundError(f"memory {mid} is not shared with {', '.join(map(repr, missing))}")
            m = Mutation(actor=actor)
            for name in chosen:
                m.unshare(
                    name,
                    mid,
                    why or ("unshared by its owner" if owner else "unshared"),
                    owner=user if owner else None,
                )
                out.append(held[name].model_copy(update={"unlinked_at": m.at}))
            return m

        commit_planned(self.mem.backend, self.mem.events, {user: [mid]}, plan)
        return out

    def shared_with(self, memory_id: str, *, user_id: str) -> builtins.list[MemoryLink]:
        """The links of ``memory_id``, open and closed: all of them for its owner, a user's own link for
        a user it is shared with."""
        user, mid = v.user_id(user_id), v.memory_id(memory_id)
        found = self.mem.backend.memories.links(user, mid)
        if not found and self.mem.backend.memories.get(user, mid, shared=True) is None:
            raise NotFoundError(f"no memory {mid!r} for user {user!r}")
        return found

    # --- global memories -------------------------------------------------------------------------
    def put_global(self, summary: str, *, actor: str = "admin", **fields: Any) -> MemoryRecord:
        """Store a global memory (the fields of :meth:`put`; with ``key`` a put updates it in place).
        Users with few memories of their own are linked to it when they next read."""
        rec = self.mem._store(
            [{"summary": summary, **fields}], [self.mem._build(summary, GLOBAL_USER, dict(fields))], actor
        )[0]
        self.mem.bootstrap.forget()
        return rec

    def list_global(
        self,
        *,
        filters: Mapping[str, Any] | None = None,
        limit: int = 100,
        offset: int = 0,
        include_inactive: bool = False,
    ) -> builtins.list[MemoryRecord]:
        conds = self.mem._conditions(GLOBAL_USER, filters, include_inactive)
        return self.mem.backend.memories.list(
            GLOBAL_USER,
            conds,
            limit=v.positive("limit", limit),
            offset=v.positive("offset", offset, allow_zero=True, maximum=10**9),
        )

    def purge_global(self, memory_id: str, *, actor: str = "admin", reason: str | None = None) -> None:
        """Forget a global memory for every user (as :meth:`purge` does for a user's own)."""
        self.mem._purge(GLOBAL_USER, v.memory_id(memory_id), actor, reason)


def _users(name: str, value: Any) -> builtins.list[str]:
    if isinstance(value, str) or not isinstance(value, Sequence) or not value or len(value) > MAX_USERS:
        raise ValidationError(f"{name} must be a list of 1 to {MAX_USERS} user ids, got {value!r}")
    return list(dict.fromkeys(v.user_id(u) for u in value))
