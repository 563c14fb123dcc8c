"""``AsyncMemory``: the same engine for asyncio code. Each call runs the sync implementation in a
worker thread, so there is one code path for both (DESIGN: never a second copy of the logic)."""

from __future__ import annotations

import asyncio
import builtins
import functools
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from memlane.engine.memory import Memory
from memlane.model.candidate import Candidate
from memlane.model.consent import Proposal
from memlane.model.jobs import Outcome, Pending
from memlane.model.link import MemoryLink
from memlane.model.record import HistoryEntry, MemoryRecord, Relation, SearchHit
from memlane.model.retrieval import ContextBlock, QueryResult
from memlane.model.session import ChatSession, SessionMessage

R = TypeVar("R")


class AsyncMemory:
    """``await mem.put(...)``, ``await mem.search(...)`` etc.; arguments as in :class:`Memory`."""

    def __init__(self, *args: Any, memory: Memory | None = None, **kwargs: Any) -> None:
        self.sync = memory or Memory(*args, **kwargs)

    async def _run(self, fn: Callable[..., R], *args: Any, **kwargs: Any) -> R:
        return await asyncio.to_thread(functools.partial(fn, *args, **kwargs))

    async def add(self, messages: Any, **kw: Any) -> builtins.list[Candidate]:
        return await self._run(self.sync.add, messages, **kw)

    async def add_facts(self, facts: Any, **kw: Any) -> builtins.list[Candidate]:
        return await self._run(self.sync.add_facts, facts, **kw)

    async def add_fact_jobs(
        self, facts: Any, **kw: Any
    ) -> tuple[builtins.list[str], builtins.list[Candidate]]:
        return await self._run(self.sync.add_fact_jobs, facts, **kw)

    async def context(self, query: str, **kw: Any) -> ContextBlock:
        return await self._run(self.sync.context, query, **kw)

    async def query(self, query: str, **kw: Any) -> QueryResult:
        return await self._run(self.sync.query, query, **kw)

    async def put(self, summary: str, **kw: Any) -> MemoryRecord:
        return await self._run(self.sync.put, summary, **kw)

    async def put_many(self, items: Any, **kw: Any) -> builtins.list[MemoryRecord]:
        return await self._run(self.sync.put_many, items, **kw)

    async def get(self, memory_id: str, **kw: Any) -> MemoryRecord:
        return await self._run(self.sync.get, memory_id, **kw)

    async def search(self, query: str, **kw: Any) -> builtins.list[SearchHit]:
        return await self._run(self.sync.search, query, **kw)

    async def list(self, **kw: Any) -> builtins.list[MemoryRecord]:
        return await self._run(self.sync.list, **kw)

    async def update(self, memory_id: str, **kw: Any) -> MemoryRecord:
        return await self._run(self.sync.update, memory_id, **kw)

    async def delete(self, memory_id: str, **kw: Any) -> MemoryRecord:
        return await self._run(self.sync.delete, memory_id, **kw)

    async def restore(self, memory_id: str, **kw: Any) -> MemoryRecord:
        return await self._run(self.sync.restore, memory_id, **kw)

    async def purge(self, memory_id: str, **kw: Any) -> None:
        return await self._run(self.sync.purge, memory_id, **kw)

    async def link(self, from_id: str, to_id: str, **kw: Any) -> Relation:
        return await self._run(self.sync.link, from_id, to_id, **kw)

    async def share(self, memory_id: str, **kw: Any) -> builtins.list[MemoryLink]:
        return await self._run(self.sync.share, memory_id, **kw)

    async def unshare(self, memory_id: str, **kw: Any) -> builtins.list[MemoryLink]:
        return await self._run(self.sync.unshare, memory_id, **kw)

    async def shared_with(self, memory_id: str, **kw: Any) -> builtins.list[MemoryLink]:
        return await self._run(self.sync.shared_with, memory_id, **kw)

    async def put_global(self, summary: str, **kw: Any) -> MemoryRecord:
        return await self._run(self.sync.put_global, summary, **kw)

    async def list_global(self, **kw: Any) -> builtins.list[MemoryRecord]:
        return await self._run(self.sync.list_global, **kw)

    async def purge_global(self, memory_id: str, **kw: Any) -> None:
        return await self._run(self.sync.purge_global, memory_id, **kw)

    async def add_turn(self, messages: Any, **kw: Any) -> tuple[str, builtins.list[Candidate]]:
        return await self._run(self.sync.add_turn, messages, **kw)

    async def enqueue_turn(self, messages: Any, **kw: Any) -> str:
        return await self._run(self.sync.enqueue_turn, messages, **kw)

    async def pending(self, job_ids: Any, **kw: Any) -> Pending | None:
        return await self._run(self.sync.pending, job_ids, **kw)

    async def outcomes(self, job_ids: Any, **kw: Any) -> builtins.list[Outcome]:
        return await self._run(self.sync.outcomes, job_ids, **kw)

    async def history(self, memory_id: str, **kw: Any) -> builtins.list[HistoryEntry]:
        return await self._run(self.sync.history, memory_id, **kw)

    async def proposals(self, **kw: Any) -> builtins.list[Proposal]:
        return await self._run(self.sync.proposals, **kw)

    async def accept_proposal(self, proposal_id: str, **kw: Any) -> Proposal:
        return await self._run(self.sync.accept_proposal, proposal_id, **kw)

    async def reject_proposal(self, proposal_id: str, **kw: Any) -> Proposal:
        return await self._run(self.sync.reject_proposal, proposal_id, **kw)

    async def record_messages(self, messages: Any, **kw: Any) -> builtins.list[SessionMessage]:
        return await self._run(self.sync.record_messages, messages, **kw)

    async def record_message(self, text: str, **kw: Any) -> SessionMessage:
        return await self._run(self.sync.record_message, text, **kw)

    async def sessions(self, **kw: Any) -> builtins.list[ChatSession]:
        return await self._run(self.sync.sessions, **kw)

    async def session_messages(self, session_id: str, **kw: Any) -> builtins.list[SessionMessage]:
        return await self._run(self.sync.session_messages, session_id, **kw)

    async def session(self, session_id: str, **kw: Any) -> ChatSession:
        return await self._run(self.sync.session, session_id, **kw)

    async def latest_session(self, **kw: Any) -> ChatSession | None:
        return await self._run(self.sync.latest_session, **kw)

    async def delete_session(self, session_id: str, **kw: Any) -> ChatSession:
        return await self._run(self.sync.delete_session, session_id, **kw)

    async def export_user(self, user_id: str) -> builtins.list[dict[str, Any]]:
        def collect() -> builtins.list[dict[str, Any]]:
            rows: Iterator[dict[str, Any]] = self.sync.export_user(user_id)
            return list(rows)

        return await self._run(collect)

    async def delete_user(self, user_id: str) -> int:
        return await self._run(self.sync.delete_user, user_id)

    async def compact(self) -> dict[str, int]:
        return await self._run(self.sync.compact)

    async def aclose(self) -> None:
        await self._run(self.sync.close)
