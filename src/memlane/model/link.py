"""A memory link: one user sees another user's memory (shared by its owner, or a global memory)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field, field_validator

from memlane.model.record import as_utc, utcnow

BOOTSTRAP = "system:bootstrap"  # ``linked_by`` of the global memories the bootstrap links


class MemoryLink(BaseModel):
    """``user_id`` sees ``memory_id`` while the link is open. A closed link (``unlinked_at`` set) is
    kept: the global bootstrap never links that memory to that user again."""

    user_id: str
    memory_id: str
    linked_at: datetime = Field(default_factory=utcnow)
    linked_by: str = Field(description="The owner who shared it, or system:bootstrap for a global memory")
    unlinked_at: datetime | None = None

    @field_validator("linked_at", "unlinked_at")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        return None if value is None else as_utc(value)

    @property
    def is_open(self) -> bool:
        return self.unlinked_at is None
