"""What the routes share: the memory, settings, keys, metrics, the upstream client."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from fastapi import Request

from memlane.engine.memory import Memory
from memlane.model.config import Settings
from memlane.server.auth import KeyRing
from memlane.server.errors import ApiError
from memlane.server.metrics import ServerMetrics
from memlane.server.upstream import Upstream


@dataclass
class ServerState:
    memory: Memory
    settings: Settings
    keys: KeyRing
    metrics: ServerMetrics
    upstream: Upstream | None = None
    revs: OrderedDict[tuple[str, str], int] = field(default_factory=OrderedDict)
    revs_lock: threading.Lock = field(default_factory=threading.Lock)
    max_revs: int = 10_000

    def last_rev(self, user: str, thread: str) -> int | None:
        """The revision of the thread's memory the proxy last showed (for the delta header)."""
        with self.revs_lock:
            return self.revs.get((user, thread))

    def saw_rev(self, user: str, thread: str, rev: int) -> None:
        with self.revs_lock:
            self.revs[(user, thread)] = rev
            self.revs.move_to_end((user, thread))
            while len(self.revs) > self.max_revs:
                self.revs.popitem(last=False)

    def require_upstream(self) -> Upstream:
        if self.upstream is None:
            raise ApiError(
                503,
                "upstream_not_configured",
                "no upstream LLM is configured for the chat proxy; set MEMLANE_UPSTREAM_BASE_URL "
                "(and MEMLANE_UPSTREAM_API_KEY, MEMLANE_UPSTREAM_MODEL)",
            )
        return self.upstream


async def get_state(request: Request) -> ServerState:
    state: ServerState = request.app.state.memlane
    return state
