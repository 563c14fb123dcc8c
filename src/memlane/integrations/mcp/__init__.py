"""memlane as an MCP server (``memlane mcp``): memory tools for any MCP client, over stdio or streamable
HTTP. Needs the ``mcp`` extra: ``pip install 'memlane[mcp]'``."""

from __future__ import annotations

from memlane.model.errors import MissingExtraError

try:
    import mcp.server.fastmcp  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise MissingExtraError("memlane's MCP server needs the MCP SDK: pip install 'memlane[mcp]'") from exc

from memlane.integrations.mcp.server import build_server

__all__ = ["build_server"]
