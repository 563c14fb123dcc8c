"""Typed errors. Every public entry point raises one of these with a message that says what to do."""

from __future__ import annotations


class MemlaneError(Exception):
    """Base class of every error memlane raises on purpose."""


class ValidationError(MemlaneError, ValueError):
    """Input that memlane refuses (empty summary, unknown type, bad user id, ...). Nothing was changed."""


class MissingSummaryError(ValidationError):
    """An indexed write whose value has no text to embed: ``field`` names the field to add (or the write
    is made with ``index=False``). Nothing was stored."""

    def __init__(self, message: str, field: str = "summary") -> None:
        super().__init__(message)
        self.field = field


class FilterError(ValidationError):
    """An unknown filter field or operator, or a value of the wrong kind."""


class ConfigError(ValidationError):
    """A setting in the environment, the config file or the arguments that memlane does not know or
    does not support. Nothing was opened."""


class NotFoundError(MemlaneError, KeyError):
    """The memory (or user) asked for does not exist in this scope."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else "not found"


class EmbedderMismatchError(MemlaneError):
    """The configured embedder is not the one the store's vectors were made with."""


class DimensionMismatchError(EmbedderMismatchError):
    """The embedder's vector size differs from the one the store was created with."""


class SchemaVersionError(MemlaneError):
    """The database schema is newer than this version of memlane understands."""


class ForbiddenError(MemlaneError):
    """The user sees the memory (it is shared with them) but may not change it: only its owner can.
    Nothing was changed."""


class MissingExtraError(MemlaneError, ImportError):
    """An optional part of memlane was asked for but its extra is not installed; the message names the
    ``pip install 'memlane[...]'`` command. An ImportError too, for code that already catches those."""


class BackendError(MemlaneError):
    """The storage backend failed or cannot do the operation asked of it."""


class ProviderError(MemlaneError):
    """An embedder or LLM provider failed (network, timeout, malformed output)."""


class RateLimitError(MemlaneError):
    """A per-user write cap was reached."""


class ConflictError(MemlaneError):
    """The request contradicts what is stored (an idempotency key reused for a different memory)."""


class LeaseLostError(MemlaneError):
    """A worker tried to finish a job whose lease had passed to another worker; nothing was written."""
