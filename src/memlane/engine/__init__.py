"""The engine: ``Memory`` and ``AsyncMemory``, the one public API."""

from memlane.engine.async_memory import AsyncMemory
from memlane.engine.memory import Memory

__all__ = ["AsyncMemory", "Memory"]
