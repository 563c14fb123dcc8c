"""Contract for background jobs, the change log and op events, on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from memlane.model.jobs import Change, Job, JobStatus, OpEvent
from memlane.model.record import utcnow
from memlane.storage.base import Backend, WriteBatch

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def job(jid: str, user: str = "u1", created: datetime = NOW, kind: str = "candidate", **kw: object) -> Job:
    return Job(
        id=jid,
        user_id=user,
        kind=kind,
        payload={"n": jid},
        run_after=created,
        created_at=created,
        updated_at=created,
        **kw,
    )  # type: ignore[arg-type]


def test_jobs_are_claimed_oldest_first_once_and_leased(backend: Backend) -> None:
    backend.apply(WriteBatch(jobs=[job("b", user="u2", created=NOW + timedelta(seconds=1)), job("a")]))
    first = backend.jobs.claim_job("w1", lease_seconds=30, now=NOW + timedelta(minutes=1))
    assert first is not None and first.id == "a" and first.attempts == 1 and first.status is JobStatus.RUNNING
    second = backend.jobs.claim_job("w2", lease_seconds=30, now=NOW + timedelta(minutes=1))
    assert second is not None and second.id == "b"
    assert backend.jobs.claim_job("w3", lease_seconds=30, now=NOW + timedelta(minutes=1)) is None
    # a worker that died: its lease runs out and the job is claimed again
    again = backend.jobs.claim_job("w3", lease_seconds=30, now=NOW + timedelta(minutes=5))
    assert again is not None and again.id in {"a", "b"} and again.attempts == 2


def test_a_users_candidate_waits_while_another_of_theirs_runs(backend: Backend) -> None:
    """A worker takes another user's candidate rather than one it would only wait for at the user lock
    (benchmarks/pg_scale_bench.py); other kinds, and a lease that ran out, are not held back."""
    t = [NOW + timedelta(seconds=i) for i in range(4)]
    jobs = [
        job("a1", created=t[0]),
        job("a2", created=t[1]),
        job("a3", created=t[2], kind="turn"),  # not a candidate: never held back
        job("b1", user="u2", created=t[3]),
    ]
    backend.apply(WriteBatch(jobs=jobs))
    at = NOW + timedelta(minutes=1)
    claim = backend.jobs.claim_job
    claimed = [claim(w, lease_seconds=30, now=at) for w in ("w1", "w2", "w3", "w4")]
    assert [j and j.id for j in claimed] == ["a1", "a3", "b1", None]  # a2 waits: u1's a1 is running
    retried = claim("w4", lease_seconds=30, now=at + timedelta(minutes=1))  # w1 died: a1 is first again
    assert retried is not None and retried.id == "a1" and retried.attempts == 2
    backend.apply(WriteBatch(complete_job="a1"))
    after = claim("w4", lease_seconds=30, now=at + timedelta(minutes=1))
    assert after is not None and after.id == "a2"


def test_completing_a_job_is_atomic_with_its_writes(backend: Backend) -> None:
    backend.apply(WriteBatch(jobs=[job("j")]))
    claimed = backend.jobs.claim_job("w", lease_seconds=30, now=NOW)
    assert claimed is not None
    backend.apply(WriteBatch(complete_job="j"))
    assert [j.status for j in backend.jobs.list_jobs()] == [JobStatus.DONE]
    assert backend.jobs.claim_job("w", lease_seconds=30, now=NOW + timedelta(hours=1)) is None


def test_failed_jobs_retry_later_then_park_and_can_be_retried(backend: Backend) -> None:
    backend.apply(WriteBatch(jobs=[job("j")]))
    assert backend.jobs.claim_job("w", lease_seconds=30, now=NOW) is not None
    backend.jobs.fail_job("j", "boom", retry_at=NOW + timedelta(seconds=10))
    assert backend.jobs.claim_job("w", lease_seconds=30, now=NOW + timedelta(seconds=5)) is None
    assert backend.jobs.claim_job("w", lease_seconds=30, now=NOW + timedelta(seconds=11)) is not None
    backend.jobs.fail_job("j", "boom again", retry_at=None)
    parked = backend.jobs.list_jobs(JobStatus.PARKED)
    assert [(j.id, j.last_error) for j in parked] == [("j", "boom again")]
    assert backend.jobs.claim_job("w", lease_seconds=30, now=NOW + timedelta(days=1)) is None
    assert backend.jobs.retry_job("j") and not backend.jobs.retry_job("j")
    assert backend.jobs.list_jobs(JobStatus.PENDING)[0].attempts == 0


def test_concurrent_claims_never_hand_out_a_job_twice(backend: Backend) -> None:
    # one user each: a user's candidates are claimed one at a time (the test above)
    backend.apply(
        WriteBatch(jobs=[job(f"j{i}", user=f"u{i}", created=NOW + timedelta(seconds=i)) for i in range(40)])
    )
    claimed: list[str] = []
    lock = threading.Lock()

    def work(name: str) -> None:
        while (
            j := backend.jobs.claim_job(name, lease_seconds=60, now=NOW + timedelta(minutes=1))
        ) is not None:
            with lock:
                claimed.append(j.id)

    threads = [threading.Thread(target=work, args=(f"w{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(claimed) == sorted(f"j{i}" for i in range(40))


def test_change_log_revisions_are_per_thread_and_monotonic(backend: Backend) -> None:
    def change(cid: str, thread: str) -> Change:
        return Change(id=cid, user_id="u1", thread_id=thread, memory_id="m", event="created", at=NOW)

    backend.apply(WriteBatch(changes=[change("c1", "t1"), change("c2", "t1"), change("c3", "t2")]))
    backend.apply(WriteBatch(changes=[change("c4", "t1")]))
    assert (
        backend.changes.thread_revision("u1", "t1") == 3 and backend.changes.thread_revision("u1", "t2") == 1
    )
    assert [c.rev for c in backend.changes.changes_since("u1", "t1", 1)] == [2, 3]
    assert backend.changes.changes_since("u2", "t1", 0) == []
    assert backend.jobs.count_jobs("u1", "candidate", NOW) == 0


def test_recent_jobs_are_the_users_newest_of_a_kind(backend: Backend) -> None:
    later = [job(f"c{i}", created=NOW + timedelta(seconds=i)) for i in range(4)]
    same_time = [job("s1", created=NOW + timedelta(seconds=9)), job("s2", created=NOW + timedelta(seconds=9))]
    others = [
        job("other-user", user="u2", created=NOW + timedelta(minutes=1)),
        Job(id="turn", user_id="u1", kind="turn", created_at=NOW + timedelta(minutes=1)),
    ]
    backend.apply(WriteBatch(jobs=[*later, *same_time, *others]))
    end = NOW + timedelta(hours=1)
    assert [j.id for j in backend.jobs.recent_jobs("u1", "candidate", before=end, limit=4)] == [
        "s2",
        "s1",
        "c3",
        "c2",
    ]
    assert [
        j.id for j in backend.jobs.recent_jobs("u1", "candidate", before=later[3].created_at, limit=9)
    ] == [
        "c2",
        "c1",
        "c0",
    ]
    assert [j.id for j in backend.jobs.recent_jobs("u1", "turn", before=end, limit=4)] == ["turn"]
    assert backend.jobs.recent_jobs("u3", "candidate", before=end, limit=4) == []


def test_op_events_newest_first(backend: Backend) -> None:
    evs = [
        OpEvent(id=f"e{i}", user_id="u1", node="worker", op="create", sim=0.5, at=NOW + timedelta(seconds=i))
        for i in range(3)
    ]
    backend.apply(WriteBatch(op_events=evs))
    assert [e.id for e in backend.changes.op_events("u1")] == ["e2", "e1", "e0"]
    assert backend.changes.op_events("u2") == []


def test_parked_jobs_are_retried_all_at_once_or_by_user_and_id(backend: Backend) -> None:
    backend.apply(WriteBatch(jobs=[job("a"), job("b"), job("c", user="u2"), job("d")]))
    for jid in ("a", "b", "c", "d"):
        assert backend.jobs.claim_job("w", lease_seconds=30, now=NOW + timedelta(seconds=1)) is not None
        backend.jobs.fail_job(jid, "LLM down", retry_at=None if jid != "d" else NOW + timedelta(hours=1))
    assert backend.jobs.retry_jobs(["a", "d", "nope"]) == [
        "a"
    ]  # "d" waits out a backoff: not parked, untouched
    assert backend.jobs.retry_jobs(user_id="u2") == ["c"]
    assert backend.jobs.retry_jobs([], user_id="u1") == []
    assert backend.jobs.retry_jobs() == ["b"]
    assert backend.jobs.retry_jobs() == []
    by_id = {j.id: j for j in backend.jobs.list_jobs()}
    assert {i: (j.status, j.attempts) for i, j in by_id.items()} == {
        "a": (JobStatus.PENDING, 0),
        "b": (JobStatus.PENDING, 0),
        "c": (JobStatus.PENDING, 0),
        "d": (JobStatus.PENDING, 1),
    }
    assert by_id["d"].run_after == NOW + timedelta(hours=1)
    assert backend.jobs.claim_job("w", lease_seconds=30, now=utcnow() + timedelta(seconds=1)) is not None
