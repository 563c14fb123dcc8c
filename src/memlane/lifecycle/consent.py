"""Expiry of consent proposals: a proposal no one decided within
``MEMORY_CONSENT_TTL_DAYS`` closes as ``expired``, the memory unchanged; a ``CONSENT`` history row
(actor ``system:consent``) and a ``memory.proposal_decided`` event record it. Accept and reject refuse
a proposal past its expiry even before this task has run."""

from __future__ import annotations

from datetime import datetime

from memlane.formation.consent import expired, why
from memlane.ledger.mutations import Mutation
from memlane.model.consent import Proposal, ProposalFilter, ProposalStatus
from memlane.storage.base import Backend


def due(backend: Backend, user_id: str, now: datetime, limit: int) -> list[Proposal]:
    return backend.proposals.proposals(
        user_id, ProposalFilter(ProposalStatus.PENDING, expires_before=now), limit=limit
    )


def expire(m: Mutation, backend: Backend, user_id: str, now: datetime, limit: int) -> int:
    """Close the user's pending proposals past their expiry (read under the write lock)."""
    found = due(backend, user_id, now, limit)
    for p in found:
        closed = expired(p, now)
        m.consent(closed, why(closed))
    return len(found)
