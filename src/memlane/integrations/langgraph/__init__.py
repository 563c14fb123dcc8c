"""memlane for LangGraph: a ``BaseStore`` over memlane, memory search/put/update tools and ``memory.query``,
the ``memory_hotpath`` / ``memory_context`` nodes and an example graph.

Needs the ``langgraph`` extra: ``pip install 'memlane[langgraph]'``.
"""

from __future__ import annotations

try:
    import langgraph.store.base  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "memlane's LangGraph integration needs LangGraph: pip install 'memlane[langgraph]'"
    ) from exc

from memlane.integrations.langgraph.aio import AsyncMemlaneStore
from memlane.integrations.langgraph.store import MemlaneStore
from memlane.integrations.langgraph.vectors import LangChainEmbedder

__all__ = ["AsyncMemlaneStore", "LangChainEmbedder", "MemlaneStore"]
