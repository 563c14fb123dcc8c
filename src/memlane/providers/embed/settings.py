"""Settings -> embedder: which registry entry, with which options."""

from __future__ import annotations

import os
from typing import Any

from memlane.model.config import Settings
from memlane.providers.embed import get_embedder
from memlane.providers.embed.base import Embedder

MISTRAL_BASE_URL = "https://api.mistral.ai/v1"
# Other spellings of a registry name: VECTOR_EMBEDDING_PROVIDER=deterministic is the hash embedder.
ALIASES = {"deterministic": "hash", "titan": "bedrock"}


def embedder_options(settings: Settings) -> tuple[str, dict[str, Any]]:
    """The registry name and the options for it; None means "the embedder's default"."""
    name = settings.embedder.strip().lower()
    name = ALIASES.get(name, name)
    s = settings
    if name == "local":
        return name, {"model": s.embed_model, "batch_size": s.embed_batch_size, "threads": s.torch_threads}
    if name == "hash":
        return name, {"dims": s.embed_dims}
    if name == "openai":
        return name, {
            "model": s.embed_model,
            "base_url": s.openai_base_url,
            "api_key": s.openai_api_key,
            "dims": s.embed_dims,
            "batch_size": s.embed_batch_size,
            "timeout": s.embed_timeout_s,
        }
    if name == "mistral":  # OpenAI-compatible endpoint with Mistral's defaults
        return "openai", {
            "model": s.embed_model or "mistral-embed",
            "base_url": s.openai_base_url or MISTRAL_BASE_URL,
            "api_key": os.environ.get("MISTRAL_API_KEY") or s.openai_api_key,
            "dims": s.embed_dims,
            "batch_size": s.embed_batch_size,
            "timeout": s.embed_timeout_s,
        }
    if name == "bedrock":
        return name, {
            "model": s.embed_model or s.bedrock_embed_model_id,
            "dims": s.embed_dims,
            "region": s.aws_region,
            "timeout": s.embed_timeout_s,
        }
    return name, {}  # get_embedder names the valid choices


def embedder_from_settings(settings: Settings) -> Embedder:
    """The configured embedder, its texts cut to ``embed_max_input_chars``, wrapped in the text-hash cache
    (``embed_cache_size``, 0 disables it)."""
    name, options = embedder_options(settings)
    return get_embedder(
        name, cache_size=settings.embed_cache_size, max_input_chars=settings.embed_max_input_chars, **options
    )
