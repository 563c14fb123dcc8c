"""``rules``: memlane's offline "LLM". Heuristic extraction, same-fact and conflict checks; no model needed."""

from __future__ import annotations

from memlane.providers.llm.rules.llm import RulesLLM

__all__ = ["RulesLLM"]
