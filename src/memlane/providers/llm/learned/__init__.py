"""``learned``: offline understanding by small models trained here (``memlane train``), weights in the package."""

from __future__ import annotations

from memlane.providers.llm.learned.llm import LearnedLLM

__all__ = ["LearnedLLM"]
