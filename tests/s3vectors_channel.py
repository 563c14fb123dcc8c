"""The S3 Vectors vector channel for tests, on moto plus the query emulation (``s3vectors_fake.py``).

:func:`drain_sync` does what the worker does with sync jobs (claim, ``run_job``, complete under the
lease). :class:`SyncedChannel` drains after every write, as if a worker had run before the next read:
the contract suite's ``s3vectors`` parameter reads what S3 Vectors holds; the plain channel
(``s3vectors-pending``) never syncs, so every search is answered for memories whose vector is pending.
"""

from __future__ import annotations

from typing import Any

from memlane.model.record import utcnow
from memlane.storage.base import Backend, WriteBatch
from memlane.storage.s3vectors.channel import S3VectorsChannel
from memlane.storage.s3vectors.index import S3VectorsIndex
from memlane.storage.s3vectors.sync import SYNC

BUCKET, INDEX = "memlane-test", "memlane-vectors"
WORKER = "test-worker"


def drain_sync(backend: Backend) -> int:
    """Run every due sync job as the worker would; returns how many ran."""
    ran = 0
    while job := backend.jobs.claim_job(WORKER, lease_seconds=60, now=utcnow(), kinds=[SYNC]):
        backend.apply(WriteBatch(complete_job=job.id, job_owner=WORKER, job_result=backend.run_job(job)))
        ran += 1
    return ran


class SyncedChannel(S3VectorsChannel):
    def apply(self, batch: WriteBatch) -> None:
        super().apply(batch)
        if not batch.complete_job:
            drain_sync(self)

    def apply_planned(self, *args: Any, **kwargs: Any) -> Any:
        committed = super().apply_planned(*args, **kwargs)
        drain_sync(self)
        return committed

    def delete_user(self, user_id: str) -> int:
        removed = super().delete_user(user_id)
        drain_sync(self)
        return removed


def open_channel(inner: Backend, client: Any, *, synced: bool = True, index: str = INDEX) -> S3VectorsChannel:
    kind = SyncedChannel if synced else S3VectorsChannel
    return kind(inner, S3VectorsIndex(client, BUCKET, index))


def stored(client: Any, index: str = INDEX) -> dict[str, dict[str, Any]]:
    """What moto holds in the index, by vector key."""
    listed = client.list_vectors(
        vectorBucketName=BUCKET, indexName=index, returnData=True, returnMetadata=True
    )
    return {v["key"]: v for v in listed["vectors"]}
