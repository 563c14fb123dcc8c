"""Embedders by name. Each implementation is imported only when chosen."""

from __future__ import annotations

import importlib
from typing import Any

from memlane.model.errors import ValidationError
from memlane.providers.embed.base import CachedEmbedder, ClippedEmbedder, Embedder

# name -> "module:Class"; the module is imported on first use only.
REGISTRY: dict[str, str] = {
    "local": "memlane.providers.embed.local:LocalEmbedder",
    "hash": "memlane.providers.embed.hash:HashEmbedder",
    "openai": "memlane.providers.embed.openai:OpenAIEmbedder",
    "bedrock": "memlane.providers.embed.bedrock:BedrockEmbedder",
}


def get_embedder(
    name: str, *, cache_size: int = 10_000, max_input_chars: int | None = None, **options: Any
) -> Embedder:
    """Build the embedder registered as ``name`` with ``options``, its texts cut to ``max_input_chars``
    when given, wrapped in the text-hash cache."""
    if name not in REGISTRY:
        raise ValidationError(f"unknown embedder {name!r}; choose one of {', '.join(sorted(REGISTRY))}")
    module_name, cls_name = REGISTRY[name].split(":")
    cls = getattr(importlib.import_module(module_name), cls_name)
    inner: Embedder = cls(**{k: v for k, v in options.items() if v is not None})
    if max_input_chars is not None:
        inner = ClippedEmbedder(inner, max_input_chars)
    return CachedEmbedder(inner, max_items=cache_size) if cache_size > 0 else inner


__all__ = ["REGISTRY", "CachedEmbedder", "ClippedEmbedder", "Embedder", "get_embedder"]
