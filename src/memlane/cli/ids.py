"""Memory ids as a person types them: a full id, a unique prefix (as git takes commit ids), or the tail
a narrow table prints after its ellipsis ("…3f9a0c1d2e4b").

UUIDv7 ids made in the same minute share their first characters, so a short prefix is often
ambiguous; the error then lists a few candidates. The user's memories are read in the database (their
scope is a query condition); the fragment is matched here, since SQL ``LIKE`` and text ranges follow
each database's collation."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memlane.cli.render import safe
from memlane.model.errors import NotFoundError, ValidationError

if TYPE_CHECKING:
    from memlane.engine.memory import Memory
    from memlane.model.record import MemoryRecord

FULL_ID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
MIN_FRAGMENT = 4
SHOWN = 5  # candidates listed when a fragment is ambiguous
PAGE = 10_000
ELLIPSES = ("…", "...")


def _fragment(given: str) -> tuple[str, bool]:
    """The fragment and whether it is a tail (given after an ellipsis)."""
    for mark in ELLIPSES:
        if given.startswith(mark):
            return given[len(mark) :], True
    return given, False


def _user_memories(mem: Memory, user: str) -> list[MemoryRecord]:
    """Every memory the user can name: their own in any state, and those shared with them."""
    out: list[MemoryRecord] = []
    while True:
        page = mem.list(user_id=user, limit=PAGE, offset=len(out), include_inactive=True)
        out.extend(page)
        if len(page) < PAGE:
            return out


def resolve_id(mem: Memory, user: str, given: str) -> str:
    """The full id ``given`` names among ``user``'s memories. A full id is returned as it is (the command
    says whether it exists, as before). Raises :class:`NotFoundError` when nothing matches and
    :class:`ValidationError` when the fragment is too short or matches several memories."""
    if FULL_ID.match(given):
        return given
    fragment, tail = _fragment(given)
    if len(fragment) < MIN_FRAGMENT:
        raise ValidationError(f"id {given!r} is too short: give at least {MIN_FRAGMENT} characters of it")
    lowered = fragment.lower()
    found = [
        r
        for r in _user_memories(mem, user)
        if (r.id.endswith(lowered) if tail else r.id.startswith(lowered)) or r.id == fragment
    ]
    if not found:
        raise NotFoundError(
            f"no memory {given!r} for user {user!r} (no id {'ends' if tail else 'starts'} with it)"
        )
    if len(found) > 1:
        shown = "; ".join(f"{r.id} ({_short(r.summary)})" for r in found[:SHOWN])
        more = f"; and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
        raise ValidationError(
            f"id {given!r} matches {len(found)} memories of user {user!r}: {shown}{more}. "
            "Give more characters of the id."
        )
    return found[0].id


def _short(summary: str, width: int = 40) -> str:
    text = " ".join(safe(summary).split())
    return text if len(text) <= width else text[: width - 1] + "…"
