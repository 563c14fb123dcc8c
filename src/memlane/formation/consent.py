"""Consent in formation (model/consent.py): a change to a consent field is held.

When a decision would supersede a memory of a consent field (the keyed memory, the candidate or a
memory it also closes carries one of the field's keys), nothing changes in memory: a proposal is
written instead, in the same transaction as the candidate job's completion.

- Sensitive field: the proposal waits for the user or an admin (formation/consent_decide.py) until it
  expires. The same value said again counts another signal; it never applies by itself.
- Benign field: the change applies, with the proposal marked accepted by ``system:consent``, once
  ``MEMORY_CONSENT_SIGNALS`` separate statements (candidate jobs) of the same value - the same summary
  up to case and punctuation - have been seen.
- Another value for the same memory replaces the pending proposal (status ``replaced``), and so does
  any statement once the memory changed since the proposal was made; one past its expiry closes as
  ``expired`` (the consent lifecycle task closes those no statement touches).

Only changes are held: the first statement of a field (nothing stored yet) is a create and applies,
and restating the stored value is a merge.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from memlane.formation.apply import Context, Planned
from memlane.formation.decide import Decision
from memlane.formation.records import record_from_candidate
from memlane.formation.text import normalise
from memlane.ledger.mutations import Mutation
from memlane.model.candidate import Candidate
from memlane.model.config import Settings
from memlane.model.consent import Proposal, ProposalStatus
from memlane.model.ids import new_id
from memlane.model.jobs import OpEvent
from memlane.model.record import MemoryRecord, utcnow

SYSTEM = "system:consent"


@dataclass(frozen=True)
class Gate:
    proposal: Proposal  # pending (held), or accepted (corroborated: the change applies with it)
    closed: tuple[Proposal, ...] = ()  # the memory's other pending proposals: replaced or expired

    @property
    def applies(self) -> bool:
        return self.proposal.status is ProposalStatus.ACCEPTED


def field_for(settings: Settings, cand: Candidate, d: Decision) -> tuple[str, bool] | None:
    """The consent field ``d`` would change and whether it is sensitive; None when ``d`` applies as usual."""
    if d.action != "supersede" or d.target is None:
        return None
    policy = settings.consent
    found = policy.field_of([d.target.key, cand.key, *(o.key for o in d.also)])
    if found is not None and not found[1] and policy.signals <= 1:
        return None  # a benign field that needs no corroboration
    return found


def gate(
    field: tuple[str, bool],
    cand: Candidate,
    d: Decision,
    pending: list[Proposal],
    ctx: Context,
    settings: Settings,
) -> Gate:
    """What to write for a change of ``field``, given the memory's pending proposals."""
    target = d.target
    assert target is not None
    name, sensitive = field
    now = max(ctx.at, utcnow())
    same = next(
        (
            p
            for p in pending
            if p.expires_at > now
            and p.current == target.summary
            and normalise(p.candidate.summary) == normalise(cand.summary)
        ),
        None,
    )
    if same is not None:
        p = same.model_copy(update={"signals": same.signals + 1})
    else:
        p = Proposal(
            id=new_id(),
            user_id=ctx.user_id,
            thread_id=ctx.thread_id,
            field=name,
            sensitive=sensitive,
            memory_id=target.id,
            current=target.summary,
            candidate=cand,
            observed_at=ctx.at,
            reason=d.reason,
            also=[o.id for o in d.also],
            created_at=ctx.at,
            expires_at=now + timedelta(days=settings.memory_consent_ttl_days),
        )
    closed = tuple(
        expired(o, ctx.at)
        if o.expires_at <= now
        else o.decided(ProposalStatus.REPLACED, SYSTEM, f"replaced by proposal {p.id}", ctx.at)
        for o in pending
        if o.id != p.id
    )
    if not sensitive and p.signals >= settings.memory_consent_signals:
        p = p.decided(ProposalStatus.ACCEPTED, SYSTEM, f"corroborated by {p.signals} statements", ctx.at)
    return Gate(p, closed)


def expired(p: Proposal, at: datetime) -> Proposal:
    return p.decided(ProposalStatus.EXPIRED, SYSTEM, f"no decision by {p.expires_at:%Y-%m-%d %H:%M} UTC", at)


def why(p: Proposal) -> str:
    """The history reason of a decision on ``p``."""
    return f"{p.status.value} proposal {p.id} ({p.field}) by {p.decided_by}" + (
        f": {p.note}" if p.note else ""
    )


def record(m: Mutation, g: Gate, target: MemoryRecord, proposed: MemoryRecord | None = None) -> None:
    """The gate's proposal rows, with their history and change rows."""
    for old in g.closed:
        m.consent(old, why(old))
    p = g.proposal
    if g.applies:
        m.consent(p, why(p))
    else:
        kind = "sensitive field, waits for consent" if p.sensitive else f"{p.signals} signal(s) so far"
        m.consent(p, f"proposal {p.id} ({p.field}; {kind}): {p.reason}", target, proposed)


def hold(ctx: Context, cand: Candidate, g: Gate, target: MemoryRecord) -> Planned:
    """The writes of a held change: the proposal, nothing else of the memory."""
    m = Mutation(actor=ctx.actor, thread_id=ctx.thread_id, at=ctx.at)
    proposed = record_from_candidate(
        cand,
        user_id=ctx.user_id,
        thread_id=ctx.thread_id,
        at=ctx.at,
        categories=ctx.categories,
        tz=ctx.tz,
        memory_id=target.id,
    )
    record(m, g, target, proposed)
    m.batch.op_events.append(
        OpEvent(
            id=new_id(),
            user_id=ctx.user_id,
            thread_id=ctx.thread_id,
            node="worker",
            op="propose",
            status="skipped",
            memory_id=target.id,
            category=target.category,
            at=ctx.at,
        )
    )
    return Planned(m, target.id, "propose")
