"""``memlane serve``: the HTTP service (REST, Server-Sent Events, OpenAI-compatible chat proxy)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memlane.cli.app import (
    CreateDirsOption,
    DbOption,
    EmbedderOption,
    app,
    check_folder,
    is_sqlite_path,
    load_settings,
)


@app.command()
def serve(
    host: Annotated[
        str | None,
        typer.Option(help="Address to listen on \\[default: $MEMLANE_HOST or 127.0.0.1]", show_default=False),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(
            min=0,
            max=65535,
            help="Port (0 picks a free one) \\[default: $MEMLANE_PORT or 8765]",
            show_default=False,
        ),
    ] = None,
    db: DbOption = None,
    embedder: EmbedderOption = None,
    upstream: Annotated[
        str | None,
        typer.Option(
            help="OpenAI-compatible upstream LLM base URL for the chat proxy "
            "\\[default: $MEMLANE_UPSTREAM_BASE_URL]",
            show_default=False,
        ),
    ] = None,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
    worker: Annotated[
        bool | None,
        typer.Option(
            "--worker/--no-worker",
            help="Run formation jobs and the periodic "
            "tasks in this process \\[default: $MEMLANE_WORKER or on]; off when "
            "'memlane worker' processes do it.",
            show_default=False,
        ),
    ] = None,
    create_dirs: CreateDirsOption = False,
) -> None:
    """Serve memory over HTTP: REST under /v1/memory, events at /v1/memory/events, an OpenAI-compatible
    chat proxy at /v1/chat/completions, /healthz and /metrics. Refuses non-loopback addresses without
    API keys (MEMLANE_API_KEYS)."""
    from memlane.server.listen import bind, check_exposure

    settings = load_settings()
    changes: dict[str, object] = {
        k: v for k, v in {"db": db, "embedder": embedder, "upstream_base_url": upstream}.items() if v
    }
    if worker is not None:
        changes["worker"] = worker
    settings = settings.model_copy(update=changes)
    if is_sqlite_path(settings.db) and not Path(settings.db).expanduser().exists():
        check_folder(settings.db, create_dirs=create_dirs, flag=True)  # before the port is taken
    host = host or settings.server_host
    check_exposure(host, settings)
    sock = bind(host, settings.server_port if port is None else port)  # before the app and its model load
    from memlane.server.run import serve as run

    def ready(url: str) -> None:
        keys = (
            f"{len(settings.api_keys)} API key(s)"
            if settings.api_keys
            else "no API keys: loopback clients only"
        )
        chat = settings.upstream_base_url or "not configured (chat proxy answers 503)"
        typer.echo(f"memlane listening on {url}  (API docs {url}/docs; {keys}; upstream LLM {chat})")

    run(settings, host=host, port=port, log_level=log_level, on_ready=ready, sock=sock)
