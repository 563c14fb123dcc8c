"""How many memories a store holds: by state, and how active memories spread over the users."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class MemoryTotals:
    """Counts over every user's memories, for an operator's metrics: no memory content, and user ids
    only for the ``top`` users asked for.

    ``by_state``: all memories by state (``active``, ``superseded``, ...), global memories included.
    ``per_user``: n -> how many users have exactly n active memories (users with none are not listed;
    the owner of global memories is not a user). ``top``: the users with the most active memories, most
    first, ties by user id."""

    by_state: dict[str, int] = field(default_factory=dict)
    per_user: dict[int, int] = field(default_factory=dict)
    top: list[tuple[str, int]] = field(default_factory=list)

    @property
    def users(self) -> int:
        """Users with at least one active memory."""
        return sum(self.per_user.values())

    @property
    def active(self) -> int:
        """Active memories of users (global ones left out)."""
        return sum(n * users for n, users in self.per_user.items())
