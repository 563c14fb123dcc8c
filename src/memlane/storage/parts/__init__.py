"""The typed parts of a storage backend (``backend.memories``, ``.jobs``, ``.sessions``, ``.changes``,
``.proposals``): each a ``Protocol`` that both backends' part classes implement."""

from memlane.storage.parts.changes import ChangeLog
from memlane.storage.parts.jobs import JobQueue
from memlane.storage.parts.memories import MemoryStore, ScoredRecord
from memlane.storage.parts.proposals import ProposalStore
from memlane.storage.parts.sessions import SessionStore

__all__ = ["ChangeLog", "JobQueue", "MemoryStore", "ProposalStore", "ScoredRecord", "SessionStore"]
