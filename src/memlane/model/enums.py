"""The closed vocabularies of the memory record."""

from __future__ import annotations

from enum import StrEnum


class MemoryType(StrEnum):
    SEMANTIC = "semantic"
    EPISODIC = "episodic"
    INSIGHT = "insight"
    PROCEDURAL = "procedural"
    SESSION = "session"


class MemoryState(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    SOFT_DELETED = "soft_deleted"
    PURGED = "purged"
    PROVISIONAL = "provisional"  # never stored: a candidate still being decided, as ``Memory.get`` shows it


class Source(StrEnum):
    CHAT = "chat"
    EXTERNAL = "external"
    SYSTEM = "system"


class HistoryEvent(StrEnum):
    ADD = "ADD"
    UPDATE = "UPDATE"
    MERGE = "MERGE"
    SUPERSEDE = "SUPERSEDE"
    DELETE = "DELETE"
    TTL = "TTL"  # a soft delete by the TTL policy (unused, unimportant, unpinned)
    RESTORE = "RESTORE"
    PURGE = "PURGE"
    LINK = "LINK"
    PROPOSE = "PROPOSE"  # a change to a consent field, queued as a proposal (or corroborated again)
    CONSENT = "CONSENT"  # a decision on a proposal: accepted, rejected, expired or replaced
    SHARE = "SHARE"  # a link opened: the memory is seen by another user (shared or global)
    UNSHARE = "UNSHARE"  # a link closed: one user no longer sees it (the others keep theirs)
