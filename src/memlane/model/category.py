"""Category normalisation: TitleCase with underscores, unknown names become ``Other``."""

from __future__ import annotations

import re
from collections.abc import Iterable

DEFAULT_CATEGORIES: tuple[str, ...] = (
    "Personal",
    "Preferences",
    "Health",
    "Relationships",
    "Work",
    "Education",
    "Finance",
    "Budget",
    "Goals",
    "Tasks",
    "Projects",
    "Travel",
    "Interests",
    "Conversation_Summary",
    "Relationship_Dynamic",
    "Procedural",
    "Other",
)
OTHER = "Other"


def title_case(name: str) -> str:
    """``"conversation summary"`` / ``"conversation-summary"`` -> ``"Conversation_Summary"``."""
    parts = [p for p in re.split(r"[\s_\-]+", name.strip()) if p]
    return "_".join(p[:1].upper() + p[1:].lower() for p in parts)


def normalise_category(name: str | None, allowed: Iterable[str] = DEFAULT_CATEGORIES) -> str:
    """Map a free-form category to one of ``allowed`` (case-insensitively); anything else is ``Other``."""
    if not name or not name.strip():
        return OTHER
    wanted = title_case(name)
    for known in allowed:
        if title_case(known) == wanted:
            return title_case(known)
    return OTHER


class UnknownCategoryWarning(UserWarning):
    """A category that is not configured was stored as ``Other``."""


def category_notice(name: str | None, allowed: Iterable[str] = DEFAULT_CATEGORIES) -> str | None:
    """What to tell the caller when ``name`` is not a configured category (it is stored as ``Other``)."""
    allowed = list(allowed)
    if (
        not name
        or not name.strip()
        or normalise_category(name, allowed) != OTHER
        or title_case(name) == OTHER
    ):
        return None
    return (
        f"category {name!r} is not configured and was stored as {OTHER!r}; "
        f"use one of {', '.join(allowed)} (or add it to MEMLANE_CATEGORIES)"
    )
