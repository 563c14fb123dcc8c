"""A memory whose type looks wrong (``Memory.misfiled``): the type it looks like and why."""

from __future__ import annotations

from pydantic import BaseModel, Field

from memlane.model.enums import MemoryType
from memlane.model.record import MemoryRecord


class Misfiled(BaseModel):
    memory: MemoryRecord
    suggested: MemoryType = Field(description="The type the memory looks like.")
    why: str = Field(description="The sign that says so.")
