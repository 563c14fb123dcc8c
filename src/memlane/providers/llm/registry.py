"""LLMs by name. Each implementation (and its SDK) is imported only when chosen."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from memlane.model.errors import ValidationError
from memlane.providers.llm.base import MemoryLLM

if TYPE_CHECKING:
    from memlane.model.config import Settings

# name -> "module:Class"; the module is imported on first use only.
REGISTRY: dict[str, str] = {
    "rules": "memlane.providers.llm.rules:RulesLLM",
    "learned": "memlane.providers.llm.learned:LearnedLLM",
    "openai": "memlane.providers.llm.openai:OpenAILLM",
    "bedrock": "memlane.providers.llm.bedrock:BedrockLLM",
}


def get_llm(name: str, **options: Any) -> MemoryLLM:
    """Build the LLM registered as ``name`` with ``options`` (``None`` values mean "the default")."""
    key = name.strip().lower()
    if key not in REGISTRY:
        raise ValidationError(f"unknown llm {name!r}; choose one of {', '.join(sorted(REGISTRY))}")
    module_name, cls_name = REGISTRY[key].split(":")
    cls = getattr(importlib.import_module(module_name), cls_name)
    llm: MemoryLLM = cls(**{k: v for k, v in options.items() if v is not None})
    return llm


def llm_from_settings(settings: Settings) -> MemoryLLM:
    """The LLM ``settings.llm`` names, configured from the other settings."""
    key = settings.llm.strip().lower()
    options: dict[str, Any] = {}
    if key in ("openai", "bedrock"):
        options = {
            "timeout": settings.llm_timeout_s,
            "categories": settings.categories,
            "max_chars": settings.memory_candidate_max_chars,
        }
    if key == "learned":
        options = {"weights": settings.decision_model_dir, "threads": settings.torch_threads}
    if key == "openai":
        options |= {
            "model": settings.llm_model,
            "base_url": settings.openai_base_url,
            "api_key": settings.openai_api_key,
        }
    elif key == "bedrock":
        options |= {
            "model": settings.llm_model or settings.memory_tiny_llm_model_id,
            "region": settings.aws_region,
        }
    llm = get_llm(settings.llm, **options)
    if settings.llm_first_stage is not None and hasattr(
        llm, "first_stage"
    ):  # a model judge (openai, bedrock)
        from pathlib import Path

        from memlane.providers.llm.first_stage import FirstStage
        from memlane.providers.llm.learned.decision_model import shared_model

        weights = Path(settings.decision_model_dir) if settings.decision_model_dir else None
        model = shared_model(weights, settings.torch_threads)
        llm.first_stage = FirstStage(model, settings.llm_first_stage)
    return llm


def summary_llm_from_settings(settings: Settings) -> MemoryLLM | None:
    """The LLM of session summaries when ``CONTEXT_SESSION_SUMMARY_MODEL`` names a model of its own (the
    configured provider with that model); None: summaries use the memory LLM."""
    model = settings.context_session_summary_model
    return None if model is None else llm_from_settings(settings.model_copy(update={"llm_model": model}))


__all__ = ["REGISTRY", "get_llm", "llm_from_settings", "summary_llm_from_settings"]
