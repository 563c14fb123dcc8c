"""Shared and global memories (seed 003 §2.1, §4.5, §5) through the engine, on SQLite and PostgreSQL.

Real parts: the stores, the bundled all-MiniLM-L6-v2 embedder, formation. The LLM is a
:class:`ScriptedLLM` at the provider boundary, so a contradiction is declared, not guessed.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memlane import Memory
from memlane.formation.bands import bands_for
from memlane.model.config import Settings
from memlane.model.enums import HistoryEvent, MemoryState, MemoryType
from memlane.model.errors import ConflictError, ForbiddenError, MemlaneError, NotFoundError, ValidationError
from memlane.model.ids import GLOBAL_USER
from tests.formation_helpers import EventLog, ScriptedLLM, cosine, local_embedder, open_memory

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
OFFICE, MOVED = "The team office is in Lisbon.", "The team office moved to Porto."
SUNDAYS = "The help desk is closed on Sundays."


@pytest.fixture
def llm() -> ScriptedLLM:
    return ScriptedLLM()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def mem(request: pytest.FixtureRequest, tmp_path: Path, llm: ScriptedLLM) -> Iterator[Memory]:
    location = (
        str(tmp_path / "s.db") if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    )
    m = open_memory(location, llm)
    yield m
    m.close()


def summaries(records: list[Any]) -> set[str]:
    return {getattr(r, "memory", r).summary for r in records}


def seen_by(mem: Memory, user: str, query: str = "where is the team office?") -> set[str]:
    """What every read of the user returns: list, search, the context block and memory.query together."""
    found = summaries(mem.list(user_id=user)) | summaries(mem.search(query, user_id=user))
    block = mem.context(query, user_id=user)
    found |= summaries([*block.semantic, *block.episodic, *block.shared, *block.sessions])
    found |= {
        str(i["summary"]) for i in mem.query(query, user_id=user, agent="supervisor", return_="full").items
    }
    return found


def state_of(mem: Memory, *users: str) -> list[Any]:
    """Everything stored for these users and the global memories: records, history, links."""
    rows: list[Any] = [row for u in users for row in mem.export_user(u)]
    rows += [r.snapshot() for r in mem.sharing.list_global(include_inactive=True)]
    rows += [k.model_dump() for u in users for k in mem.backend.memories.links(u)]
    rows += [(u, mem.backend.memories.count(u)) for u in (*users, GLOBAL_USER)]
    return rows


def stored_rows_holding(mem: Memory, token: str) -> list[str]:
    """Tables of the store with a row holding ``token`` (every ordinary table, as the purge probe reads)."""
    found: list[str] = []
    if mem.backend.name == "sqlite":
        import sqlite3

        with sqlite3.connect(mem.settings.db) as con:
            tables = [
                r[0]
                for r in con.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'"
                )
            ]
            for table in tables:
                rows = con.execute(f'SELECT * FROM "{table}"').fetchall()
                text = " ".join(
                    c.decode("utf-8", "ignore") if isinstance(c, bytes) else str(c) for r in rows for c in r
                )
                found += [table] if token in text else []
        return found
    import psycopg

    with psycopg.connect(mem.settings.db) as conn:
        tables = [
            r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        ]
        for table in tables:
            if conn.execute(
                f'SELECT 1 FROM "{table}" t WHERE strpos(t::text, %s) > 0 LIMIT 1', (token,)
            ).fetchone():
                found.append(table)
    return found


def personal(mem: Memory, user: str, n: int) -> None:
    mem.put_many(
        [
            {"summary": f"{user.title()} collects stamp number {i}.", "category": "Interests"}
            for i in range(n)
        ],
        user_id=user,
    )


# --- visibility ----------------------------------------------------------------------------------


def test_a_user_sees_their_own_and_the_memories_shared_with_them_and_no_one_else_does(mem: Memory) -> None:
    office = mem.put(OFFICE, user_id="alice", category="Work", importance=4)
    mem.put("Alice likes green tea.", user_id="alice", category="Preferences")
    mem.put("Bob rides a red bicycle.", user_id="bob", category="Interests")
    mem.put("Carol plays the cello.", user_id="carol", category="Interests")
    links = mem.sharing.share(office.id, user_id="alice", with_users=["bob"])
    assert [(k.user_id, k.linked_by, k.is_open) for k in links] == [("bob", "alice", True)]

    assert OFFICE in seen_by(mem, "bob") and "Alice likes green tea." not in seen_by(mem, "bob")
    assert OFFICE not in seen_by(mem, "carol")
    assert mem.get(office.id, user_id="bob") == mem.get(office.id, user_id="alice")
    with pytest.raises(NotFoundError):
        mem.get(office.id, user_id="carol")
    hit = mem.search("where is the team office?", user_id="bob")[0]
    assert (hit.memory.id, hit.memory.user_id) == (office.id, "alice") and hit.breakdown.similarity > 0.5
    assert [h.event for h in mem.history(office.id, user_id="bob")] == [HistoryEvent.ADD, HistoryEvent.SHARE]
    with pytest.raises(NotFoundError):
        mem.history(office.id, user_id="carol")
    assert mem.sharing.share(office.id, user_id="alice", with_users=["bob"]) == links  # again: nothing new
    assert [h.event for h in mem.history(office.id, user_id="alice")] == [
        HistoryEvent.ADD,
        HistoryEvent.SHARE,
    ]


def test_a_shared_memory_leaves_the_users_it_was_shared_with_when_it_stops_being_active(mem: Memory) -> None:
    office = mem.put(OFFICE, user_id="alice")
    mem.sharing.share(office.id, user_id="alice", with_users=["bob"])
    mem.delete(office.id, user_id="alice")
    assert mem.list(user_id="bob", include_inactive=True) == [] and mem.search(OFFICE, user_id="bob") == []
    mem.restore(office.id, user_id="alice")
    assert summaries(mem.list(user_id="bob")) == {OFFICE}


def test_only_the_owner_changes_a_shared_memory_and_a_refusal_changes_nothing(mem: Memory) -> None:
    office = mem.put(OFFICE, user_id="alice")
    bob_own = mem.put("Bob rides a red bicycle.", user_id="bob")
    mem.sharing.share(office.id, user_id="alice", with_users=["bob"])
    before = state_of(mem, "alice", "bob", "carol")
    refused: list[tuple[type[MemlaneError], Any]] = [
        (ForbiddenError, lambda: mem.update(office.id, user_id="bob", summary="The team office is in Faro.")),
        (ForbiddenError, lambda: mem.delete(office.id, user_id="bob")),
        (ForbiddenError, lambda: mem.purge(office.id, user_id="bob")),
        (ForbiddenError, lambda: mem.restore(office.id, user_id="bob")),
        (ForbiddenError, lambda: mem.link(bob_own.id, office.id, user_id="bob")),
        (ForbiddenError, lambda: mem.sharing.share(office.id, user_id="bob", with_users=["carol"])),
        (ForbiddenError, lambda: mem.sharing.unshare(office.id, user_id="bob", from_users=["carol"])),
        (NotFoundError, lambda: mem.sharing.unshare(office.id, user_id="carol")),
        (NotFoundError, lambda: mem.sharing.unshare(office.id, user_id="alice", from_users=["carol"])),
        (NotFoundError, lambda: mem.sharing.share("no-such-id", user_id="alice", with_users=["bob"])),
        (NotFoundError, lambda: mem.sharing.shared_with(office.id, user_id="carol")),
        (ConflictError, lambda: mem.sharing.share(office.id, user_id="alice", with_users=["alice"])),
        (ValidationError, lambda: mem.sharing.share(office.id, user_id="alice", with_users="bob")),
        (ValidationError, lambda: mem.sharing.share(office.id, user_id="alice", with_users=[])),
        (ValidationError, lambda: mem.sharing.share(office.id, user_id="alice", with_users=[GLOBAL_USER])),
        (
            ValidationError,
            lambda: mem.sharing.share(office.id, user_id="alice", with_users=["bob", "no spaces"]),
        ),
        (ValidationError, lambda: mem.sharing.share("", user_id="alice", with_users=["bob"])),
        (ValidationError, lambda: mem.put("I am everyone.", user_id=GLOBAL_USER)),
        (ValidationError, lambda: mem.list(user_id=GLOBAL_USER)),
        (ValidationError, lambda: mem.sharing.put_global("Global.", user_id="alice")),
        (ValidationError, lambda: mem.sharing.put_global("")),
    ]
    for error, call in refused:
        with pytest.raises(error):
            call()
    assert state_of(mem, "alice", "bob", "carol") == before
    mem.delete(office.id, user_id="alice")
    with pytest.raises(ValidationError, match="only active memories"):
        mem.sharing.share(office.id, user_id="alice", with_users=["carol"])


def test_unsharing_closes_one_link_and_leaves_the_others(mem: Memory) -> None:
    office = mem.put(OFFICE, user_id="alice")
    mem.sharing.share(office.id, user_id="alice", with_users=["bob", "carol", "dave"])
    log = EventLog(mem)
    closed = mem.sharing.unshare(office.id, user_id="bob")  # bob, for himself
    assert [(k.user_id, k.is_open) for k in closed] == [("bob", False)]
    mem.sharing.unshare(office.id, user_id="alice", from_users=["carol"], reason="left the team")
    assert OFFICE not in seen_by(mem, "bob") and OFFICE not in seen_by(mem, "carol")
    assert OFFICE in seen_by(mem, "dave")
    assert [(k.user_id, k.is_open) for k in mem.sharing.shared_with(office.id, user_id="alice")] == [
        ("bob", False),
        ("carol", False),
        ("dave", True),
    ]
    assert [k.user_id for k in mem.sharing.shared_with(office.id, user_id="dave")] == ["dave"]
    assert [(e.type, e.user_id) for e in log.events] == [
        ("memory.unshared", "bob"),
        ("memory.unshared", "carol"),
    ]
    carol_rows = mem.history(office.id, user_id="carol")  # carol no longer sees it; her audit rows stay
    assert [(h.event, h.reason) for h in carol_rows] == [
        (HistoryEvent.SHARE, "shared by alice"),
        (HistoryEvent.UNSHARE, "left the team"),
    ]
    mem.sharing.share(office.id, user_id="alice", with_users=["bob"])  # shared again: seen again
    assert OFFICE in seen_by(mem, "bob")


# --- contradiction ---------------------------------------------------------------------------------


def contradict(emb_text: str, new_text: str, llm: ScriptedLLM) -> None:
    floor = bands_for("local", MemoryType.SEMANTIC, Settings()).floor
    assert cosine(local_embedder(), emb_text, new_text) >= floor, "fixture pair fell under the judge's floor"
    llm.relation(emb_text, new_text, "contradiction", "the office moved")


def test_a_contradiction_unlinks_the_shared_memory_for_that_user_only_and_writes_the_audit_row(
    mem: Memory, llm: ScriptedLLM
) -> None:
    contradict(OFFICE, MOVED, llm)
    office = mem.put(OFFICE, user_id="alice", at=T0)
    mem.sharing.share(office.id, user_id="alice", with_users=["bob", "carol"])
    stored = mem.get(office.id, user_id="alice")
    log = EventLog(mem)
    mem.add_facts(
        [{"summary": MOVED, "category": "Work"}], user_id="bob", at=T0 + timedelta(days=1), wait=True
    )

    own = mem.list(user_id="bob")
    assert [(r.summary, r.user_id) for r in own] == [(MOVED, "bob")]
    assert OFFICE not in seen_by(mem, "bob") and MOVED in seen_by(mem, "bob")
    assert OFFICE in seen_by(mem, "carol") and MOVED not in seen_by(mem, "carol")
    assert mem.get(office.id, user_id="alice").model_dump(
        exclude={"access_count", "last_accessed"}
    ) == stored.model_dump(exclude={"access_count", "last_accessed"})  # the owner's memory is untouched
    assert [(k.user_id, k.is_open) for k in mem.sharing.shared_with(office.id, user_id="alice")] == [
        ("bob", False),
        ("carol", True),
    ]
    rows = mem.history(office.id, user_id="bob")
    assert sorted(h.event for h in rows) == [HistoryEvent.SHARE, HistoryEvent.UNSHARE]
    audit = next(h for h in rows if h.event is HistoryEvent.UNSHARE)  # seed 003's memory_updates row
    assert (audit.event, audit.user_id, audit.memory_id, audit.actor) == (
        HistoryEvent.UNSHARE,
        "bob",
        office.id,
        "formation",
    )
    assert audit.new_value and audit.new_value["replaced_by"] == own[0].id
    assert audit.reason and own[0].id in audit.reason and "the office moved" in audit.reason
    assert HistoryEvent.UNSHARE not in [h.event for h in mem.history(office.id, user_id="alice")]
    assert sorted((e.type, e.user_id) for e in log.events) == [
        ("memory.created", "bob"),
        ("memory.unshared", "bob"),
    ]


def test_the_same_fact_as_a_shared_memory_is_stored_as_the_users_own(mem: Memory, llm: ScriptedLLM) -> None:
    office = mem.put(OFFICE, user_id="alice", at=T0)
    mem.sharing.share(office.id, user_id="alice", with_users=["bob"])
    alice_before = state_of(mem, "alice")
    mem.add_facts([{"summary": OFFICE}], user_id="bob", at=T0 + timedelta(days=1), wait=True)
    assert state_of(mem, "alice") == alice_before  # the owner's memory is untouched
    own = [r for r in mem.list(user_id="bob") if r.user_id == "bob"]
    assert [r.summary for r in own] == [OFFICE] and own[0].id != office.id  # bob's words are his own memory
    assert mem.backend.memories.links("bob")[0].is_open  # and alice's shared copy stays beside it
    assert [(j.payload["action"], j.payload["memory_id"]) for j in mem.jobs.list(user_id="bob")] == [
        ("create", own[0].id)
    ]
    mem.add_facts([{"summary": OFFICE}], user_id="bob", at=T0 + timedelta(days=2), wait=True)
    assert [r.id for r in mem.list(user_id="bob") if r.user_id == "bob"] == [
        own[0].id
    ]  # again: merged into his


def test_contradicting_a_global_memory_unlinks_it_for_that_user_and_the_bootstrap_leaves_it_unlinked(
    mem: Memory, llm: ScriptedLLM
) -> None:
    opens = "The help desk is open on Sundays."
    contradict(SUNDAYS, opens, llm)
    glob = mem.sharing.put_global(SUNDAYS, at=T0)
    assert SUNDAYS in seen_by(mem, "bob", SUNDAYS) and SUNDAYS in seen_by(mem, "carol", SUNDAYS)
    mem.add_facts([{"summary": opens}], user_id="bob", at=T0 + timedelta(days=1), wait=True)
    mem.bootstrap.forget()  # the next read checks bob again: the closed link stays closed
    assert seen_by(mem, "bob", SUNDAYS) == {opens}
    assert SUNDAYS in seen_by(mem, "carol", SUNDAYS)
    assert mem.sharing.list_global() == [mem.get(glob.id, user_id="carol")]


# --- global bootstrap ------------------------------------------------------------------------------


def test_global_memories_reach_users_with_fewer_than_five_personal_memories(mem: Memory) -> None:
    personal(mem, "veteran", 5)
    personal(mem, "newbie", 4)
    glob = mem.sharing.put_global(SUNDAYS, category="Other")
    log = EventLog(mem)
    assert SUNDAYS in seen_by(mem, "newbie", "when is the help desk closed?")
    assert SUNDAYS in seen_by(mem, "stranger", "when is the help desk closed?")  # no memories at all
    assert SUNDAYS not in seen_by(mem, "veteran", "when is the help desk closed?")
    assert sorted(e.user_id for e in log.of("memory.shared")) == ["newbie", "stranger"]
    link = mem.sharing.shared_with(glob.id, user_id="newbie")[0]
    assert (link.linked_by, link.is_open) == ("system:bootstrap", True)
    with pytest.raises(ForbiddenError, match="global memory"):
        mem.delete(glob.id, user_id="newbie")

    personal(mem, "stranger", 5)  # links stay once a user has five memories ...
    later = mem.sharing.put_global("The help desk phone number is 555-0100.")
    found = seen_by(mem, "stranger", "help desk")
    assert SUNDAYS in found and later.summary not in found  # ... but no new global memory reaches them
    assert later.summary in seen_by(mem, "newbie", "help desk")
    assert len(log.of("memory.shared")) == 3  # reading again links nothing twice
    assert mem.users() == ["newbie", "stranger", "veteran"]  # global memories belong to no user


def test_the_bootstrap_can_be_turned_off(tmp_path: Path, llm: ScriptedLLM) -> None:
    m = open_memory(str(tmp_path / "off.db"), llm, memory_global_bootstrap_below=0)
    try:
        m.sharing.put_global(SUNDAYS)
        assert seen_by(m, "newbie", SUNDAYS) == set() and m.backend.memories.links("newbie") == []
    finally:
        m.close()


# --- forgetting ------------------------------------------------------------------------------------


def test_purging_a_shared_memory_forgets_it_for_everyone(mem: Memory, llm: ScriptedLLM) -> None:
    secret = "The team vault code is Zorblax 4417."
    contradict(secret, "The team vault code is Zorblax 5528.", llm)
    rec = mem.put(secret, user_id="alice", at=T0)
    mem.sharing.share(rec.id, user_id="alice", with_users=["bob", "carol"])
    mem.add_facts(
        [{"summary": "The team vault code is Zorblax 5528."}],
        user_id="bob",
        at=T0 + timedelta(days=1),
        wait=True,
    )
    mem.purge(rec.id, user_id="alice", reason="leaked")
    for user in ("bob", "carol"):
        assert "4417" not in " ".join(seen_by(mem, user, "vault code"))
        assert all("4417" not in str(row) for row in mem.export_user(user))
        assert all("4417" not in str(c.meta) for c in mem.backend.changes.changes_after(user, 0))
        assert mem.backend.memories.links(user) == []
    assert sorted(h.event for h in mem.history(rec.id, user_id="bob")) == [
        HistoryEvent.SHARE,
        HistoryEvent.UNSHARE,
    ]
    assert stored_rows_holding(mem, "4417") == []
    assert [r.summary for r in mem.list(user_id="bob")] == ["The team vault code is Zorblax 5528."]


def test_purging_a_global_memory_removes_it_for_every_user(mem: Memory) -> None:
    glob = mem.sharing.put_global(SUNDAYS)
    assert SUNDAYS in seen_by(mem, "bob", SUNDAYS) and SUNDAYS in seen_by(mem, "carol", SUNDAYS)
    mem.sharing.purge_global(glob.id, reason="outdated")
    assert SUNDAYS not in seen_by(mem, "bob", SUNDAYS) | seen_by(mem, "carol", SUNDAYS)
    assert mem.sharing.list_global(include_inactive=True)[0].state is MemoryState.PURGED
    assert mem.backend.memories.links("bob") == [] and mem.backend.memories.links("carol") == []
    with pytest.raises(NotFoundError):
        mem.sharing.purge_global("no-such-id")


def test_deleting_a_user_removes_their_links_but_not_the_memories_shared_with_them(mem: Memory) -> None:
    office = mem.put(OFFICE, user_id="alice")
    bike = mem.put("Bob rides a red bicycle.", user_id="bob")
    mem.sharing.share(office.id, user_id="alice", with_users=["bob", "carol"])
    mem.sharing.share(bike.id, user_id="bob", with_users=["carol"])
    assert mem.delete_user("bob") == 1
    assert mem.get(office.id, user_id="alice").state is MemoryState.ACTIVE
    assert [k.user_id for k in mem.sharing.shared_with(office.id, user_id="alice")] == ["carol"]
    assert seen_by(mem, "carol", "office bicycle") == {OFFICE}
    assert mem.backend.memories.links("bob") == []


def test_reembedding_the_store_reembeds_the_global_memories_too(mem: Memory) -> None:
    mem.put("Bob rides a red bicycle.", user_id="bob")
    glob = mem.sharing.put_global(SUNDAYS)
    stale = [0.0] * mem.embedder.dims
    stale[0] = 1.0
    mem.backend.upsert(mem.sharing.list_global()[0], stale)  # a vector the model would not give it
    report = mem.reembed()
    assert (report.users, report.scanned) == (2, 2)
    assert mem.backend.memories.vectors(GLOBAL_USER, [glob.id])[glob.id] == pytest.approx(
        local_embedder().embed_one(SUNDAYS), abs=1e-5
    )
