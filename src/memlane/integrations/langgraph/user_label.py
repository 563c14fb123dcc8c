"""Which namespace label names the memlane user, so two users' items never share one memlane user.

LangGraph code files memories two ways: ``(user_id, "memories")`` (LangGraph's docs, memlane's own
``(user_id, "semantic")``) and LangMem's ``("memories", "{user_id}")``. By default (``auto``) the store
tells them apart by the first label: a collection label (``"memories"``, ``"memory"``) is followed by
the user; any other first label is the user. An index or a template fixes the position instead. Either
way a collection label or a memory type name is never taken for a user id: such a namespace is refused
with an error that names the option to set, instead of filing every user under one memlane user.
"""

from __future__ import annotations

from collections.abc import Sequence

from langgraph.store.base import InvalidNamespaceError

from memlane.integrations.langgraph import items

COLLECTION_LABELS = frozenset({"memories", "memory"})
NOT_USERS = COLLECTION_LABELS | items.TYPES


class UserLabel:
    """The user's position in a namespace: fixed (an index or a template), or ``None`` for auto."""

    def __init__(self, spec: int | Sequence[str] | None) -> None:
        self.fixed = None if spec is None else items.user_position(spec)

    def position(self, namespace: Sequence[str]) -> int:
        if self.fixed is not None:
            return self.fixed
        return 1 if namespace and namespace[0] in COLLECTION_LABELS else 0

    def named(self, namespace: Sequence[str]) -> bool:
        """Whether a search or listing prefix names a user (a ``*`` there names none)."""
        pos = self.position(namespace)
        return len(namespace) > pos and namespace[pos] != "*"

    def label(self, namespace: Sequence[str]) -> str:
        """The label naming the user; refuses a namespace without one, or whose label there cannot be a user."""
        ns, pos = tuple(namespace), self.position(namespace)
        if len(ns) <= pos:
            where = (
                f"after the collection label {ns[0]!r} comes the user id (LangMem's "
                f"({ns[0]!r}, '{{user_id}}'))"
                if self.fixed is None and ns
                else f"this store reads the user from label {pos} (user_namespace_index)"
            )
            raise InvalidNamespaceError(f"namespace {ns!r} has no user label: {where}")
        if ns[pos] in NOT_USERS:
            kind = "a collection label" if ns[pos] in COLLECTION_LABELS else "a memory type"
            raise InvalidNamespaceError(
                f"namespace {ns!r}: label {pos} is {ns[pos]!r}, {kind}, not a user id, so every user would be "
                "filed under one memlane user. Put the user id there, or open the store with "
                "user_namespace_index=1 (or a template such as ('memories', '{user_id}')) for namespaces "
                "whose user follows a fixed label"
            )
        return ns[pos]

    def describe(self) -> str:
        if self.fixed is not None:
            return f"at namespace label {self.fixed}"
        return "as the first namespace label (the second after 'memories' or 'memory')"


def check_user_id(user_id: str) -> None:
    """A store bound to a user: refuse a user id that is a collection label or a type name."""
    if user_id in NOT_USERS:
        raise ValueError(f"user_id={user_id!r} is a collection label or a memory type, not a user id")
