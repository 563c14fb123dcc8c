"""The HTTP service: ``create_app`` builds the FastAPI app over one :class:`Memory`.

    uvicorn --factory memlane.server.app:create_app       # or: memlane serve

Routes: REST under ``/v1/memory`` (:mod:`routes_memory`), consent proposals under
``/v1/memory/proposals`` (:mod:`routes_consent`), group-chat sessions under ``/v1/memory/sessions``
(:mod:`routes_sessions`), procedures under ``/v1/memory/procedures`` (:mod:`routes_procedures`), sharing
and ``/v1/global`` (:mod:`routes_sharing`), Server-Sent Events at ``/v1/memory/events`` (:mod:`routes_events`),
the OpenAI-compatible chat proxy at
``/v1/chat/completions`` and ``/v1/models`` (:mod:`routes_chat`), ``/healthz`` and ``/metrics``, the
memory inspector's page at ``/ui`` (:mod:`ui`), and the API reference at ``/docs`` and ``/redoc``
(:mod:`api_docs`).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated

import anyio
from fastapi import Depends, FastAPI
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from memlane import __version__
from memlane.engine.memory import Memory
from memlane.model.config import Settings
from memlane.model.errors import MemlaneError
from memlane.server import (
    api_docs,
    errors,
    openapi,
    routes_chat,
    routes_consent,
    routes_events,
    routes_memory,
    routes_procedures,
    routes_sessions,
    routes_sharing,
    schema_errors,
    ui,
)
from memlane.server.auth import Admin, KeyRing
from memlane.server.body_limit import BodyLimit
from memlane.server.metrics import RequestTimer, ServerMetrics, TimedLLM, instrument_embedder
from memlane.server.schemas import Health
from memlane.server.state import ServerState, get_state
from memlane.server.upstream import Upstream

log = logging.getLogger("memlane.server")
State = Annotated[ServerState, Depends(get_state)]

DESCRIPTION = """Long-term memory for LLM assistants over HTTP.

**Authentication**: `Authorization: Bearer <key>` with a key from `MEMLANE_API_KEYS`. An admin key
(`KEY`) acts for the user named by `X-Memlane-User` (or `X-OpenWebUI-User-Id`); a user key
(`KEY:USER`) acts for `USER` only. Without configured keys the server serves loopback clients only.

**Errors** always look like `{"error": {"type": "...", "message": "...", "details": ...}}`.
"""


def build_memory(settings: Settings, metrics: ServerMetrics) -> Memory:
    """The configured memory, with its LLM timed (``memlane_llm_duration_seconds``)."""
    from memlane.providers.llm.registry import llm_from_settings, summary_llm_from_settings

    summaries = summary_llm_from_settings(settings)
    return Memory(
        settings=settings,
        llm=TimedLLM(llm_from_settings(settings), metrics.llm),
        summary_llm=None if summaries is None else TimedLLM(summaries, metrics.llm),
    )


def _warm_up(memory: Memory) -> None:
    """Load the embedding model and the memory LLM before the first request (the local model takes
    seconds, importing an LLM client about one): the first turn's ``memory.candidate`` stays fast."""
    try:
        memory.embedder.embed_one("memlane warm-up")
        memory.formation.llm  # noqa: B018 - builds the client; no model call
    except MemlaneError as exc:
        log.warning("warm-up failed (requests that need it will fail the same way): %s", exc)


def create_app(memory: Memory | None = None, settings: Settings | None = None) -> FastAPI:
    """The service over ``memory`` (or one opened from ``settings``, closed with the app)."""
    settings = settings or (memory.settings if memory is not None else Settings())
    metrics = ServerMetrics()
    owns = memory is None
    keys = KeyRing(settings.api_keys)  # a bad MEMLANE_API_KEYS fails here, before the model loads
    mem = build_memory(settings, metrics) if memory is None else memory
    instrument_embedder(mem, metrics)
    state = ServerState(mem, settings, keys, metrics)
    if settings.upstream_base_url:
        state.upstream = Upstream(
            settings.upstream_base_url,
            settings.upstream_api_key,
            settings.upstream_model,
            settings.upstream_timeout_s,
            metrics,
        )
    unsubscribe = mem.events.subscribe(metrics.on_event)
    unwatch = metrics.watch_formation(mem)
    metrics.watch_queue(mem)
    metrics.watch_totals(mem, settings.metrics_top_users)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await anyio.to_thread.run_sync(_warm_up, mem)
        app.openapi()  # built once now, not on the first request (known_query reads it)
        if settings.worker:  # picks up turns left unfinished by an earlier run, and runs the periodic tasks
            mem.start_worker(tasks=True)
        try:
            yield
        finally:
            if state.upstream is not None:
                await state.upstream.aclose()
            unsubscribe()
            unwatch()
            if owns:
                await anyio.to_thread.run_sync(mem.close)

    app = FastAPI(
        title="memlane",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        dependencies=[Depends(openapi.known_query)],
        docs_url=None,
        redoc_url=None,
    )
    app.state.memlane = state
    errors.install(app)
    schema_errors.install(app)
    openapi.install(app, settings)
    app.add_middleware(BodyLimit, max_bytes=settings.server_max_body_bytes)
    app.add_middleware(RequestTimer, metrics=metrics)
    app.include_router(routes_events.router)  # before /v1/memory/{memory_id}
    app.include_router(routes_consent.router)  # before /v1/memory/{memory_id} too
    app.include_router(routes_sessions.router)  # and this
    app.include_router(routes_procedures.router)
    app.include_router(routes_memory.router)
    app.include_router(routes_sharing.router)
    app.include_router(routes_chat.router)
    ui.install(app)  # the memory inspector at /ui
    api_docs.install(app)  # /docs and /redoc, with their assets from a package (no CDN)

    @app.get(
        "/healthz",
        response_model=Health,
        tags=["service"],
        summary="Liveness and what is configured",
        responses=errors.error_responses(503),
    )
    def healthz(st: State) -> Health:
        st.memory.backend.schema_version()  # the store answers (BackendError -> 503)
        return Health(
            version=__version__,
            backend=type(st.memory.backend).__name__.removesuffix("Backend").lower(),
            embedder=st.memory.embedder.identity,
            llm=st.settings.llm,
            upstream=st.upstream.base_url if st.upstream else None,
            notices=st.memory.backend.notices(),
        )

    @app.get(
        "/metrics",
        tags=["service"],
        summary="Prometheus metrics (admin key)",
        response_class=Response,
        responses={
            200: {
                "description": "Prometheus text format",
                "content": {CONTENT_TYPE_LATEST.split(";")[0]: {"schema": {"type": "string"}}},
            },
            **errors.error_responses(401, 403),
        },
    )
    def prometheus(_: Admin, st: State) -> Response:
        return Response(generate_latest(st.metrics.registry), media_type=CONTENT_TYPE_LATEST)

    return app
