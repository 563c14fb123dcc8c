"""REST for shared and global memories (docs/shared-memories.md).

``/v1/memory/{id}/share``, ``/unshare`` and ``/shares`` act for the request's user like every memory
route: only a memory's owner shares it; a user it is shared with may unshare it from themselves.
``/v1/global`` writes and lists the global memories every new user is linked to: an admin key only.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Query

from memlane.model.ids import GLOBAL_USER
from memlane.server.auth import Admin, User
from memlane.server.errors import error_responses
from memlane.server.routes_memory import ACTOR, ERRORS, ONE, MemoryId, State, fits, stored
from memlane.server.schemas import (
    LinksResponse,
    ListedMemory,
    ListResponse,
    PurgeResponse,
    PutRequest,
    ReasonRequest,
    ShareRequest,
    StoredMemory,
    UnshareRequest,
)

router = APIRouter(tags=["sharing"])
ADMIN_ACTOR = "admin"


@router.post(
    "/v1/memory/{memory_id}/share",
    response_model=LinksResponse,
    responses=ONE,
    summary="Share a memory with other users (read-only for them)",
)
def share(memory_id: MemoryId, body: ShareRequest, user: User, state: State) -> LinksResponse:
    links = state.memory.sharing.share(memory_id, user_id=user, with_users=body.with_users, actor=ACTOR)
    return LinksResponse(memory_id=memory_id, links=links)


@router.post(
    "/v1/memory/{memory_id}/unshare",
    response_model=LinksResponse,
    responses=ONE,
    summary="Stop sharing a memory (the owner), or remove a shared memory from one's own",
)
def unshare(
    memory_id: MemoryId, user: User, state: State, body: Annotated[UnshareRequest | None, Body()] = None
) -> LinksResponse:
    given = body or UnshareRequest()
    links = state.memory.sharing.unshare(
        memory_id, user_id=user, from_users=given.from_users, actor=ACTOR, reason=given.reason
    )
    return LinksResponse(memory_id=memory_id, links=links)


@router.get(
    "/v1/memory/{memory_id}/shares",
    response_model=LinksResponse,
    responses=ONE,
    summary="Whom a memory is shared with (the owner sees every link, others their own)",
)
def shares(memory_id: MemoryId, user: User, state: State) -> LinksResponse:
    return LinksResponse(memory_id=memory_id, links=state.memory.sharing.shared_with(memory_id, user_id=user))


@router.post(
    "/v1/global",
    response_model=StoredMemory,
    responses=ERRORS,
    tags=["global"],
    summary="Store a global memory (admin key)",
)
def put_global(body: PutRequest, _: Admin, state: State) -> StoredMemory:
    fits(state, body.summary)
    fields = body.model_dump(exclude_unset=True)
    summary = fields.pop("summary")
    return stored(state, state.memory.sharing.put_global(summary, actor=ADMIN_ACTOR, **fields), body.category)


@router.get(
    "/v1/global",
    response_model=ListResponse,
    responses=ERRORS,
    tags=["global"],
    summary="List the global memories (admin key)",
)
def list_global(
    _: Admin,
    state: State,
    limit: Annotated[int, Query(ge=1, le=10_000)] = 100,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
    include_inactive: bool = False,
) -> ListResponse:
    rows = state.memory.sharing.list_global(limit=limit, offset=offset, include_inactive=include_inactive)
    return ListResponse(memories=ListedMemory.of(rows, GLOBAL_USER), limit=limit, offset=offset)


@router.post(
    "/v1/global/{memory_id}/purge",
    response_model=PurgeResponse,
    responses={**ERRORS, **error_responses(404)},
    tags=["global"],
    summary="Purge a global memory for every user (admin key)",
)
def purge_global(
    memory_id: MemoryId, _: Admin, state: State, body: Annotated[ReasonRequest | None, Body()] = None
) -> PurgeResponse:
    state.memory.sharing.purge_global(memory_id, actor=ADMIN_ACTOR, reason=body.reason if body else None)
    return PurgeResponse(id=memory_id)
