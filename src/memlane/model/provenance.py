"""Whose words a memory is, for the user reading it (docs/shared-memories.md, "Whose words").

A memory shared with a user is its owner's statement, never the reader's: every surface that shows it
to the reader (context block, ``memory.query``, MCP and LangGraph tools, listings) names the owner with
these helpers, so an assistant cannot take another user's text for something its user said.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memlane.model.ids import GLOBAL_USER

if TYPE_CHECKING:  # the CLI's help must not import the record model (tests/test_cli_first_hour.py)
    from memlane.model.record import MemoryRecord

OPERATOR = "the operator"  # how a global memory's owner is named to the users it reaches


def shared_by(rec: MemoryRecord, reader: str) -> str | None:
    """Who shared ``rec`` with ``reader``: its owner (``the operator`` for a global memory), or None
    when it is the reader's own."""
    if rec.user_id == reader:
        return None
    return OPERATOR if rec.user_id == GLOBAL_USER else rec.user_id


def attributed(text: str, rec: MemoryRecord, reader: str) -> str:
    """``text`` (the memory's summary, perhaps cut) as ``reader`` may be shown it: unchanged for their own
    memory, ``shared by <owner>: <text>`` for one shared with them."""
    owner = shared_by(rec, reader)
    return text if owner is None else f"shared by {owner}: {text}"
