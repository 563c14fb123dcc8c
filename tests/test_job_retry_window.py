"""The retry window of a job that fails on a provider (formation/retry.py), on SQLite and PostgreSQL:
an LLM outage is retried with backoff past MEMLANE_JOB_MAX_ATTEMPTS until the job is
MEMLANE_JOB_RETRY_HOURS old, then parked for a person; any other failure is parked after its attempts.

Real parts: a SQLite file and a real PostgreSQL server (``location``), memlane's OpenAI client; the
model is the scripted OpenAI-compatible server on loopback (the provider boundary)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx

from memlane import Memory
from memlane.model.candidate import ChatMessage, Extraction
from memlane.model.config import Settings
from memlane.model.jobs import Job
from memlane.providers.llm.rules.llm import RulesLLM
from tests.formation_helpers import extraction_json, wait_until
from tests.scripted_chat_server import Reply, ScriptedChatServer, openai_llm
from tests.scripted_upstream import running_memlane

U = "maya"


def open_memory(location: str, llm: Any, **settings: Any) -> Memory:
    return Memory(
        location,
        embedder="hash",
        llm=llm,
        settings=Settings(db=location, worker=False, job_max_attempts=1, job_backoff_max_s=0.05, **settings),
    )


def turn(mem: Memory) -> Job:
    [job] = [j for j in mem.jobs.list(user_id=U) if j.kind == "turn"]
    return job


def test_an_outage_is_retried_for_its_window_then_parked_then_retried_by_a_person(
    location: str, server: ScriptedChatServer
) -> None:
    server.otherwise = lambda _: Reply(None, 503)
    with open_memory(location, openai_llm(server), job_retry_hours=0.0003) as mem:  # about 1 s
        turn_id = mem.add_turn("I live in Zanzibar.", user_id=U)[
            0
        ]  # queued: a remote model is not waited for
        wait_until(
            lambda: mem.process_jobs() >= 0 and turn(mem).attempts >= 3, timeout=30, what="three attempts"
        )
        assert turn(mem).status.value == "pending"  # past MEMLANE_JOB_MAX_ATTEMPTS (1), inside the window
        wait_until(
            lambda: mem.process_jobs() >= 0 and turn(mem).status.value == "parked",
            timeout=30,
            what="the turn parked once its window is over",
        )
        reason = mem.jobs.pending([turn_id], user_id=U)
        assert reason is not None and reason.code == "parked" and "HTTP 503" in reason.message
        server.otherwise = lambda _: Reply(extraction_json("User lives in Zanzibar.", category="Personal"))
        assert mem.process_jobs() == 0  # parked: it waits for a person
        assert mem.jobs.retry_many(user_id="noor") == [] and mem.jobs.retry_many(user_id=U) == [turn_id]
        assert mem.process_jobs() == 2  # the turn, then its candidate
        assert [r.summary for r in mem.list(user_id=U)] == ["User lives in Zanzibar."]
        assert mem.jobs.pending([turn_id], user_id=U) is None


class BrokenRulesLLM(RulesLLM):
    def extract(self, messages: Sequence[ChatMessage], existing: Sequence[str] = ()) -> Extraction:
        raise IndexError("rule table out of range")


def test_a_failure_that_is_not_an_outage_is_parked_after_its_attempts(location: str) -> None:
    with open_memory(location, BrokenRulesLLM(), job_retry_hours=24) as mem:
        turn_id = mem.add_turn("I live in Zanzibar.", user_id=U, wait=True)[0]
        assert turn(mem).status.value == "parked" and turn(mem).attempts == 1
        reason = mem.jobs.pending([turn_id], user_id=U)
        assert reason is not None and reason.code == "parked" and "IndexError" in reason.message


def test_bad_input_to_the_retry_route_is_refused_and_changes_nothing(
    location: str, server: ScriptedChatServer
) -> None:
    server.otherwise = lambda _: Reply(None, 503)
    with open_memory(location, openai_llm(server), job_retry_hours=0) as mem:
        turn_id = mem.add_turn("I live in Zanzibar.", user_id=U)[0]
        mem.process_jobs()
        assert turn(mem).status.value == "parked"
        with running_memlane(mem) as url:
            for body in (
                {"job_ids": "all"},
                {"job_ids": [""]},
                {"ids": [turn_id]},
                {"job_ids": [turn_id] * 1001},
            ):
                r = httpx.post(f"{url}/v1/memory/jobs/retry", headers={"X-Memlane-User": U}, json=body)
                assert r.status_code == 422 and r.json()["error"]["type"], body
            r = httpx.post(f"{url}/v1/memory/jobs/retry", json={})  # no user
            assert r.status_code in (400, 401) and r.json()["error"]["message"]
        assert turn(mem).status.value == "parked" and turn(mem).attempts == 1
