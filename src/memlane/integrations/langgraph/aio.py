"""``AsyncMemlaneStore``: the store for asyncio graphs, batching concurrent calls as LangGraph's
``AsyncBatchedBaseStore`` does (ops queued in one event-loop tick run as one ``batch``)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from langgraph.store.base import Op, Result
from langgraph.store.base.batch import AsyncBatchedBaseStore

from memlane.integrations.langgraph.store import MemlaneStore


class AsyncMemlaneStore(AsyncBatchedBaseStore):
    """Wraps a :class:`MemlaneStore`; create it inside the event loop that will use it. Its sync
    methods work from other threads (and refuse to block the loop's own thread)."""

    supports_ttl = True

    def __init__(self, store: MemlaneStore) -> None:
        super().__init__()
        self.store = store
        self.index_config = store.index_config
        self.ttl_config = store.ttl_config  # the same dict: tuning one tunes both

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.store.batch, list(ops))

    async def setup(self) -> None:
        await asyncio.to_thread(self.store.setup)

    async def sweep_ttl(self) -> int:
        return await asyncio.to_thread(self.store.sweep_ttl)

    async def start_ttl_sweeper(self, sweep_interval_minutes: float | None = None) -> None:
        self.store.start_ttl_sweeper(sweep_interval_minutes)

    async def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        return await asyncio.to_thread(self.store.stop_ttl_sweeper, timeout)

    async def aclose(self) -> None:
        await asyncio.to_thread(self.store.close)
