"""memlane's HTTP service: REST, Server-Sent Events and an OpenAI-compatible chat proxy."""

from memlane.server.app import create_app

__all__ = ["create_app"]
