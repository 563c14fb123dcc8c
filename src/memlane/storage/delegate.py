"""A backend that serves the whole contract from another one (``inner``); a subclass overrides the
part it serves itself (:class:`~memlane.storage.s3vectors.channel.S3VectorsChannel`: the vectors)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from memlane.storage.base import Backend


class DelegatingBackend(Backend):
    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.name = inner.name
        self.local_reads = inner.local_reads

    @contextmanager
    def user_lock(self, user_id: str) -> Iterator[None]:
        with self.inner.user_lock(user_id):
            yield

    # Every method of the contract, forwarded as it is (signatures and documentation: base.py).
    def migrate(self, *a: Any, **k: Any) -> Any:
        return self.inner.migrate(*a, **k)

    def schema_version(self, *a: Any, **k: Any) -> Any:
        return self.inner.schema_version(*a, **k)

    def close(self, *a: Any, **k: Any) -> Any:
        return self.inner.close(*a, **k)

    def compact(self, *a: Any, **k: Any) -> Any:
        return self.inner.compact(*a, **k)

    def get_meta(self, *a: Any, **k: Any) -> Any:
        return self.inner.get_meta(*a, **k)

    def set_meta(self, *a: Any, **k: Any) -> Any:
        return self.inner.set_meta(*a, **k)

    def create_vector_index(self, *a: Any, **k: Any) -> Any:
        return self.inner.create_vector_index(*a, **k)

    def bind_embedder(self, *a: Any, **k: Any) -> Any:
        return self.inner.bind_embedder(*a, **k)

    def apply(self, *a: Any, **k: Any) -> Any:
        return self.inner.apply(*a, **k)

    def apply_planned(self, *a: Any, **k: Any) -> Any:
        return self.inner.apply_planned(*a, **k)

    def get(self, *a: Any, **k: Any) -> Any:
        return self.inner.get(*a, **k)

    def get_many(self, *a: Any, **k: Any) -> Any:
        return self.inner.get_many(*a, **k)

    def list(self, *a: Any, **k: Any) -> Any:
        return self.inner.list(*a, **k)

    def count(self, *a: Any, **k: Any) -> Any:
        return self.inner.count(*a, **k)

    def vector_search(self, *a: Any, **k: Any) -> Any:
        return self.inner.vector_search(*a, **k)

    def vector_ids(self, *a: Any, **k: Any) -> Any:
        return self.inner.vector_ids(*a, **k)

    def keyword_search(self, *a: Any, **k: Any) -> Any:
        return self.inner.keyword_search(*a, **k)

    def keyword_ids(self, *a: Any, **k: Any) -> Any:
        return self.inner.keyword_ids(*a, **k)

    def history(self, *a: Any, **k: Any) -> Any:
        return self.inner.history(*a, **k)

    def relations(self, *a: Any, **k: Any) -> Any:
        return self.inner.relations(*a, **k)

    def vectors(self, *a: Any, **k: Any) -> Any:
        return self.inner.vectors(*a, **k)

    def links(self, *a: Any, **k: Any) -> Any:
        return self.inner.links(*a, **k)

    def list_users(self, *a: Any, **k: Any) -> Any:
        return self.inner.list_users(*a, **k)

    def proposals(self, *a: Any, **k: Any) -> Any:
        return self.inner.proposals(*a, **k)

    def get_proposal(self, *a: Any, **k: Any) -> Any:
        return self.inner.get_proposal(*a, **k)

    def chat_sessions(self, *a: Any, **k: Any) -> Any:
        return self.inner.chat_sessions(*a, **k)

    def latest_sessions(self, *a: Any, **k: Any) -> Any:
        return self.inner.latest_sessions(*a, **k)

    def session_messages(self, *a: Any, **k: Any) -> Any:
        return self.inner.session_messages(*a, **k)

    def messages_by_id(self, *a: Any, **k: Any) -> Any:
        return self.inner.messages_by_id(*a, **k)

    def search_messages(self, *a: Any, **k: Any) -> Any:
        return self.inner.search_messages(*a, **k)

    def messages_without_vector(self, *a: Any, **k: Any) -> Any:
        return self.inner.messages_without_vector(*a, **k)

    def put_message_vectors(self, *a: Any, **k: Any) -> Any:
        return self.inner.put_message_vectors(*a, **k)

    def delete_user(self, *a: Any, **k: Any) -> Any:
        return self.inner.delete_user(*a, **k)

    def claim_job(self, *a: Any, **k: Any) -> Any:
        return self.inner.claim_job(*a, **k)

    def scheduled_users(self, *a: Any, **k: Any) -> Any:
        return self.inner.scheduled_users(*a, **k)

    def checked_pairs(self, *a: Any, **k: Any) -> Any:
        return self.inner.checked_pairs(*a, **k)

    def record_access(self, *a: Any, **k: Any) -> Any:
        return self.inner.record_access(*a, **k)

    def fail_job(self, *a: Any, **k: Any) -> Any:
        return self.inner.fail_job(*a, **k)

    def list_jobs(self, *a: Any, **k: Any) -> Any:
        return self.inner.list_jobs(*a, **k)

    def get_jobs(self, *a: Any, **k: Any) -> Any:
        return self.inner.get_jobs(*a, **k)

    def retry_jobs(self, *a: Any, **k: Any) -> Any:
        return self.inner.retry_jobs(*a, **k)

    def count_jobs(self, *a: Any, **k: Any) -> Any:
        return self.inner.count_jobs(*a, **k)

    def recent_jobs(self, *a: Any, **k: Any) -> Any:
        return self.inner.recent_jobs(*a, **k)

    def thread_revision(self, *a: Any, **k: Any) -> Any:
        return self.inner.thread_revision(*a, **k)

    def changes_since(self, *a: Any, **k: Any) -> Any:
        return self.inner.changes_since(*a, **k)

    def changes_after(self, *a: Any, **k: Any) -> Any:
        return self.inner.changes_after(*a, **k)

    def op_events(self, *a: Any, **k: Any) -> Any:
        return self.inner.op_events(*a, **k)

    def op_counts(self, *a: Any, **k: Any) -> Any:
        return self.inner.op_counts(*a, **k)
