"""Consent (seed 001 §10) on SQLite and a real PostgreSQL: a change formation would make to a sensitive
field (preferred name, pronouns, city, language) waits as a proposal the user or an admin accepts or
rejects, and expires after 7 days on a controllable clock; a benign field (tone) applies once two
statements corroborate it; every decision is in the memory's history.

Real parts: the bundled local embedder, the rule-based extractor and judge, SQLite files, a PostgreSQL
server (the ``location`` fixture). Times are real (now) where expiry is measured, so the 7 days run from
when a proposal was made.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from memlane import Memory
from memlane.model.config import Settings
from memlane.model.consent import Proposal, ProposalFilter, ProposalStatus
from memlane.model.enums import HistoryEvent, MemoryState
from memlane.model.errors import ConflictError, NotFoundError, ValidationError
from memlane.model.record import MemoryRecord, utcnow
from memlane.storage.base import Upsert, WriteBatch
from tests.formation_helpers import EventLog, local_embedder

U, OTHER = "maya", "lena"
MIN, DAY = timedelta(minutes=1), timedelta(days=1)


def ago() -> datetime:
    """A statement's time a little in the past (history is ordered by time; decisions are made now)."""
    return utcnow() - 10 * MIN


def open_mem(location: str, **settings: Any) -> Memory:
    chosen: dict[str, Any] = {"memlane_schedule": {"consent": 24}, "worker": False, **settings}
    return Memory(location, embedder=local_embedder(), llm="rules", settings=Settings(db=location, **chosen))


@pytest.fixture
def mem(location: str) -> Iterator[Memory]:
    with open_mem(location) as m:
        yield m


def say(mem: Memory, text: str, at: datetime, user: str = U) -> str:
    turn, _ = mem.add_turn(text, user_id=user, thread_id="t1", at=at, wait=True)
    return turn


def moved(mem: Memory, at: datetime, user: str = U) -> Proposal:
    """Porto is stored (a first statement applies); the move to Lisbon waits as the one pending proposal."""
    say(mem, "I live in Porto.", at, user)
    say(mem, "I moved to Lisbon.", at + MIN, user)
    (p,) = mem.proposals.list(user_id=user)
    return p


def active(mem: Memory, user: str = U) -> list[str]:
    return sorted(r.summary for r in mem.list(user_id=user))


def stored(mem: Memory, user: str = U) -> tuple[Any, ...]:
    """Everything a write could change, to show that a refused call changed nothing."""
    b = mem.backend
    records = sorted(
        (r.model_dump() for r in mem.list(user_id=user, include_inactive=True, limit=1000)),
        key=lambda r: r["id"],
    )
    return (
        records,
        [h.id for h in b.memories.history(user, limit=10**6)],
        [p.model_dump() for p in b.proposals.proposals(user, ProposalFilter(), limit=1000)],
        [c.id for c in b.changes.changes_after(user, 0, limit=10**6)],
    )


def events_of(mem: Memory, memory_id: str) -> list[tuple[HistoryEvent, str | None]]:
    return [(h.event, h.actor) for h in mem.history(memory_id, user_id=U)]


def test_a_sensitive_change_in_chat_waits_as_a_proposal_and_the_stored_fact_stays(mem: Memory) -> None:
    log = EventLog(mem)
    t0 = ago()  # said in the past: the 7 days run from when the proposal was made
    p = moved(mem, t0)
    assert active(mem) == ["User lives in Porto."]
    assert (p.field, p.sensitive, p.status, p.signals) == ("city", True, ProposalStatus.PENDING, 1)
    assert (p.current, p.candidate.summary) == ("User lives in Porto.", "User lives in Lisbon.")
    assert t0 + 7 * DAY + 10 * MIN <= p.expires_at <= utcnow() + 7 * DAY

    # neither search nor the context block shows the pending value as a fact
    hits = [h.memory.summary for h in mem.search("where does the user live?", user_id=U)]
    assert hits[0] == "User lives in Porto." and not any("Lisbon" in h for h in hits)
    block = mem.context("which city is the user in?", user_id=U, thread_id="t1", since_rev=0)
    assert "Porto" in block.text and "Lisbon" not in block.text
    assert [c.event for c in block.delta] == ["created"]  # the delta header does not announce a proposal

    history = mem.history(p.memory_id, user_id=U)
    assert [(h.event, h.actor) for h in history] == [
        (HistoryEvent.ADD, "formation"),
        (HistoryEvent.PROPOSE, "formation"),
    ]
    assert history[1].new_value is not None and history[1].new_value["summary"] == "User lives in Lisbon."
    assert p.id in (history[1].reason or "")
    (proposed,) = log.of("memory.proposed")
    assert proposed.data["proposal"] == p.id and proposed.seq is not None
    assert not log.of("memory.changed_fact")
    turn = mem.backend.jobs.list_jobs(limit=100)[-2]  # the second turn's job
    assert [(o.action, o.memory_id) for o in mem.jobs.outcomes(turn.id, user_id=U)] == [
        ("propose", p.memory_id)
    ]


def test_accept_supersedes_with_history_naming_who_decided(mem: Memory) -> None:
    log = EventLog(mem)
    p = moved(mem, ago())
    done = mem.proposals.accept(p.id, user_id=U, actor="user:maya", reason="yes, since May")
    assert (done.status, done.decided_by, done.note) == (
        ProposalStatus.ACCEPTED,
        "user:maya",
        "yes, since May",
    )
    assert active(mem) == ["User lives in Lisbon."]
    assert mem.get(p.memory_id, user_id=U).summary == "User lives in Lisbon."  # the key keeps naming the fact
    (old,) = [r for r in mem.list(user_id=U, include_inactive=True) if r.state is MemoryState.SUPERSEDED]
    assert old.summary == "User lives in Porto." and old.superseded_by == p.memory_id
    assert (HistoryEvent.SUPERSEDE, "user:maya") in events_of(mem, old.id)
    trail = events_of(mem, p.memory_id)
    assert trail[-2:] == [(HistoryEvent.SUPERSEDE, "user:maya"), (HistoryEvent.CONSENT, "user:maya")]
    decision = mem.history(p.memory_id, user_id=U)[-1].reason or ""
    assert "accepted" in decision and p.id in decision and "yes, since May" in decision
    assert [x.id for x in mem.proposals.list(user_id=U, status="accepted")] == [p.id]
    assert mem.proposals.list(user_id=U) == []
    assert log.of("memory.changed_fact") and log.of("memory.proposal_decided")[0].data["status"] == "accepted"
    assert mem.search("where does the user live?", user_id=U)[0].memory.summary == "User lives in Lisbon."

    before = stored(mem)
    with pytest.raises(ConflictError, match="already accepted by user:maya"):
        mem.proposals.accept(p.id, user_id=U, actor="user:maya")
    with pytest.raises(ConflictError, match="already accepted"):
        mem.proposals.reject(p.id, user_id=U, actor="admin:ops")
    assert stored(mem) == before


def test_reject_keeps_the_memory_and_records_the_decision(mem: Memory) -> None:
    p = moved(mem, ago())
    records = stored(mem)[0]
    done = mem.proposals.reject(p.id, user_id=U, actor="admin:ops", reason="the user never moved")
    assert (done.status, done.decided_by) == (ProposalStatus.REJECTED, "admin:ops")
    assert stored(mem)[0] == records  # the memory is exactly as it was
    last = mem.history(p.memory_id, user_id=U)[-1]
    assert (last.event, last.actor) == (HistoryEvent.CONSENT, "admin:ops")
    assert "rejected" in (last.reason or "") and "the user never moved" in (last.reason or "")
    assert (
        mem.proposals.list(user_id=U) == []
        and mem.proposals.get(p.id, user_id=U).status is ProposalStatus.REJECTED
    )


def test_pending_proposals_expire_after_seven_days_on_the_clock(mem: Memory) -> None:
    now = utcnow()
    p = moved(mem, now - 2 * MIN)
    mem.run_tasks(at=now + 6 * DAY)  # seeds the consent task; nothing is due yet
    assert [x.id for x in mem.proposals.list(user_id=U, at=now + 6 * DAY)] == [p.id]
    assert mem.proposals.get(p.id, user_id=U).status is ProposalStatus.PENDING

    late = now + 7 * DAY + 2 * MIN  # past expiry, before the task ran: no longer open
    assert mem.proposals.list(user_id=U, at=late) == []
    before = stored(mem)
    with pytest.raises(ConflictError, match="expired"):
        mem.proposals.accept(p.id, user_id=U, actor="user:maya", at=late)
    assert stored(mem) == before

    assert mem.run_tasks(at=now + 8 * DAY) == 1
    closed = mem.proposals.get(p.id, user_id=U)
    assert (closed.status, closed.decided_by) == (ProposalStatus.EXPIRED, "system:consent")
    assert events_of(mem, p.memory_id)[-1] == (HistoryEvent.CONSENT, "system:consent")
    assert active(mem) == ["User lives in Porto."]
    done = [
        j
        for j in mem.backend.jobs.list_jobs(limit=100)
        if j.kind == "task.consent" and j.status.value == "done"
    ]
    assert [j.payload["expired"] for j in done] == [1]


@pytest.mark.parametrize(
    ("mode", "first", "second", "field"),
    [
        (
            "facts",
            "User prefers feminine pronouns (she/her).",
            "User prefers neutral pronouns (they/them).",
            "pronouns",
        ),
        ("facts", "User lives in Porto.", "User lives in Lisbon.", "city"),
        ("chat", "Call me Annie.", "Actually, call me Bea.", "preferred_name"),
        ("chat", "My native language is Portuguese.", "I grew up speaking Spanish.", "language"),
    ],
)
def test_each_sensitive_field_waits_in_either_mode(
    mem: Memory, mode: str, first: str, second: str, field: str
) -> None:
    t0 = ago()
    if mode == "facts":
        key = {"pronouns": "profile:pronouns", "city": "profile:residence:city"}[field]
        for n, summary in enumerate((first, second)):
            mem.add_facts(
                [{"summary": summary, "key": key, "category": "Personal"}],
                user_id=U,
                at=t0 + n * MIN,
                wait=True,
            )
    else:
        say(mem, first, t0)
        say(mem, second, t0 + MIN)
    (p,) = mem.proposals.list(user_id=U)
    assert p.field == field and p.sensitive
    assert [r.id for r in mem.list(user_id=U)] == [p.memory_id]  # the first statement, as stored
    assert mem.get(p.memory_id, user_id=U).summary == p.current


def test_consent_off_restores_the_immediate_supersede(location: str) -> None:
    with open_mem(location, memory_consent_fields=[], memory_consent_benign_fields=[]) as mem:
        t0 = ago()
        say(mem, "I live in Porto.", t0)
        say(mem, "I moved to Lisbon.", t0 + MIN)
        assert active(mem) == ["User lives in Lisbon."]
        assert mem.proposals.list(user_id=U, status=None) == []
        assert any(
            r.state is MemoryState.SUPERSEDED and "Porto" in r.summary
            for r in mem.list(user_id=U, include_inactive=True)
        )


def test_a_new_value_replaces_the_pending_one_and_a_repeat_only_counts_a_signal(mem: Memory) -> None:
    t0 = ago()
    first = moved(mem, t0)
    say(mem, "I moved to Lisbon.", t0 + 2 * MIN)  # the same value again: a signal, never a decision
    (again,) = mem.proposals.list(user_id=U)
    assert (again.id, again.signals, again.status) == (first.id, 2, ProposalStatus.PENDING)
    assert active(mem) == ["User lives in Porto."]

    say(mem, "I moved to Berlin.", t0 + 3 * MIN)
    (berlin,) = mem.proposals.list(user_id=U)
    assert berlin.candidate.summary == "User lives in Berlin." and berlin.current == "User lives in Porto."
    replaced = mem.proposals.get(first.id, user_id=U)
    assert (replaced.status, replaced.decided_by) == (ProposalStatus.REPLACED, "system:consent")
    assert berlin.id in (replaced.note or "")
    mem.proposals.accept(berlin.id, user_id=U, actor="user:maya")
    assert active(mem) == ["User lives in Berlin."]


def test_a_statement_closes_proposals_that_went_stale_or_expired(mem: Memory) -> None:
    t0 = ago()
    first = moved(mem, t0)
    mem.put(
        "User lives in Faro.", user_id=U, key="profile:residence:city", actor="user:maya"
    )  # an explicit edit
    say(
        mem, "I moved to Lisbon.", t0 + 2 * MIN
    )  # the same words, but Porto is no longer what it would change
    (second,) = mem.proposals.list(user_id=U)
    assert second.id != first.id and (second.current, second.signals) == ("User lives in Faro.", 1)
    assert mem.proposals.get(first.id, user_id=U).status is ProposalStatus.REPLACED

    later = second.expires_at + MIN  # a statement made after the proposal expired, before the task ran
    say(mem, "I moved to Berlin.", later)
    assert mem.proposals.get(second.id, user_id=U).status is ProposalStatus.EXPIRED
    (third,) = mem.proposals.list(user_id=U, at=later)
    assert third.candidate.summary == "User lives in Berlin." and third.expires_at == later + 7 * DAY
    assert active(mem) == ["User lives in Faro."]


def test_a_benign_change_applies_once_two_statements_corroborate_it(mem: Memory) -> None:
    t0 = ago()
    say(mem, "Please keep your answers short.", t0)  # a first statement applies
    say(mem, "I'd rather get long detailed answers.", t0 + MIN)
    (p,) = mem.proposals.list(user_id=U)
    assert (p.field, p.sensitive, p.signals) == ("tone", False, 1)
    assert active(mem) == ["User prefers short replies."]

    say(mem, "I'd rather get long detailed answers.", t0 + 2 * MIN)  # a second, separate statement
    assert active(mem) == ["User prefers long detailed answers."]
    done = mem.proposals.get(p.id, user_id=U)
    assert (done.status, done.decided_by, done.signals) == (ProposalStatus.ACCEPTED, "system:consent", 2)
    history = mem.history(p.memory_id, user_id=U)
    supersede = [h for h in history if h.event is HistoryEvent.SUPERSEDE]
    assert supersede and "corroborated by 2 statements" in (supersede[-1].reason or "")
    assert history[-1].event is HistoryEvent.CONSENT and history[-1].actor == "system:consent"


def test_with_one_signal_enough_a_benign_change_applies_at_once(location: str) -> None:
    with open_mem(location, memory_consent_signals=1) as mem:
        t0 = ago()
        say(mem, "Please keep your answers short.", t0)
        say(mem, "I'd rather get long detailed answers.", t0 + MIN)
        assert active(mem) == ["User prefers long detailed answers."]
        assert mem.proposals.list(user_id=U, status=None) == []


def test_accepting_after_the_memory_changed_is_refused_and_changes_nothing(mem: Memory) -> None:
    p = moved(mem, ago())
    mem.put(
        "User lives in Faro.", user_id=U, key="profile:residence:city", actor="user:maya"
    )  # an explicit edit
    before = stored(mem)
    with pytest.raises(ConflictError, match="changed since proposal"):
        mem.proposals.accept(p.id, user_id=U, actor="user:maya")
    assert stored(mem) == before
    mem.proposals.reject(p.id, user_id=U, actor="user:maya")  # what the error suggests works
    assert active(mem) == ["User lives in Faro."]


def test_bad_input_gets_a_typed_error_and_changes_nothing(mem: Memory) -> None:
    p = moved(mem, ago())
    moved(mem, ago(), user=OTHER)
    before, other = stored(mem), stored(mem, OTHER)
    with pytest.raises(NotFoundError, match="no proposal 'nope' for user 'maya'"):
        mem.proposals.accept("nope", user_id=U, actor="user:maya")
    with pytest.raises(NotFoundError):  # another user's proposal does not exist for this user
        mem.proposals.accept(p.id, user_id=OTHER, actor="user:lena")
    with pytest.raises(NotFoundError):
        mem.proposals.get(p.id, user_id=OTHER)
    assert p.id not in [x.id for x in mem.proposals.list(user_id=OTHER, status=None)]
    for call, match in [
        (lambda: mem.proposals.reject("", user_id=U), "proposal_id"),
        (lambda: mem.proposals.reject(None, user_id=U), "proposal_id is required"),  # type: ignore[arg-type]
        (lambda: mem.proposals.accept(p.id, user_id="", actor="x"), "invalid user_id"),
        (lambda: mem.proposals.accept(p.id, user_id=U, actor=""), "actor"),
        (lambda: mem.proposals.reject(p.id, user_id=U, reason="x" * 1001), "reason"),
        (lambda: mem.proposals.accept(p.id, user_id=U, at="yesterday"), "ISO-8601"),
        (lambda: mem.proposals.list(user_id=U, status="open"), "unknown proposal status 'open'"),
        (lambda: mem.proposals.list(user_id=U, limit=0), "limit"),
    ]:
        with pytest.raises(ValidationError, match=match):
            call()
    assert stored(mem) == before and stored(mem, OTHER) == other


def test_a_decision_is_written_once_and_a_refused_batch_writes_nothing(mem: Memory) -> None:
    p = moved(mem, ago())
    b, now = mem.backend, utcnow()
    b.apply(WriteBatch(proposals=[p.model_copy(update={"signals": 5})]))  # pending: may change
    rejected = p.decided(ProposalStatus.REJECTED, "admin:ops", None, now)
    b.apply(WriteBatch(proposals=[rejected]))
    extra = MemoryRecord(id="extra", user_id=U, summary="User has a kayak.", created_at=now, updated_at=now)
    for late in (
        rejected.decided(ProposalStatus.ACCEPTED, "user:maya", None, now),
        p.model_copy(update={"user_id": OTHER, "status": ProposalStatus.ACCEPTED}),
    ):
        with pytest.raises(ConflictError, match="already decided"):
            b.apply(WriteBatch(upserts=[Upsert(extra)], proposals=[late]))
    assert b.memories.get(U, "extra") is None  # the whole batch rolled back
    assert b.proposals.get_proposal(U, p.id) == rejected and b.proposals.get_proposal(OTHER, p.id) is None
    assert b.proposals.proposals(OTHER, ProposalFilter(), limit=10) == []


def test_two_deciders_at_once_decide_once(mem: Memory) -> None:
    p = moved(mem, ago())
    outcomes: list[str] = []

    def decide(call: Any, actor: str) -> None:
        try:
            outcomes.append(call(p.id, user_id=U, actor=actor).status.value)
        except ConflictError:
            outcomes.append("refused")

    threads = [
        threading.Thread(target=decide, args=(mem.proposals.accept, "user:maya")),
        threading.Thread(target=decide, args=(mem.proposals.reject, "admin:ops")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(outcomes) in (["accepted", "refused"], ["refused", "rejected"])
    consents = [h for h in mem.history(p.memory_id, user_id=U) if h.event is HistoryEvent.CONSENT]
    assert len(consents) == 1 and mem.proposals.get(p.id, user_id=U).status.value in outcomes


def test_purge_and_delete_user_forget_proposals(mem: Memory) -> None:
    p = moved(mem, ago())
    moved(mem, ago(), user=OTHER)
    mem.purge(p.memory_id, user_id=U, actor="user:maya")
    assert mem.proposals.list(user_id=U, status=None) == []
    assert not [c for c in mem.backend.changes.changes_after(U, 0, limit=1000) if "Lisbon" in str(c.meta)]
    assert len(mem.proposals.list(user_id=OTHER)) == 1
    mem.delete_user(OTHER)
    assert mem.backend.proposals.proposals(OTHER, ProposalFilter(), limit=10) == []
