"""``AsyncMemory``: the same engine for asyncio code. Each call runs the sync implementation in a
worker thread, so there is one code path for both (DESIGN: never a second copy of the logic). Every
public method of :class:`Memory` has a twin here, made by :class:`~memlane.engine.twin.Twin` with the
sync method's own parameter and return types."""

from __future__ import annotations

import asyncio
import builtins
from typing import Any

from memlane.engine.jobs import Jobs
from memlane.engine.memory import Memory
from memlane.engine.procedures import Procedures
from memlane.engine.proposals import Proposals
from memlane.engine.sessions import Sessions
from memlane.engine.sharing import Sharing
from memlane.engine.twin import Twin

RENAMED = {"close": "aclose"}  # sync name -> its twin's name, where asyncio has a convention


class AsyncProposals:
    """``await amem.proposals.accept(...)``: the twins of :class:`Proposals`."""

    def __init__(self, sync: Proposals) -> None:
        self.sync = sync

    __call__ = Twin(Proposals.__call__)  # the old ``await amem.proposals(...)``, warning
    list = Twin(Proposals.list)
    get = Twin(Proposals.get)
    accept = Twin(Proposals.accept)
    reject = Twin(Proposals.reject)


class AsyncSessions:
    """``await amem.sessions.list(...)``: the twins of :class:`Sessions`."""

    def __init__(self, sync: Sessions) -> None:
        self.sync = sync

    __call__ = Twin(Sessions.__call__)  # the old ``await amem.sessions(...)``, warning
    record_messages = Twin(Sessions.record_messages)
    record_message = Twin(Sessions.record_message)
    list = Twin(Sessions.list)
    get = Twin(Sessions.get)
    messages = Twin(Sessions.messages)
    latest = Twin(Sessions.latest)
    delete = Twin(Sessions.delete)


class AsyncJobs:
    """``await amem.jobs.outcomes(...)``: the twins of :class:`Jobs`."""

    def __init__(self, sync: Jobs) -> None:
        self.sync = sync

    __call__ = Twin(Jobs.__call__)  # the old ``await amem.jobs(...)``, warning
    list = Twin(Jobs.list)
    pending = Twin(Jobs.pending)
    outcomes = Twin(Jobs.outcomes)
    retry = Twin(Jobs.retry)
    retry_many = Twin(Jobs.retry_many)


class AsyncSharing:
    """``await amem.sharing.share(...)``: the twins of :class:`Sharing`."""

    def __init__(self, sync: Sharing) -> None:
        self.sync = sync

    share = Twin(Sharing.share)
    unshare = Twin(Sharing.unshare)
    shared_with = Twin(Sharing.shared_with)
    put_global = Twin(Sharing.put_global)
    list_global = Twin(Sharing.list_global)
    purge_global = Twin(Sharing.purge_global)


class AsyncProcedures:
    """``await amem.procedures.add(...)``: the twins of :class:`Procedures`."""

    def __init__(self, sync: Procedures) -> None:
        self.sync = sync

    __call__ = Twin(Procedures.__call__)  # the old ``await amem.procedures(...)``, warning
    add = Twin(Procedures.add)
    get = Twin(Procedures.get)
    list = Twin(Procedures.list)


class AsyncMemory:
    """``await mem.put(...)``, ``await mem.search(...)`` etc.; arguments as in :class:`Memory`."""

    def __init__(self, *args: Any, memory: Memory | None = None, **kwargs: Any) -> None:
        self.sync = memory or Memory(*args, **kwargs)
        self.proposals = AsyncProposals(self.sync.proposals)
        self.procedures = AsyncProcedures(self.sync.procedures)
        self.sharing = AsyncSharing(self.sync.sharing)
        self.jobs = AsyncJobs(self.sync.jobs)
        self.sessions = AsyncSessions(self.sync.sessions)

    accept_proposal = Twin(Memory.accept_proposal)
    add = Twin(Memory.add)
    add_fact_jobs = Twin(Memory.add_fact_jobs)
    add_facts = Twin(Memory.add_facts)
    add_procedure = Twin(Memory.add_procedure)
    add_turn = Twin(Memory.add_turn)
    backfill_sessions = Twin(Memory.backfill_sessions)
    build_record = Twin(Memory.build_record)
    capture_turn = Twin(Memory.capture_turn)
    compact = Twin(Memory.compact)
    context = Twin(Memory.context)
    delete = Twin(Memory.delete)
    delete_session = Twin(Memory.delete_session)
    delete_user = Twin(Memory.delete_user)
    embed_text = Twin(Memory.embed_text)
    enqueue_turn = Twin(Memory.enqueue_turn)
    get = Twin(Memory.get)
    history = Twin(Memory.history)
    import_rows = Twin(Memory.import_rows)
    latest_session = Twin(Memory.latest_session)
    link = Twin(Memory.link)
    list = Twin(Memory.list)
    list_global = Twin(Memory.list_global)
    op_counts = Twin(Memory.op_counts)
    outcomes = Twin(Memory.outcomes)
    pending = Twin(Memory.pending)
    procedure = Twin(Memory.procedure)
    process_jobs = Twin(Memory.process_jobs)
    proposal = Twin(Memory.proposal)
    purge = Twin(Memory.purge)
    purge_global = Twin(Memory.purge_global)
    put = Twin(Memory.put)
    put_global = Twin(Memory.put_global)
    put_many = Twin(Memory.put_many)
    commit_mutation = Twin(Memory.commit_mutation)
    query = Twin(Memory.query)
    record_message = Twin(Memory.record_message)
    record_messages = Twin(Memory.record_messages)
    reembed = Twin(Memory.reembed)
    reject_proposal = Twin(Memory.reject_proposal)
    restore = Twin(Memory.restore)
    retype = Twin(Memory.retype)
    misfiled = Twin(Memory.misfiled)
    retry_job = Twin(Memory.retry_job)
    retry_jobs = Twin(Memory.retry_jobs)
    run_insights = Twin(Memory.run_insights)
    run_tasks = Twin(Memory.run_tasks)
    search = Twin(Memory.search)
    session = Twin(Memory.session)
    session_messages = Twin(Memory.session_messages)
    share = Twin(Memory.share)
    shared_with = Twin(Memory.shared_with)
    start_worker = Twin(Memory.start_worker)
    stop_worker = Twin(Memory.stop_worker)
    unshare = Twin(Memory.unshare)
    update = Twin(Memory.update)
    users = Twin(Memory.users)
    totals = Twin(Memory.totals)

    aclose = Twin(Memory.close)

    async def export_user(self, user_id: str) -> builtins.list[dict[str, Any]]:
        """The rows of :meth:`Memory.export_user`, collected in the worker thread (the iterator reads
        the store lazily, so it must not be handed across threads)."""
        return await asyncio.to_thread(lambda: builtins.list(self.sync.export_user(user_id)))
