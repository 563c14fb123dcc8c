"""Where the service listens: loopback unless API keys are set, and the port bound before anything
slow loads (imports nothing heavy, so ``memlane serve`` fails fast)."""

from __future__ import annotations

import errno
import ipaddress
import socket

from memlane.model.config import Settings
from memlane.model.errors import ValidationError


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


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound before anything slow loads: a port in use is one clear error at once,
    not a traceback after the embedding model has loaded."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as exc:
        raise ValidationError(f"cannot listen on {host}: {exc.strerror or exc}") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: restart while TIME_WAIT
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ValidationError(
                f"port {port} on {host} is already in use (another memlane serve?); stop it "
                "or pick another port with --port (or MEMLANE_PORT)"
            ) from None
        raise ValidationError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock
