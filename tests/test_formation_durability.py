"""Nothing acknowledged is lost, nothing is written twice: formation through provider failures, a
worker process killed mid-decision, and identical writes racing each other (DESIGN, seed 000/003).

Real parts: the bundled local embedder, SQLite files and a real PostgreSQL server, real worker
processes (``tests/crash_worker.py``). The LLM is scripted at the provider boundary: the real
:class:`StructuredLLM` over a transport that returns scripted raw replies.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import timedelta
from pathlib import Path
from typing import IO, Any

import pytest

from memlane import Memory
from memlane.formation.bands import bands_for
from memlane.model.candidate import ChatMessage, Extraction
from memlane.model.config import Settings
from memlane.model.enums import HistoryEvent, MemoryType
from memlane.model.jobs import Job, JobStatus
from memlane.providers.embed import Embedder
from memlane.providers.llm.rules.llm import RulesLLM
from tests.formation_helpers import (
    EventLog,
    Rendezvous,
    ScriptedLLM,
    ScriptedTransportLLM,
    cosine,
    extraction_json,
    local_embedder,
    malformed,
    open_memory,
    timeout,
    wait_until,
)

U = "maya"
REPO = Path(__file__).resolve().parents[1]
PROCESS_TIMEOUT = 180.0  # a worker process loads the embedding model (seconds; far more on a busy machine)
SEMANTIC = bands_for("local", MemoryType.SEMANTIC, Settings())


@pytest.fixture(scope="module")
def emb(workers: WarmWorkers) -> Embedder:
    """Loaded while the worker processes the module needs load theirs."""
    return local_embedder()


@pytest.fixture
def db(tmp_path: Path, emb: Embedder) -> str:
    return str(tmp_path / "memlane.db")


def jobs_by_kind(mem: Memory, kind: str) -> list[Job]:
    return [j for j in mem.jobs.list(user_id=U) if j.kind == kind]


def history_events(mem: Memory) -> list[tuple[str, str]]:
    """(memory id, event) of every history row of the user, oldest first."""
    return [(r["memory_id"], r["event"]) for r in mem.export_user(U) if r["kind"] == "history"]


def adds(mem: Memory) -> list[str]:
    return [mid for mid, event in history_events(mem) if event == HistoryEvent.ADD.value]


# --- 2. the LLM path: valid, malformed, timed out -------------------------------------------------


def test_valid_model_output_forms_the_memories(db: str) -> None:
    llm = ScriptedTransportLLM([extraction_json("User lives in Lisbon.", category="Personal", importance=4)])
    with open_memory(db, llm) as mem:
        cands = mem.add("I live in Lisbon.", user_id=U, wait=True)
        assert [(c.summary, c.category, c.importance) for c in cands] == [
            ("User lives in Lisbon.", "Personal", 4)
        ]
        assert [r.summary for r in mem.list(user_id=U)] == ["User lives in Lisbon."]
        assert llm.count("Extraction") == 1 and not llm.replies
        assert "I live in Lisbon." in llm.requests[0][1]  # the turn reached the prompt
        assert {j.status for j in mem.jobs.list()} == {JobStatus.DONE}


def test_malformed_output_then_valid_output_works_after_one_retry(db: str) -> None:
    llm = ScriptedTransportLLM(['{"should_create": tru', extraction_json("User plays the violin.")])
    with open_memory(db, llm) as mem:
        log = EventLog(mem)
        cands = mem.add("I play the violin.", user_id=U, wait=True)
        assert [c.summary for c in cands] == ["User plays the violin."]
        assert [r.summary for r in mem.list(user_id=U)] == ["User plays the violin."]
        assert llm.count("Extraction") == 2
        assert "previous reply was rejected" in llm.requests[1][1]
        assert log.of("memory.error") == []
        assert {j.status for j in mem.jobs.list()} == {JobStatus.DONE}


FAILURES: dict[str, Callable[[], list[str | Exception]]] = {
    "malformed-twice": lambda: ['{"should_create": tru', "I think the user lives in Lisbon."],
    "malformed-no-json-twice": lambda: [malformed(), malformed()],
    "transport-timeout": lambda: [timeout()],
}


@pytest.mark.parametrize("failure", FAILURES)
@pytest.mark.parametrize("recovery", ["backoff", "parked-then-retried"])
def test_a_failed_extraction_keeps_the_turn_until_a_worker_forms_it(
    db: str, failure: str, recovery: str
) -> None:
    # parked at once: one attempt and no retry window for an outage (MEMLANE_JOB_RETRY_HOURS=0)
    settings: dict[str, Any] = (
        {"job_max_attempts": 1, "job_retry_hours": 0} if recovery == "parked-then-retried" else {}
    )
    llm = ScriptedTransportLLM(FAILURES[failure]())
    with open_memory(db, llm, **settings) as mem:
        log = EventLog(mem)
        assert mem.add("I live in Lisbon.", user_id=U, thread_id="t1", wait=True) == []
        assert not llm.replies  # malformed output was retried once; a timeout is not retried in the client
        assert mem.list(user_id=U) == []
        [turn] = mem.jobs.list(user_id=U)
        assert turn.kind == "turn" and turn.payload["messages"][0]["content"] == "I live in Lisbon."
        assert turn.status is (JobStatus.PARKED if recovery == "parked-then-retried" else JobStatus.PENDING)
        assert turn.last_error and ("malformed" in turn.last_error or "timed out" in turn.last_error)
        [error] = log.of("memory.error")
        assert error.data["code"] == "job_failed" and error.data["job"] == turn.id and error.thread_id == "t1"
        if recovery == "parked-then-retried":
            assert mem.process_jobs() == 0  # a parked job waits for a person (or `memlane jobs retry`)
        else:
            assert turn.run_after >= turn.updated_at + timedelta(seconds=0.5)  # retried after a backoff

    # the model works again; a restarted process finds the turn and forms the memory
    fixed = ScriptedTransportLLM([extraction_json("User lives in Lisbon.", category="Personal")])
    # no background worker: a retried job wakes it, and this thread drains the queue itself
    with open_memory(db, fixed, **settings, worker=False) as again:
        if recovery == "parked-then-retried":
            again.jobs.retry(turn.id)
            assert again.process_jobs() == 2  # the turn, then its candidate
        else:
            wait_until(
                lambda: again.process_jobs() > 0 and again.list(user_id=U) != [],
                timeout=30.0,
                interval=0.05,
                what="the turn's retry after its backoff",
            )
        assert [r.summary for r in again.list(user_id=U)] == ["User lives in Lisbon."]
        [done] = jobs_by_kind(again, "turn")
        assert done.status is JobStatus.DONE and done.id == turn.id
        assert {j.status for j in again.jobs.list()} == {JobStatus.DONE}
        assert adds(again) == [again.list(user_id=U)[0].id]


class BrokenRulesLLM(RulesLLM):
    """The offline extractor with a bug on one kind of message (a stand-in for any extractor defect)."""

    def extract(self, messages: Sequence[ChatMessage], existing: Sequence[str] = ()) -> Extraction:
        if "Lisbon" in messages[-1].content:
            raise IndexError("rule table out of range")
        return super().extract(messages, existing)


def test_an_extractor_failure_parks_the_turn_instead_of_storing_nothing(db: str) -> None:
    with open_memory(db, BrokenRulesLLM(), job_max_attempts=1) as mem:
        log = EventLog(mem)
        assert mem.add("I live in Lisbon.", user_id=U, thread_id="t1", wait=True) == []
        [turn] = mem.jobs.list(user_id=U)
        assert turn.status is JobStatus.PARKED
        assert turn.last_error == "IndexError: rule table out of range"
        assert turn.payload["messages"][0]["content"] == "I live in Lisbon."
        [error] = log.of("memory.error")
        assert error.data["code"] == "job_failed" and error.data["job"] == turn.id
    with open_memory(
        db, RulesLLM(), worker=False
    ) as fixed:  # the extractor is fixed: the kept turn forms its memory
        fixed.jobs.retry(turn.id)
        assert fixed.process_jobs() == 2
        assert [r.summary for r in fixed.list(user_id=U)] == ["User lives in Lisbon."]


# --- worker processes, started ahead of need -------------------------------------------------------

WORKER_NEEDS = {  # test -> (MEMLANE_FAULT, processes per test item)
    "test_a_worker_killed_before_its_commit_loses_nothing_and_duplicates_nothing": ("before_commit", 1),
    "test_two_worker_processes_claiming_from_one_queue_form_one_memory": (None, 2),
}


class WarmWorkers:
    """``tests/crash_worker.py --stdin`` processes. Each spends seconds loading the model, so the ones
    the selected tests need are started together at the start of the module and wait for their
    arguments (which are also their start signal) on stdin."""

    def __init__(self) -> None:
        self.idle: dict[str | None, list[subprocess.Popen[str]]] = {}
        self.all: list[subprocess.Popen[str]] = []
        self.stderr: dict[int, IO[str]] = {}

    def spawn(self, fault: str | None) -> subprocess.Popen[str]:
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        }
        env.pop("MEMLANE_FAULT", None)
        if fault:
            env["MEMLANE_FAULT"] = fault
        errors = tempfile.TemporaryFile("w+")  # noqa: SIM115 - closed in close(); a file, as nobody reads it while loading
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.crash_worker", "--stdin"],
            cwd=REPO,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
        )
        self.stderr[proc.pid] = errors
        self.all.append(proc)
        self.idle.setdefault(fault, []).append(proc)
        return proc

    def take(self, fault: str | None) -> subprocess.Popen[str]:
        if not self.idle.get(fault):
            self.spawn(fault)
        proc = self.idle[fault].pop(0)
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], PROCESS_TIMEOUT)
        assert ready, f"worker process did not load in {PROCESS_TIMEOUT:g}s"
        line = proc.stdout.readline()  # the whole line is written at once; a dead process gives EOF
        assert line and json.loads(line) == {"step": "loaded"}, f"worker failed to start: {line!r}"
        return proc

    @staticmethod
    def start(proc: subprocess.Popen[str], *args: str) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps([*args, "--timeout", str(PROCESS_TIMEOUT)]) + "\n")
        proc.stdin.flush()

    def finish(self, proc: subprocess.Popen[str]) -> tuple[int, list[dict[str, Any]], str]:
        """Wait (bounded) for a started worker; its exit code, JSON stdout lines and stderr."""
        try:
            out, _ = proc.communicate(timeout=PROCESS_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
            raise AssertionError(
                f"worker did not finish in {PROCESS_TIMEOUT:g}s: {self.errors(proc)}"
            ) from None
        return (
            proc.returncode,
            [json.loads(x) for x in out.splitlines() if x.startswith("{")],
            self.errors(proc),
        )

    def errors(self, proc: subprocess.Popen[str]) -> str:
        err = self.stderr[proc.pid]
        err.seek(0)
        return err.read()[-3000:]

    def close(self) -> None:
        for proc in self.all:
            if proc.poll() is None and proc.stdin is not None:
                proc.stdin.close()  # EOF: an unused worker exits without work
        for proc in self.all:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            for stream in (proc.stdin, proc.stdout, self.stderr[proc.pid]):
                if stream is not None:
                    stream.close()


@pytest.fixture(scope="module")
def workers(request: pytest.FixtureRequest) -> Iterator[WarmWorkers]:
    pool = WarmWorkers()
    for item in request.session.items:
        need = WORKER_NEEDS.get(getattr(item, "originalname", ""))
        if need is not None and getattr(item, "module", None) is request.module:
            for _ in range(need[1]):
                pool.spawn(need[0])
    try:
        yield pool
    finally:
        pool.close()


# --- 3. a worker process killed mid-job ------------------------------------------------------------

FACTS = ["User lives in Lisbon.", "User plays the violin."]


def test_a_worker_killed_before_its_commit_loses_nothing_and_duplicates_nothing(
    location: str, workers: WarmWorkers
) -> None:
    proc = workers.take("before_commit")
    workers.start(
        proc,
        "--db",
        location,
        "--user",
        U,
        "--mode",
        "crash",
        "--lease",
        "1.0",
        *(a for f in FACTS for a in ("--fact", f)),
    )
    code, lines, err = workers.finish(proc)
    assert code == 86, f"the fault did not end the worker (exit {code}): {lines} {err}"
    [accepted] = lines  # acknowledged, then killed: nothing after
    assert accepted["step"] == "accepted" and accepted["facts"] == FACTS

    with open_memory(location, ScriptedLLM()) as mem:
        # the killed worker committed nothing: one job is still leased to it, the other never started
        assert mem.list(user_id=U, include_inactive=True) == []
        jobs = jobs_by_kind(mem, "candidate")
        assert sorted(j.status.value for j in jobs) == ["pending", "running"]
        [leased] = [j for j in jobs if j.status is JobStatus.RUNNING]
        assert leased.locked_by == accepted["worker"] and leased.attempts == 1

        # a restarted worker takes the job over once the dead worker's lease has run out
        wait_until(
            lambda: mem.process_jobs() >= 0 and all(j.status is JobStatus.DONE for j in mem.jobs.list()),
            timeout=30.0,
            interval=0.05,
            what="the restarted worker to finish the jobs",
        )
        recs = mem.list(user_id=U, include_inactive=True)
        assert sorted(r.summary for r in recs) == sorted(FACTS)
        assert sorted(adds(mem)) == sorted(r.id for r in recs)  # exactly one ADD per fact
        assert [e for _, e in history_events(mem)].count(HistoryEvent.MERGE.value) == 0
        [retaken] = [j for j in mem.jobs.list() if j.id == leased.id]
        assert retaken.attempts == 2


# --- 4. identical writes at the same time ----------------------------------------------------------

FACT, RELATED = "User is allergic to peanuts.", "User is allergic to shellfish."


def submit_together(mems: list[Memory], fact: str) -> None:
    """Each Memory submits ``fact`` from its own thread at the same moment and drains its jobs."""
    barrier = threading.Barrier(len(mems))
    errors: list[BaseException] = []

    def submit(m: Memory) -> None:
        try:
            barrier.wait(timeout=10)
            m.add_facts([{"summary": fact}], user_id=U, wait=True)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test thread below
            errors.append(exc)

    threads = [threading.Thread(target=submit, args=(m,)) for m in mems]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads), "a submitting thread hung"
    assert errors == []


def assert_one_memory_of(mem: Memory, fact: str, submitted: int) -> None:
    mem.process_jobs()
    assert {j.status for j in mem.jobs.list()} == {JobStatus.DONE}
    recs = [r for r in mem.list(user_id=U, include_inactive=True) if r.summary == fact]
    assert len(recs) == 1, f"{len(recs)} memories of {fact!r}"
    rec = recs[0]
    assert [mid for mid in adds(mem) if mid == rec.id] == [rec.id]
    assert rec.state.value == "active"
    merges = [mid for mid, event in history_events(mem) if event == HistoryEvent.MERGE.value]
    assert merges == [rec.id] * (submitted - 1)
    assert rec.access_count == submitted - 1, "a concurrent merge was lost"


def racing_store(location: str, emb: Embedder) -> ScriptedLLM:
    """A store holding a memory related to FACT, so each decision about FACT asks the model; the scripted
    model holds callers until two decisions are inside at once (or a second has passed)."""
    assert cosine(emb, FACT, RELATED) >= SEMANTIC.floor
    llm = ScriptedLLM()
    with open_memory(location, llm) as mem:
        mem.add_facts([{"summary": RELATED}], user_id=U, wait=True)
    llm.on_decide = Rendezvous(parties=2, wait=1.0)
    return llm


def test_identical_facts_from_two_threads_form_one_memory(location: str, emb: Embedder) -> None:
    llm = racing_store(location, emb)
    with open_memory(location, llm) as mem:
        submit_together([mem, mem], FACT)
        assert_one_memory_of(mem, FACT, submitted=2)


def test_identical_facts_through_two_stores_on_one_database_form_one_memory(
    location: str, emb: Embedder
) -> None:
    """Two Memory objects on the same database (two apps, or a CLI next to a server) must serialise
    their decisions about one user just like two threads of one Memory."""
    llm = racing_store(location, emb)
    with open_memory(location, llm) as a, open_memory(location, llm) as b:
        submit_together([a, b], FACT)
        assert_one_memory_of(a, FACT, submitted=2)


@pytest.mark.postgres
def test_two_worker_processes_claiming_from_one_queue_form_one_memory(
    postgres_url: str, workers: WarmWorkers, emb: Embedder
) -> None:
    copies = 3
    procs = [workers.take(None) for _ in range(2)]
    for proc in procs:  # both are loaded: start them together
        workers.start(
            proc, "--db", postgres_url, "--user", U, "--mode", "drain", *(["--fact", FACT] * copies)
        )
    results = [workers.finish(p) for p in procs]
    for code, lines, err in results:
        assert code == 0, f"worker exit {code}: {lines} {err}"
    decided = [lines[-1]["decided"] for _, lines, _ in results]
    assert sum(decided) == 2 * copies, decided  # every job decided exactly once, by one process or the other
    with open_memory(postgres_url, ScriptedLLM()) as mem:
        assert len(mem.jobs.list()) == 2 * copies
        assert_one_memory_of(mem, FACT, submitted=2 * copies)
