"""What a move leaves of a job told with the old town: "works as a vet in Utrecht", then "moved to Groningen".

The job statement's town is stale; the job itself is not. So the move also proposes the job told with the
move ("User works as a vet, having moved from Utrecht to Groningen."), which refines the stored statement
and replaces it; the judge retires a job told with the old town that nothing restated (frames.py
``_moved_home``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_JOB_IN_TOWN = re.compile(
    r"^(?P<job>User (?:works as an? [\w -]+?|is an? [a-z][\w -]+?)) in (?P<town>[A-Z][\w'-]*(?: [A-Z][\w'-]*)*)\.?$"
)


def job_moved(existing: Sequence[str], town: str) -> list[str]:
    """The stored job statements told with another town than ``town``, told with the move."""
    out = []
    for summary in existing:
        m = _JOB_IN_TOWN.match(summary.strip())
        if m and m.group("town").lower() != town.lower():
            out.append(f"{m.group('job')}, having moved from {m.group('town')} to {town}.")
    return out


_MOVED = re.compile(r"\b(?:moved|relocated|moving|relocating)\b", re.IGNORECASE)


def lookup_terms(turn: str) -> list[str]:
    """A move: the words that find a stored job told with a town ("works as a vet in Utrecht")."""
    return ["works"] if _MOVED.search(turn) else []
