"""PostgreSQL's job queue, change log, chat sessions and proposals: each a part of ``PostgresBackend``
over the functions of ``jobs.py``, ``sessions.py`` and ``proposals.py``."""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from datetime import datetime

from psycopg.rows import dict_row

from memlane.model.consent import Proposal, ProposalFilter
from memlane.model.jobs import Change, Job, JobStatus, OpCount, OpEvent
from memlane.model.session import ChatSession, MessageHit, SessionFilter, SessionMessage
from memlane.storage.parts import ChangeLog, JobQueue, ProposalStore, SessionStore
from memlane.storage.postgres import jobs, proposals, sessions
from memlane.storage.postgres.part import PostgresPart


class PostgresJobQueue(PostgresPart, JobQueue):
    # --- jobs, change log, op events, user locks --------------------------------------------
    def claim_job(
        self, worker_id: str, *, lease_seconds: float, now: datetime, kinds: Sequence[str] | None = None
    ) -> Job | None:
        with self._connection() as conn:
            return jobs.claim_job(conn, worker_id, lease_seconds, now, kinds)

    def scheduled_users(self, kind: str) -> set[str]:
        with self._connection() as conn:
            return jobs.scheduled_users(conn, kind)

    def fail_job(self, job_id: str, error: str, *, retry_at: datetime | None) -> None:
        with self._connection() as conn:
            jobs.fail_job(conn, job_id, error, retry_at)

    def list_jobs(
        self, status: JobStatus | None = None, *, user_id: str | None = None, limit: int = 100
    ) -> builtins.list[Job]:
        with self._connection() as conn:
            return jobs.list_jobs(conn, status, user_id, limit)

    def get_jobs(self, user_id: str, job_ids: Sequence[str]) -> builtins.list[Job]:
        with self._connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(
                f"SELECT {jobs.JOB_COLUMNS} FROM jobs WHERE id = ANY(%s) AND user_id = %s",
                (list(job_ids), user_id),
            ).fetchall()
        return [Job.model_validate(r) for r in rows]

    def retry_jobs(
        self, job_ids: Sequence[str] | None = None, *, user_id: str | None = None
    ) -> builtins.list[str]:
        with self._connection() as conn:
            return jobs.retry_jobs(conn, job_ids, user_id)

    def count_jobs(self, user_id: str, kind: str, since: datetime) -> int:
        with self._connection() as conn:
            return jobs.count_jobs(conn, user_id, kind, since)

    def recent_jobs(self, user_id: str, kind: str, *, before: datetime, limit: int) -> builtins.list[Job]:
        with self._connection() as conn:
            return jobs.recent_jobs(conn, user_id, kind, before, limit)


class PostgresChangeLog(PostgresPart, ChangeLog):
    def thread_revision(self, user_id: str, thread_id: str) -> int:
        with self._connection() as conn:
            return jobs.thread_revision(conn, user_id, thread_id)

    def changes_since(
        self, user_id: str, thread_id: str, rev: int, *, limit: int = 50
    ) -> builtins.list[Change]:
        with self._connection() as conn:
            return jobs.changes_since(conn, user_id, thread_id, rev, limit)

    def changes_after(self, user_id: str, seq: int, *, limit: int = 100) -> builtins.list[Change]:
        with self._connection() as conn:
            return jobs.changes_after(conn, user_id, seq, limit)

    def op_events(self, user_id: str, *, limit: int = 100) -> builtins.list[OpEvent]:
        with self._connection() as conn:
            return jobs.op_events(conn, user_id, limit)

    def op_counts(
        self, since: datetime, until: datetime, *, user_id: str | None = None
    ) -> builtins.list[OpCount]:
        with self._connection() as conn:
            return jobs.op_counts(conn, since, until, user_id)


class PostgresSessions(PostgresPart, SessionStore):
    def chat_sessions(
        self, user_id: str, where: SessionFilter, *, limit: int = 100
    ) -> builtins.list[ChatSession]:
        with self._connection() as conn:
            return sessions.chat_sessions(conn, user_id, where, limit)

    def latest_sessions(self, user_id: str, chat_ids: Sequence[str]) -> dict[str, ChatSession]:
        with self._connection() as conn:
            return sessions.latest_sessions(conn, user_id, chat_ids)

    def session_messages(
        self, user_id: str, session_id: str, *, limit: int = 1000
    ) -> builtins.list[SessionMessage]:
        with self._connection() as conn:
            return sessions.session_messages(conn, user_id, session_id, limit)

    def messages_by_id(self, user_id: str, ids: Sequence[str]) -> builtins.list[SessionMessage]:
        with self._connection() as conn:
            return sessions.messages_by_id(conn, user_id, ids)

    def search_messages(
        self,
        user_id: str,
        *,
        text: str,
        vector: Sequence[float] | None,
        embedder: str,
        chat_id: str | None = None,
        limit: int = 20,
    ) -> builtins.list[MessageHit]:
        if not self._db.has_vectors:  # keyword hits only: no pgvector, no message vectors
            vector = None
        with self._connection() as conn:
            return sessions.search_messages(conn, user_id, text, vector, embedder, chat_id, limit)

    def messages_without_vector(
        self, user_id: str, embedder: str, *, limit: int = 256
    ) -> builtins.list[SessionMessage]:
        if not self._db.has_vectors:  # nothing to embed where no vector can be stored
            return []
        with self._connection() as conn:
            return sessions.messages_without_vector(conn, user_id, embedder, limit)

    def put_message_vectors(self, user_id: str, embedder: str, vectors: Mapping[str, Sequence[float]]) -> int:
        if not self._db.has_vectors:
            return 0
        with self._connection() as conn:
            return sessions.put_message_vectors(conn, user_id, embedder, vectors)


class PostgresProposals(PostgresPart, ProposalStore):
    def proposals(self, user_id: str, where: ProposalFilter, *, limit: int = 100) -> builtins.list[Proposal]:
        with self._connection() as conn:
            return proposals.list_proposals(conn, user_id, where, limit)

    def get_proposal(self, user_id: str, proposal_id: str) -> Proposal | None:
        with self._connection() as conn:
            return proposals.get_proposal(conn, user_id, proposal_id)
