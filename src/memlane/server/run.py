"""Run the service with uvicorn, refusing to listen beyond loopback without API keys."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable

import uvicorn

from memlane.model.config import Settings
from memlane.model.errors import ValidationError
from memlane.server.app import create_app


def is_loopback_host(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_exposure(host: str, settings: Settings) -> None:
    if not is_loopback_host(host) and not settings.api_keys:
        raise ValidationError(
            f"refusing to listen on {host}, beyond loopback, without API keys: set MEMLANE_API_KEYS "
            "(KEY for an admin key, KEY:USER for a key bound to one user), or listen on 127.0.0.1"
        )


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


def serve(settings: Settings, *, host: str | None = None, port: int | None = None, log_level: str = "info",
          on_ready: Callable[[str], None] = print) -> None:
    host = host or settings.server_host
    port = settings.server_port if port is None else port
    check_exposure(host, settings)
    app = create_app(settings=settings)
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, lifespan="on",
                            timeout_graceful_shutdown=5, proxy_headers=False)
    Server(config, on_ready).run()
