"""memlane for LangGraph: a ``BaseStore`` over memlane, memory search/put/update tools and ``memory.query``,
the ``memory_hotpath`` / ``memory_context`` nodes and an example graph; and the seed's ``S3VectorsStore``
on Amazon S3 Vectors (imported on first use: it needs boto3, the ``aws`` extra).

Needs the ``langgraph`` extra: ``pip install 'memlane[langgraph]'``.
"""

from __future__ import annotations

from typing import Any

from memlane.model.errors import MissingExtraError

try:
    import langgraph.store.base  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise MissingExtraError(
        "memlane's LangGraph integration needs LangGraph: pip install 'memlane[langgraph]'"
    ) from exc

from memlane.integrations.langgraph.aio import AsyncMemlaneStore
from memlane.integrations.langgraph.example import build_graph, example_graph
from memlane.integrations.langgraph.store import MemlaneStore
from memlane.integrations.langgraph.vectors import LangChainEmbedder

__all__ = [
    "AsyncMemlaneStore",
    "LangChainEmbedder",
    "MemlaneStore",
    "S3VectorsStore",
    "build_graph",
    "example_graph",
]


def __getattr__(name: str) -> Any:
    if name == "S3VectorsStore":
        from memlane.integrations.langgraph.s3v_store import S3VectorsStore

        return S3VectorsStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
