"""A purge forgets: no table, export or API response of either backend keeps the purged text."""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Iterator, Sequence
from datetime import timedelta
from functools import partial
from pathlib import Path

import pytest

from memlane import AsyncMemory, Memory
from memlane.model.candidate import InsightProposal, Insights
from memlane.model.config import Settings
from memlane.model.enums import HistoryEvent, MemoryState
from memlane.model.errors import NotFoundError
from memlane.model.ids import new_id
from memlane.model.jobs import Job, JobStatus
from memlane.model.record import utcnow
from memlane.providers.embed.hash import HashEmbedder
from memlane.providers.llm.rules.llm import RulesLLM
from memlane.storage.base import WriteBatch
from tests.formation_helpers import local_embedder
from tests.write_helpers import BACKENDS, engine, table_rows, tables_holding

TOKEN = "Quixotl"  # a word no other memory holds
U = "ana"


@pytest.fixture(params=BACKENDS)
def mem(request: pytest.FixtureRequest, tmp_path: os.PathLike[str]) -> Iterator[Memory]:
    yield from engine(request, tmp_path)


def remember_the_token(mem: Memory) -> None:
    """The token in a keyed memory (updated), a formed one, a superseded keyed fact, and a parked job."""
    mem.put("User likes tea.", user_id=U, thread_id="t1")
    rec = mem.put(
        f"User's locker code is {TOKEN} 4417.",
        user_id=U,
        key="profile:locker:code",
        thread_id="t1",
        tags=[TOKEN.lower()],
        entities=[TOKEN],
        metadata={"note": TOKEN},
    )
    mem.update(rec.id, user_id=U, summary=f"User's locker code is {TOKEN} 4418.")
    mem.add(f"My dog is called {TOKEN}.", user_id=U, thread_id="t1", wait=True)
    for n in (1, 2):  # a keyed fact corrected: the old version moves to an archive id, superseded
        mem.add_facts(
            [
                {
                    "summary": f"User's bike lock code is {TOKEN}-{n}.",
                    "key": "profile:bike:code",
                    "category": "Personal",
                }
            ],
            user_id=U,
            thread_id="t1",
            wait=True,
        )
    parked = Job(
        id=new_id(),
        user_id=U,
        kind="candidate",
        status=JobStatus.PARKED,
        payload={"candidate": {"summary": f"User's locker code is {TOKEN} 4418."}},
    )
    mem.backend.apply(WriteBatch(jobs=[parked]))


def purge_the_token(mem: Memory) -> list[str]:
    active = [r for r in mem.list(user_id=U) if TOKEN.lower() in r.summary.lower()]
    assert len(active) == 3  # locker, dog, bike (its old version is superseded, not active)
    for r in active:
        mem.purge(r.id, user_id=U, reason="user asked")
    return [r.id for r in active]


def test_purge_leaves_no_copy_of_the_text_in_any_table_or_api(mem: Memory) -> None:
    remember_the_token(mem)
    assert tables_holding(mem.backend, TOKEN)  # the probe finds it before
    ids = purge_the_token(mem)
    assert tables_holding(mem.backend, TOKEN) == []
    everything = mem.list(user_id=U, include_inactive=True)
    assert [r.summary for r in everything if TOKEN.lower() in r.model_dump_json().lower()] == []
    assert {r.state for r in everything if r.summary == "[purged]"} == {MemoryState.PURGED}
    assert len([r for r in everything if r.state is MemoryState.PURGED]) == 4  # with the bike's old version
    assert all(
        r.key is None and not r.tags and not r.metadata for r in everything if r.state is MemoryState.PURGED
    )
    assert mem.backend.memories.vectors(U, [r.id for r in everything if r.state is MemoryState.PURGED]) == {}
    assert [
        h.memory.summary
        for h in mem.search(f"locker code {TOKEN}", user_id=U, include_inactive=True)
        if TOKEN.lower() in h.memory.summary.lower()
    ] == []
    assert TOKEN.lower() not in json.dumps(list(mem.export_user(U)), default=str).lower()
    for mid in ids:
        hist = mem.history(mid, user_id=U)
        assert (
            hist[-1].event is HistoryEvent.PURGE
            and hist[-1].actor == "api"
            and hist[-1].reason == "user asked"
        )
        assert all(h.old_value is None and h.new_value is None for h in hist)
        assert TOKEN.lower() not in json.dumps([h.model_dump(mode="json") for h in hist]).lower()
    block = mem.context("locker code", user_id=U, thread_id="t1", since_rev=0)
    assert TOKEN.lower() not in block.text.lower() and "restored" not in block.text
    changes = mem.backend.changes.changes_after(U, 0, limit=1000)
    assert TOKEN.lower() not in json.dumps([c.model_dump(mode="json") for c in changes]).lower()
    assert [c.event for c in changes].count("purged") == 4
    jobs = mem.jobs.list(user_id=U, limit=1000)
    assert TOKEN.lower() not in json.dumps([j.model_dump(mode="json") for j in jobs]).lower()


def test_purge_is_scoped_to_the_user(mem: Memory) -> None:
    mine = mem.put(f"User's code is {TOKEN}.", user_id=U)
    theirs = mem.put(f"User's code is {TOKEN}.", user_id="bo")
    with pytest.raises(NotFoundError):
        mem.purge(theirs.id, user_id=U)
    mem.purge(mine.id, user_id=U)
    assert mem.get(theirs.id, user_id="bo").summary == f"User's code is {TOKEN}."
    assert [h.event for h in mem.history(theirs.id, user_id="bo")] == [HistoryEvent.ADD]
    assert mem.history(theirs.id, user_id="bo")[0].new_value is not None


def test_delete_user_leaves_nothing_of_the_user(mem: Memory) -> None:
    remember_the_token(mem)
    mem.put("User's neighbour likes tea.", user_id="bo")
    assert mem.delete_user(U) > 0
    assert tables_holding(mem.backend, TOKEN) == []
    assert mem.list(user_id=U, include_inactive=True) == [] and mem.backend.changes.changes_after(U, 0) == []
    assert mem.jobs.list(user_id=U) == [] and mem.list(user_id="bo")


# --- every derived copy (issue 30): a supersede chain, an insight, a consolidation merge, a shared
# copy, a chat session and consent proposals, on a real store with the bundled embedder and the
# rule-based judge; only the insight model is scripted (the offline rules infer none).

HOUR = timedelta(hours=1)
INSIGHT = f"User seems attached to {TOKEN} and mentions it often."


class InferringRules(RulesLLM):
    """The rule-based LLM, with an insight model that restates a new fact naming the token."""

    def insights(self, activity: Sequence[str], new_facts: Sequence[str], snippet: str = "") -> Insights:
        named = any(TOKEN.lower() in f.lower() for f in new_facts)
        return Insights(insights=[InsightProposal(summary=INSIGHT)] if named else [])


@pytest.fixture
def lived(location: str) -> Iterator[Memory]:
    settings = Settings(db=location, worker=False, memlane_schedule={"consolidate": 24, "sessions": 1})
    with Memory(location, embedder=local_embedder(), llm=InferringRules(), settings=settings) as m:
        yield m


def file_bytes(path: str) -> bytes:
    """A SQLite store's file and its write-ahead log, if any."""
    return b"".join(Path(p).read_bytes() for p in (path, f"{path}-wal") if os.path.exists(p))


def live_with_the_token(mem: Memory) -> dict[str, str]:
    """The token in every place a memory's words are copied to; returns the ids of the memories to purge."""
    now = utcnow()
    turn = partial(mem.add_turn, user_id=U, thread_id="t1", wait=True)
    turn(f"I work at {TOKEN}.", at=now - 6 * HOUR)
    insight = mem.run_insights(user_id=U, at=now - 5 * HOUR)["created"]
    turn(
        "I work at Acme now.", at=now - 4 * HOUR
    )  # the keyed fact's old version is superseded, a reason quotes it
    turn("My favourite drink is tea.", at=now - 5.5 * HOUR)
    turn(f"Actually my favourite drink is {TOKEN} tea.", at=now - 5.2 * HOUR)  # a refinement quoting both
    turn("My favourite drink is coffee now.", at=now - 5 * HOUR)  # the token's version is superseded in turn
    turn(f"I live in {TOKEN}.", at=now - 3 * HOUR)
    turn("I moved to Lisbon.", at=now - 2 * HOUR)  # a consent proposal quoting the stored city
    mem.proposals.reject(mem.proposals.list(user_id=U)[0].id, user_id=U)
    turn("I moved to Faro.", at=now - HOUR)  # a second one, left pending
    mem.put("User enjoys hiking on weekends.", user_id=U, tags=["hiking"])
    dup = mem.put(
        "User likes to hike at weekends.", user_id=U, tags=["hiking", TOKEN.lower()], entities=[TOKEN]
    )
    shared = mem.put(f"User's team room is {TOKEN} 3.", user_id=U)
    mem.sharing.share(shared.id, user_id=U, with_users=["bo"])
    start = now - 30 * timedelta(minutes=1)
    mem.sessions.record_messages(
        [
            {"name": who, "content": f"{text} {TOKEN} cabin.", "at": start + n * timedelta(minutes=1)}
            for n, (who, text) in enumerate(
                [
                    ("ana", "Shall we book the"),
                    ("ben", "Yes, book the"),
                    ("ana", "Booked the"),
                    ("ben", "Paid for the"),
                ]
            )
        ],
        user_id=U,
        chat_id="trip",
    )
    mem.run_tasks(at=now + 3 * HOUR)  # the session is summarised
    mem.run_tasks(at=now + 28 * HOUR)  # consolidation merges the two hiking memories
    everything = {r.id: r for r in mem.list(user_id=U, include_inactive=True, limit=1000)}
    assert [r.summary for r in everything.values() if r.id in insight] == [INSIGHT]
    survivor = everything.get(everything[dup.id].superseded_by or "")
    assert survivor is not None and TOKEN in survivor.entities
    assert any(r.type.value == "session" and TOKEN in r.summary for r in everything.values())
    assert {p.status.value for p in mem.proposals.list(user_id=U, status=None)} == {"rejected", "pending"}
    work = [r for r in everything.values() if r.summary == f"User works at {TOKEN}."]
    assert work and work[0].state is MemoryState.SUPERSEDED
    assert any(
        TOKEN.lower() in (h.reason or "").lower() for h in mem.history(work[0].superseded_by or "", user_id=U)
    )
    tea = next(r for r in everything.values() if r.summary == "User's favourite drink is tea.")
    assert any(
        TOKEN.lower() in (h.reason or "").lower() for h in mem.history(tea.id, user_id=U)
    )  # "'... tea' is a
    # more specific 'tea'": the row of the version it replaced quotes it, and names neither its id nor its text
    # what the user purges: the memories whose own words hold the token (not the insight: it is derived)
    roots = {
        r.id: r.summary
        for r in everything.values()
        if r.type.value != "insight"
        and TOKEN.lower() in r.summary.lower()
        and r.state is not MemoryState.PURGED
    }
    return {**roots, dup.id: dup.summary, **{i: "insight" for i in insight}}


def test_a_purge_forgets_every_derived_copy(lived: Memory) -> None:
    mem = lived
    planted = live_with_the_token(mem)
    insight = [i for i, s in planted.items() if s == "insight"]
    assert {"memories", "history", "change_log", "jobs", "proposals", "messages"} <= set(
        tables_holding(mem.backend, TOKEN)
    )
    for mid, summary in planted.items():
        if summary != "insight":
            mem.purge(mid, user_id=U, reason="user asked")

    assert tables_holding(mem.backend, TOKEN) == []
    everything = mem.list(user_id=U, include_inactive=True, limit=1000)
    assert TOKEN.lower() not in json.dumps([r.model_dump(mode="json") for r in everything]).lower()
    assert [r.state for r in everything if r.id in insight] == [
        MemoryState.PURGED
    ]  # derived: purged with its source
    assert mem.history(insight[0], user_id=U)[-1].reason == "user asked (inferred from a purged memory)"
    survivor = next(r for r in everything if r.summary == "User enjoys hiking on weekends.")
    assert survivor.state is MemoryState.ACTIVE and survivor.tags == ["hiking"] and survivor.entities == []
    assert next(r for r in everything if r.summary == "User works at Acme.").state is MemoryState.ACTIVE
    tea = next(r for r in everything if r.summary == "User's favourite drink is tea.")
    assert tea.state is MemoryState.SUPERSEDED  # the version before the purged one stays, with its events
    assert [h.event for h in mem.history(tea.id, user_id=U)] == [HistoryEvent.SUPERSEDE]
    histories = [
        h.model_dump(mode="json") for r in everything for h in mem.history(r.id, user_id=U, limit=1000)
    ]
    assert TOKEN.lower() not in json.dumps(histories).lower()
    assert mem.proposals.list(user_id=U, status=None) == []
    assert mem.sessions.list(user_id=U) == []
    for user in (U, "bo"):
        seen = [
            *mem.list(user_id=user, include_inactive=True),
            *(h.memory for h in mem.search(TOKEN, user_id=user)),
        ]
        assert TOKEN.lower() not in json.dumps([r.model_dump(mode="json") for r in seen]).lower()
        assert (
            TOKEN.lower() not in mem.context(f"{TOKEN} team room", user_id=user, thread_id="t1").text.lower()
        )
        changes = mem.backend.changes.changes_after(user, 0, limit=1000)
        assert TOKEN.lower() not in json.dumps([c.model_dump(mode="json") for c in changes]).lower()
    assert TOKEN.lower() not in json.dumps(list(mem.export_user(U)), default=str).lower()
    assert (
        TOKEN.lower()
        not in json.dumps([j.model_dump(mode="json") for j in mem.jobs.list(user_id=U, limit=1000)]).lower()
    )
    if mem.backend.name == "sqlite":  # the file's bytes: secure_delete zeroed what the purge removed
        path = mem.backend.path  # type: ignore[attr-defined]
        mem.close()
        assert TOKEN.encode() not in file_bytes(path)


def test_delete_user_leaves_no_row_naming_the_user_and_compact_leaves_no_byte(lived: Memory) -> None:
    mem = lived
    live_with_the_token(mem)
    mem.put("User's neighbour likes tea.", user_id="bo")
    named = re.compile(rf"\b{U}\b", re.IGNORECASE)

    def naming() -> dict[str, list[str]]:
        found = {name: [r for r in rows if named.search(r)] for name, rows in table_rows(mem.backend).items()}
        return {name: rows for name, rows in found.items() if rows}

    before = set(naming())
    assert {"memories", "history", "messages", "memory_links"} <= before
    assert mem.backend.name != "sqlite" or "vector_journal" in before
    assert mem.delete_user(U) > 0
    assert naming() == {}
    assert tables_holding(mem.backend, TOKEN) == []
    assert mem.list(user_id="bo")[0].summary == "User's neighbour likes tea." and mem.list(user_id=U) == []
    sizes = mem.compact()
    assert sizes["bytes_after"] < sizes["bytes_before"]
    if mem.backend.name == "sqlite":  # nothing of the user in the file's bytes once it is compacted
        path = mem.backend.path  # type: ignore[attr-defined]
        mem.close()
        data = file_bytes(path)
        assert TOKEN.encode() not in data and TOKEN.lower().encode() not in data
        assert b"Acme" not in data and b"Lisbon" not in data  # the user's other words went too


def test_after_delete_user_and_compact_neither_sqlite_file_holds_the_user(tmp_path: os.PathLike[str]) -> None:
    path = os.path.join(tmp_path, "m.db")
    gone = "zz-leaving-user-77"
    with Memory(
        path, embedder=HashEmbedder(64), llm="rules", settings=Settings(db=path, worker=False)
    ) as mem:
        for n in range(30):
            mem.put(f"User's note {n} about the {TOKEN} garden.", user_id=gone, tags=[gone])
        mem.put("User's note about tea.", user_id="bo")
        assert gone.encode() in file_bytes(path)
        mem.delete_user(gone)
        sizes = asyncio.run(
            AsyncMemory(memory=mem).compact()
        )  # open: the log is emptied too (async: same path)
        assert sizes["bytes_after"] < sizes["bytes_before"]
        data = file_bytes(path)
        assert gone.encode() not in data and TOKEN.encode() not in data
        assert [r.summary for r in mem.list(user_id="bo")] == ["User's note about tea."]


class AlwaysInfers(RulesLLM):
    """The rule-based LLM with an insight model that infers one fixed insight per run."""

    def __init__(self) -> None:
        super().__init__()
        self.replies = ["User enjoys warm drinks.", "User is particular about drinks."]

    def insights(self, activity: Sequence[str], new_facts: Sequence[str], snippet: str = "") -> Insights:
        return Insights(insights=[InsightProposal(summary=self.replies.pop(0))])


def test_an_insight_goes_with_the_version_of_a_keyed_fact_it_was_inferred_from(location: str) -> None:
    settings = Settings(db=location, worker=False)
    with Memory(location, embedder=local_embedder(), llm=AlwaysInfers(), settings=settings) as mem:
        now = utcnow()
        turn = partial(mem.add_turn, user_id=U, thread_id="t1", wait=True)
        turn(f"My favourite drink is {TOKEN} tea.", at=now - 60 * HOUR)
        [during] = mem.run_insights(user_id=U, at=now - 59 * HOUR)["created"]  # while the fact said the token
        turn("My favourite drink is coffee now.", at=now - 50 * HOUR)  # the token's version moves to a new id
        turn("My favourite colour is blue.", at=now - 40 * HOUR)
        [before] = mem.run_insights(user_id=U, at=now - 35 * HOUR)["created"]  # before it said the token
        turn(f"Actually my favourite colour is {TOKEN} blue.", at=now - 30 * HOUR)
        turn("My favourite colour is green now.", at=now - 20 * HOUR)
        versions = [r for r in mem.list(user_id=U, include_inactive=True) if TOKEN in r.summary]
        assert len(versions) == 2 and all(r.state is MemoryState.SUPERSEDED for r in versions)
        for insight, version in zip(
            (during, before), sorted(versions, key=lambda r: r.created_at), strict=True
        ):
            assert mem.get(insight, user_id=U).metadata["inferred_from"] == [
                version.superseded_by
            ]  # the fact's id
        for version in versions:
            mem.purge(version.id, user_id=U)
        assert mem.get(during, user_id=U).state is MemoryState.PURGED
        assert mem.get(before, user_id=U).state is MemoryState.ACTIVE  # made before the token's version held
        assert {r.summary for r in mem.list(user_id=U)} >= {
            "User's favourite drink is coffee now.",
            "User's favourite colour is green now.",
        }


def test_the_purge_task_takes_the_insights_of_what_it_purges(location: str) -> None:
    settings = Settings(db=location, worker=False, memlane_schedule={"purge": 24})
    with Memory(location, embedder=local_embedder(), llm=AlwaysInfers(), settings=settings) as mem:
        fact = mem.put(f"User's allotment is plot {TOKEN} 12.", user_id=U)
        [insight] = mem.run_insights(user_id=U)["created"]
        mem.delete(fact.id, user_id=U)
        mem.run_tasks()  # seeds the user's runs; none is due before a day has passed
        mem.run_tasks(at=utcnow() + timedelta(days=31))
        assert [mem.get(i, user_id=U).state for i in (fact.id, insight)] == [MemoryState.PURGED] * 2
        assert mem.history(insight, user_id=U)[-1].reason == (
            "purge: soft deleted and past purge_at (inferred from a purged memory)"
        )
        assert tables_holding(mem.backend, TOKEN) == []
