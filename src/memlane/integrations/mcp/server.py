"""The MCP tools over a :class:`memlane.Memory`: add_memory (formation), search_memories, memory_query
(with the server's agent allowlist), get_context, list_memories, update_memory, delete_memory and
memory_history. The user is never a tool argument (:mod:`memlane.integrations.mcp.identity`); a tool
runs the engine in a worker thread, and a memlane error comes back as the tool's error message."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Literal, TypeVar

import anyio
from mcp.server.fastmcp import Context, FastMCP
from mcp.server.fastmcp.exceptions import ToolError

from memlane.engine.memory import Memory
from memlane.integrations.mcp.identity import Identity
from memlane.model.errors import MemlaneError
from memlane.model.provenance import shared_by
from memlane.model.record import MemoryRecord
from memlane.server.auth import KeyRing

ACTOR = "mcp"
T = TypeVar("T")
INSTRUCTIONS = """memlane: long-term memory about the user you are talking to. Call get_context at the start \
of a turn for what is known, search_memories to look something up, add_memory with what the user said \
(memlane decides what is worth keeping, merges duplicates and replaces corrected facts), and \
update_memory / delete_memory when the user asks to correct or forget something."""


def brief(rec: MemoryRecord, user: str) -> dict[str, Any]:
    """The memory as the tools show it to ``user``; ``shared_by`` names the owner of one shared with them."""
    return {
        "id": rec.id,
        "type": rec.type.value,
        "category": rec.category,
        "summary": rec.summary,
        "shared_by": shared_by(rec, user),
        "importance": rec.importance,
        "pinned": rec.pinned,
        "state": rec.state.value,
        "updated_at": rec.updated_at.isoformat(),
    }


def build_server(
    memory: Memory,
    *,
    user: str | None = None,
    agent: str = "supervisor",
    host: str = "127.0.0.1",
    port: int = 8765,
) -> FastMCP:
    """An MCP server acting for ``user`` (stdio needs one; over HTTP, without one the caller's API key
    or ``X-Memlane-User`` header names the user). ``agent``: whose allowlist ``memory_query`` keeps to."""
    identity = Identity(user, KeyRing(memory.settings.api_keys))
    mcp = FastMCP("memlane", instructions=INSTRUCTIONS, host=host, port=port)

    async def run(ctx: Context[Any, Any, Any], fn: Callable[[str], T]) -> T:
        request = ctx.request_context.request
        try:
            who = identity.resolve(
                dict(request.headers) if request is not None else None,
                request.client.host if request is not None and request.client else None,
            )
            return await anyio.to_thread.run_sync(functools.partial(fn, who))
        except MemlaneError as exc:
            raise ToolError(str(exc)) from exc

    @mcp.tool()
    async def add_memory(
        text: str, ctx: Context[Any, Any, Any], thread_id: str | None = None, wait: bool = True
    ) -> dict[str, Any]:
        """Remember what the user said: memlane extracts the facts worth keeping, merges duplicates and
        replaces what a correction corrects. With wait (default) the decisions are made before returning."""

        def add(who: str) -> dict[str, Any]:
            turn, cands = memory.add_turn(text, user_id=who, thread_id=thread_id, wait=wait)
            done = memory.jobs.outcomes(turn, user_id=who) if wait else []
            return {
                "candidates": [c.summary for c in cands],
                "decisions": [
                    {"summary": o.summary, "action": o.action, "memory_id": o.memory_id} for o in done
                ],
            }

        return await run(ctx, add)

    @mcp.tool()
    async def search_memories(
        query: str, ctx: Context[Any, Any, Any], limit: int = 5, filters: dict[str, Any] | None = None
    ) -> list[dict[str, Any]]:
        """Search the user's memories by meaning and keywords; filters narrow by type, category, pinned, ..."""
        return await run(
            ctx,
            lambda who: [
                {**brief(h.memory, who), "score": round(h.score, 4)}
                for h in memory.search(query, user_id=who, limit=limit, filters=filters)
            ],
        )

    @mcp.tool()
    async def memory_query(
        query: str,
        ctx: Context[Any, Any, Any],
        categories: list[str] | None = None,
        top_k: int = 3,
        return_: Literal["bullets", "full"] = "bullets",
        budget_tokens: int | None = None,
    ) -> dict[str, Any]:
        """Look up the user's memories within the categories this server's agent may read (its allowlist):
        top_k results as bullets or full items, within budget_tokens."""
        return await run(
            ctx,
            lambda who: memory.query(
                query,
                user_id=who,
                agent=agent,
                categories=categories,
                top_k=top_k,
                return_=return_,
                budget_tokens=budget_tokens,
            ).model_dump(mode="json"),
        )

    @mcp.tool()
    async def get_context(
        query: str,
        ctx: Context[Any, Any, Any],
        thread_id: str | None = None,
        budget_tokens: int | None = None,
    ) -> str:
        """What is known about the user that matters for this message, as a short text block."""
        return await run(
            ctx,
            lambda who: (
                memory.context(query, user_id=who, thread_id=thread_id, budget_tokens=budget_tokens).text
            ),
        )

    @mcp.tool()
    async def list_memories(
        ctx: Context[Any, Any, Any], type: str | None = None, category: str | None = None, limit: int = 20
    ) -> list[dict[str, Any]]:
        """The user's active memories, newest first; type and category narrow the list."""
        filters = {k: v for k, v in (("type", type), ("category", category)) if v is not None}
        return await run(
            ctx,
            lambda who: [
                brief(r, who) for r in memory.list(user_id=who, filters=filters or None, limit=limit)
            ],
        )

    @mcp.tool()
    async def update_memory(
        memory_id: str,
        ctx: Context[Any, Any, Any],
        summary: str | None = None,
        category: str | None = None,
        importance: int | None = None,
        pinned: bool | None = None,
    ) -> dict[str, Any]:
        """Correct a memory (its id from a search or list); the previous version stays in its history."""
        given = {
            k: v
            for k, v in (
                ("summary", summary),
                ("category", category),
                ("importance", importance),
                ("pinned", pinned),
            )
            if v is not None
        }
        return await run(
            ctx,
            lambda who: brief(
                memory.update(memory_id, user_id=who, actor=ACTOR, reason="mcp update", **given), who
            ),
        )

    @mcp.tool()
    async def delete_memory(memory_id: str, ctx: Context[Any, Any, Any]) -> dict[str, Any]:
        """Forget a memory (soft delete: it can be restored until it is purged)."""
        return await run(ctx, lambda who: brief(memory.delete(memory_id, user_id=who, actor=ACTOR), who))

    @mcp.tool()
    async def memory_history(memory_id: str, ctx: Context[Any, Any, Any]) -> list[dict[str, Any]]:
        """How a memory changed: each write with its event, reason, actor and time."""
        return await run(
            ctx,
            lambda who: [
                {
                    "event": h.event.value,
                    "summary": (h.new_value or h.old_value or {}).get("summary"),
                    "reason": h.reason,
                    "actor": h.actor,
                    "at": h.at.isoformat(),
                }
                for h in memory.history(memory_id, user_id=who)
            ],
        )

    return mcp
