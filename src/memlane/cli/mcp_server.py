"""``memlane mcp``: memlane's memory tools for MCP clients (Claude Desktop, Cursor, agents), over stdio
or streamable HTTP."""

from __future__ import annotations

from typing import Annotated, Literal

import typer

from memlane.cli.app import DbOption, EmbedderOption, app, open_memory


@app.command("mcp")
def mcp_command(
    user: Annotated[
        str | None,
        typer.Option(
            "--user",
            "-u",
            help="The user every tool call acts for (required "
            "over stdio; over HTTP, without it the caller's API key or "
            "X-Memlane-User header names the user).",
            show_default=False,
        ),
    ] = None,
    transport: Annotated[
        Literal["stdio", "http"],
        typer.Option(help="stdio (a client starts this process) or streamable HTTP at /mcp."),
    ] = "stdio",
    host: Annotated[str, typer.Option(help="HTTP: address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="HTTP: port.")] = 8766,
    agent: Annotated[
        str, typer.Option(help="Whose category allowlist memory_query keeps to.")
    ] = "supervisor",
    db: DbOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Serve memory tools over MCP: add_memory, search_memories, memory_query, get_context, list_memories,
    update_memory, delete_memory, memory_history. The user is never a tool argument. Needs the mcp
    extra: pip install 'memlane\\[mcp]'."""
    from memlane.cli.app import CliError, load_settings
    from memlane.engine import validate as v
    from memlane.integrations.mcp import build_server
    from memlane.server.listen import check_exposure

    if user is not None:
        v.user_id(user)
    elif transport == "stdio":
        raise CliError("over stdio the server acts for one user: pass --user ID")
    if transport == "http":
        check_exposure(host, load_settings())
    with open_memory(db, embedder) as mem:
        server = build_server(mem, user=user, agent=agent, host=host, port=port)
        server.run("stdio" if transport == "stdio" else "streamable-http")
