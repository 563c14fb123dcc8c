"""memlane's HTTP service: REST, Server-Sent Events and an OpenAI-compatible chat proxy."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memlane.server.app import create_app

__all__ = ["create_app"]


def __getattr__(
    name: str,
) -> Any:  # imported on first use: `memlane serve` checks its port before FastAPI loads
    if name == "create_app":
        from memlane.server.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
