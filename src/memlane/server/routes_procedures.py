"""REST under ``/v1/memory/procedures``: save, list and fetch the user's procedures.
Agents read them through ``POST /v1/memory/query`` with an allowlist that has ``procedural``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query

from memlane.model.record import MemoryRecord
from memlane.server.auth import User
from memlane.server.errors import error_responses
from memlane.server.fields import PATH_NAME
from memlane.server.schemas import ListedMemory, ListResponse, ProcedureRequest
from memlane.server.state import ServerState, get_state

router = APIRouter(prefix="/v1/memory/procedures", tags=["procedures"])
ERRORS = error_responses(400, 401, 403, 413, 422, 429, 503)
State = Annotated[ServerState, Depends(get_state)]
ProcedureName = Annotated[
    str, Path(min_length=1, max_length=120, pattern=PATH_NAME, description="The procedure's name.")
]


@router.post(
    "",
    response_model=MemoryRecord,
    responses=ERRORS,
    summary="Save a procedure (replaces one of the same name)",
)
def save(body: ProcedureRequest, user: User, state: State) -> MemoryRecord:
    fields = body.model_dump(exclude_unset=True, exclude={"name", "steps"})
    return state.memory.procedures.add(body.name, body.steps, user_id=user, actor="api", **fields)


@router.get("", response_model=ListResponse, responses=ERRORS, summary="The user's procedures")
def list_procedures(
    user: User, state: State, limit: Annotated[int, Query(ge=1, le=1000)] = 100
) -> ListResponse:
    rows = state.memory.procedures.list(user_id=user, limit=limit)
    return ListResponse(memories=ListedMemory.of(rows, user), limit=limit, offset=0)


@router.get(
    "/{name}",
    response_model=MemoryRecord,
    responses={**ERRORS, **error_responses(404)},
    summary="One procedure by name",
)
def get(name: ProcedureName, user: User, state: State) -> MemoryRecord:
    return state.memory.procedures.get(name, user_id=user)
