"""Consent under ``/v1/memory/proposals`` (docs/consent.md): the user's proposed changes to
sensitive fields, and their acceptance or rejection. A key bound to a user decides that user's
proposals; an admin key decides those of the user it names. The decider is recorded as ``user:<id>``
or ``admin:<key name>`` in the memory's history."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Body, Depends, Path, Query

from memlane.model.consent import Proposal
from memlane.server.auth import Caller, Principal, User
from memlane.server.errors import error_responses
from memlane.server.fields import PATH_ID
from memlane.server.schemas import ProposalsResponse, ReasonRequest
from memlane.server.state import ServerState, get_state

router = APIRouter(prefix="/v1/memory/proposals", tags=["consent"])
ERRORS = error_responses(400, 401, 403, 413, 422, 503)
ONE = {**ERRORS, **error_responses(404)}
DECIDE = {**ONE, **error_responses(409)}
State = Annotated[ServerState, Depends(get_state)]
ProposalId = Annotated[str, Path(min_length=1, max_length=256, pattern=PATH_ID, description="Proposal id.")]
Decision = Annotated[ReasonRequest | None, Body()]


def _actor(who: Principal, user: str) -> str:
    return f"user:{user}" if who.user is not None else f"admin:{who.name}"


@router.get("", response_model=ProposalsResponse, responses=ERRORS, summary="The user's proposed changes")
def proposals(
    user: User,
    state: State,
    status: Annotated[
        Literal["pending", "accepted", "rejected", "expired", "replaced", "all"],
        Query(description="pending (default): those still open; all: every proposal"),
    ] = "pending",
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> ProposalsResponse:
    found = state.memory.proposals.list(user_id=user, status=None if status == "all" else status, limit=limit)
    return ProposalsResponse(proposals=found)


@router.get("/{proposal_id}", response_model=Proposal, responses=ONE, summary="A proposed change")
def proposal(proposal_id: ProposalId, user: User, state: State) -> Proposal:
    return state.memory.proposals.get(proposal_id, user_id=user)


@router.post(
    "/{proposal_id}/accept",
    response_model=Proposal,
    responses=DECIDE,
    summary="Accept a proposed change (the memory is superseded)",
)
def accept(proposal_id: ProposalId, user: User, who: Caller, state: State, body: Decision = None) -> Proposal:
    return state.memory.proposals.accept(
        proposal_id, user_id=user, actor=_actor(who, user), reason=body.reason if body else None
    )


@router.post(
    "/{proposal_id}/reject",
    response_model=Proposal,
    responses=DECIDE,
    summary="Reject a proposed change (the memory stays)",
)
def reject(proposal_id: ProposalId, user: User, who: Caller, state: State, body: Decision = None) -> Proposal:
    return state.memory.proposals.reject(
        proposal_id, user_id=user, actor=_actor(who, user), reason=body.reason if body else None
    )
