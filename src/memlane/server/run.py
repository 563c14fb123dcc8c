"""Run the service with uvicorn on a socket bound first (:mod:`memlane.server.listen`)."""

from __future__ import annotations

import socket
from collections.abc import Callable

import uvicorn

from memlane.model.config import Settings
from memlane.server.app import create_app
from memlane.server.listen import bind, check_exposure, is_loopback_host

__all__ = ["Server", "bind", "check_exposure", "is_loopback_host", "serve", "where"]


def where(sockets: list[socket.socket]) -> str:
    host, port = sockets[0].getsockname()[:2]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}"


class Server(uvicorn.Server):
    """uvicorn's server, telling ``on_ready`` the address it actually bound (port 0 picks one)."""

    def __init__(self, config: uvicorn.Config, on_ready: Callable[[str], None]) -> None:
        super().__init__(config)
        self.on_ready = on_ready
        self.url: str | None = None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started and self.servers:
            self.url = where([s for srv in self.servers for s in srv.sockets])
            self.on_ready(self.url)


def serve(
    settings: Settings,
    *,
    host: str | None = None,
    port: int | None = None,
    log_level: str = "info",
    on_ready: Callable[[str], None] = print,
    sock: socket.socket | None = None,
) -> None:
    """Bind the port (unless ``sock`` is bound already), then load the memory (and its model) and serve until stopped."""
    host = host or settings.server_host
    port = settings.server_port if port is None else port
    check_exposure(host, settings)
    sock = sock or bind(host, port)
    try:
        app = create_app(settings=settings)
        config = uvicorn.Config(
            app,
            host=host,
            port=port,
            log_level=log_level,
            lifespan="on",
            timeout_graceful_shutdown=5,
            proxy_headers=False,
        )
        Server(config, on_ready).run(sockets=[sock])
    finally:
        sock.close()
