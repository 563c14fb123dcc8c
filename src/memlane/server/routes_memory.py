"""REST under ``/v1/memory``: formation, put/get/list/search, query, context, update, delete, restore,
retype (and the misfiled memories to retype), purge, history, jobs, and export / deletion of everything a user has. Every route acts for exactly
one user (see :mod:`memlane.server.auth`); the engine scopes every read and write to that user."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Header, Path, Query
from fastapi.responses import JSONResponse, StreamingResponse

from memlane.engine.memory import Memory
from memlane.model.category import category_notice
from memlane.model.enums import MemoryState, MemoryType
from memlane.model.jobs import JobStatus, Pending
from memlane.model.record import MemoryRecord
from memlane.model.retrieval import ContextBlock, QueryResult
from memlane.server.auth import User
from memlane.server.chat_header import ChatIdHeader, chat_or
from memlane.server.errors import ApiError, error_responses
from memlane.server.fields import NO_NUL
from memlane.server.filters import as_engine_filters
from memlane.server.schemas import (
    ContextRequest,
    DeleteUserResponse,
    FactsRequest,
    FormationResponse,
    HistoryResponse,
    JobsResponse,
    ListedMemory,
    ListRequest,
    ListResponse,
    MisfiledResponse,
    PurgeResponse,
    PutRequest,
    QueryRequest,
    ReasonRequest,
    RetryJobsRequest,
    RetryJobsResponse,
    RetypeRequest,
    SearchRequest,
    SearchResponse,
    StoredMemory,
    TurnRequest,
    UpdateRequest,
)
from memlane.server.state import ServerState, get_state

router = APIRouter(prefix="/v1/memory", tags=["memory"])
ERRORS = error_responses(400, 401, 403, 413, 422, 429, 502, 503)
ONE = {**ERRORS, **error_responses(404)}
State = Annotated[ServerState, Depends(get_state)]
# no "%": ids memlane makes never hold one, and a raw "%0C" in a path decodes to a control character
MemoryId = Annotated[
    str, Path(min_length=1, max_length=256, pattern=r"^[^\x00-\x1f\x7f%]+$", description="Memory id.")
]
ACTOR = "api"


def _mem(state: ServerState) -> Memory:
    return state.memory


def fits(state: ServerState, *summaries: str | None) -> None:
    """``MEMORY_SUMMARY_MAX_CHARS`` (the OpenAPI document states the configured value)."""
    limit = state.settings.memory_summary_max_chars
    for n, summary in enumerate(summaries):
        if summary is not None and len(summary) > limit:
            raise ApiError(
                422,
                "invalid_request",
                f"summary #{n + 1} is {len(summary)} characters, over MEMORY_SUMMARY_MAX_CHARS ({limit})",
            )


WAITED = (
    "Formation ran to the end (wait=true). When it could not (the LLM is unavailable, or it took longer "
    "than MEMLANE_WAIT_TIMEOUT_S), the answer is 202 with pending=true and the reason: the turn is kept "
    "and formed in the background"
)


def _formation(body_wait: bool, reason: Pending | None, **fields: Any) -> JSONResponse:
    """200 when the caller waited and formation finished; 202 while it goes on in the background."""
    done = body_wait and reason is None
    out = FormationResponse(waited=done, pending=reason is not None, reason=reason, **fields)
    return JSONResponse(out.model_dump(mode="json"), status_code=200 if done else 202)


@router.post(
    "/turns",
    response_model=FormationResponse,
    status_code=202,
    responses={**ERRORS, 200: {"model": FormationResponse, "description": WAITED}},
    summary="Add a chat turn (runs formation)",
)
def add_turn(body: TurnRequest, user: User, state: State, chat: ChatIdHeader = None) -> Any:
    """The turn is a committed job before this returns; candidates come back at once (and as
    ``memory.candidate`` events); dedup, merge and supersede decisions run in the background. With a
    remote LLM (MEMLANE_LLM=openai or bedrock) and no wait, nothing waits for the LLM here: the worker
    extracts the turn and its candidates come as events."""
    messages = (
        body.messages
        if isinstance(body.messages, str)
        else [m.model_dump(exclude_none=True) for m in body.messages]
    )
    mem = _mem(state)
    turn_id, cands = mem.add_turn(
        messages,
        user_id=user,
        thread_id=chat_or(body.thread_id, chat, "thread_id"),
        at=body.at,
        wait=body.wait,
    )
    reason = mem.jobs.pending([turn_id], user_id=user, waited=body.wait)
    return _formation(
        body.wait,
        reason,
        candidates=cands,
        turn_id=turn_id,
        decisions=mem.jobs.outcomes(turn_id, user_id=user) if body.wait else [],
    )


@router.post(
    "/facts",
    response_model=FormationResponse,
    status_code=202,
    responses={**ERRORS, 200: {"model": FormationResponse, "description": WAITED}},
    summary="Add ready candidate memories (decision only)",
)
def add_facts(body: FactsRequest, user: User, state: State, chat: ChatIdHeader = None) -> Any:
    fits(state, *(f.summary for f in body.facts))
    facts = [f.model_dump() for f in body.facts]
    mem = _mem(state)
    jobs, cands = mem.add_fact_jobs(
        facts, user_id=user, thread_id=chat_or(body.thread_id, chat, "thread_id"), at=body.at, wait=body.wait
    )
    return _formation(
        body.wait,
        mem.jobs.pending(jobs, user_id=user, waited=body.wait),
        candidates=cands,
        decisions=mem.jobs.outcomes(jobs, user_id=user) if body.wait else [],
    )


IdempotencyKey = Annotated[
    str | None,
    Header(
        min_length=1,
        max_length=255,
        pattern=r"^[!-~]([ -~]*[!-~])?$",
        description="Retry key for a put without `key`: a retried request with the same key returns the memory "
        "the first one stored (409 if the key was used for another summary)",
    ),
]


def stored(state: ServerState, record: MemoryRecord, category: str | None) -> StoredMemory:
    notice = category_notice(category, state.settings.categories)
    return StoredMemory(**record.model_dump(), warnings=[notice] if notice else [])


@router.post(
    "",
    response_model=StoredMemory,
    responses={**ERRORS, **error_responses(409)},
    summary="Store a memory (put)",
)
def put(body: PutRequest, user: User, state: State, idempotency_key: IdempotencyKey = None) -> StoredMemory:
    fits(state, body.summary)
    fields = body.model_dump(exclude_unset=True)
    summary = fields.pop("summary")
    if idempotency_key is not None:
        fields["idempotency_key"] = idempotency_key
    return stored(state, _mem(state).put(summary, user_id=user, actor=ACTOR, **fields), body.category)


@router.get("", response_model=ListResponse, responses=ERRORS, summary="List memories")
def list_memories(
    user: User,
    state: State,
    type: Annotated[MemoryType | None, Query(description="Only this memory type.")] = None,
    category: Annotated[str | None, Query(max_length=128, pattern=NO_NUL)] = None,
    memory_state: Annotated[MemoryState | None, Query(alias="state")] = None,
    key: Annotated[str | None, Query(max_length=256, pattern=NO_NUL)] = None,
    thread_id: Annotated[str | None, Query(max_length=256, pattern=NO_NUL)] = None,
    pinned: bool | None = None,
    limit: Annotated[int, Query(ge=1, le=10_000)] = 100,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
    include_inactive: bool = False,
) -> ListResponse:
    """Newest first. For the full filter language (operators, dates, tags) POST /v1/memory/list."""
    given = {
        "type": type,
        "category": category,
        "state": memory_state,
        "key": key,
        "thread_id": thread_id,
        "pinned": pinned,
    }
    filters = {k: v for k, v in given.items() if v is not None}
    rows = _mem(state).list(
        user_id=user, filters=filters or None, limit=limit, offset=offset, include_inactive=include_inactive
    )
    return ListResponse(memories=ListedMemory.of(rows, user), limit=limit, offset=offset)


@router.post("/list", response_model=ListResponse, responses=ERRORS, summary="List memories matching filters")
def list_filtered(body: ListRequest, user: User, state: State) -> ListResponse:
    rows = _mem(state).list(
        user_id=user,
        filters=as_engine_filters(body.filters),
        limit=body.limit,
        offset=body.offset,
        include_inactive=body.include_inactive,
    )
    return ListResponse(memories=ListedMemory.of(rows, user), limit=body.limit, offset=body.offset)


@router.delete(
    "", response_model=DeleteUserResponse, responses=ERRORS, summary="Delete everything of the user"
)
def delete_user(
    user: User,
    state: State,
    confirm: Annotated[
        bool, Query(description="Must be true: this cannot be undone.", json_schema_extra={"enum": [True]})
    ],
) -> DeleteUserResponse:
    if not confirm:
        raise ApiError(422, "invalid_request", "deleting every memory of a user needs confirm=true")
    return DeleteUserResponse(user_id=user, deleted=_mem(state).delete_user(user))


@router.get(
    "/export",
    response_class=StreamingResponse,
    responses={
        **ERRORS,
        200: {
            "description": "One JSON object a line, tagged kind = memory | relation | history",
            "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
        },
    },
    summary="Export everything of the user (JSON lines)",
)
def export_user(user: User, state: State) -> StreamingResponse:
    rows = _mem(state).export_user(user)

    def lines() -> Iterator[bytes]:
        for row in rows:
            yield (json.dumps(row, ensure_ascii=False, default=str) + "\n").encode()

    return StreamingResponse(
        lines(),
        media_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="{user}.jsonl"'},
    )


@router.post("/search", response_model=SearchResponse, responses=ERRORS, summary="Search memories")
def search(body: SearchRequest, user: User, state: State) -> SearchResponse:
    hits = _mem(state).search(
        body.query,
        user_id=user,
        filters=as_engine_filters(body.filters),
        limit=body.limit,
        offset=body.offset,
        threshold=body.threshold,
        include_inactive=body.include_inactive,
        at=body.at,
        preset=body.preset,
    )
    return SearchResponse(results=hits)


@router.post(
    "/query",
    response_model=QueryResult,
    responses=ERRORS,
    summary="memory.query: an agent's search within its category allowlist",
)
def query(body: QueryRequest, user: User, state: State) -> QueryResult:
    return _mem(state).query(
        body.query,
        user_id=user,
        agent=body.agent,
        categories=body.categories,
        filters=as_engine_filters(body.filters),
        top_k=body.top_k,
        return_=body.return_,
        budget_tokens=body.budget_tokens,
        threshold=body.threshold,
        at=body.at,
        preset=body.preset,
    )


@router.post(
    "/context", response_model=ContextBlock, responses=ERRORS, summary="The context block for a turn"
)
def context(body: ContextRequest, user: User, state: State, chat: ChatIdHeader = None) -> ContextBlock:
    return _mem(state).context(
        body.query,
        user_id=user,
        thread_id=chat_or(body.thread_id, chat, "thread_id"),
        chat_id=chat_or(body.chat_id, chat, "chat_id"),
        since_rev=body.since_rev,
        budget_tokens=body.budget_tokens,
        agent=body.agent,
        at=body.at,
        preset=body.preset,
    )


@router.get("/jobs", response_model=JobsResponse, responses=ERRORS, summary="The user's formation jobs")
def jobs(
    user: User,
    state: State,
    status: JobStatus | None = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> JobsResponse:
    return JobsResponse(
        jobs=_mem(state).jobs.list(None if status is None else status.value, user_id=user, limit=limit)
    )


@router.post("/jobs/retry", response_model=RetryJobsResponse, responses=ERRORS, summary="Retry parked jobs")
def retry_jobs(
    user: User, state: State, body: Annotated[RetryJobsRequest | None, Body()] = None
) -> RetryJobsResponse:
    """Put the user's parked jobs (those of ``job_ids``, or all) back in the queue, their attempts
    starting again; the worker forms them. Jobs that are not parked are left as they are."""
    ids = None if body is None else body.job_ids
    return RetryJobsResponse(retried=_mem(state).jobs.retry_many(ids, user_id=user))


@router.get(
    "/misfiled",
    response_model=MisfiledResponse,
    responses=ERRORS,
    summary="Memories whose type looks wrong (an episodic one with a key, a semantic one dated 'yesterday')",
)
def misfiled(user: User, state: State, limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> MisfiledResponse:
    return MisfiledResponse(misfiled=_mem(state).misfiled(user_id=user, limit=limit))


@router.get("/{memory_id}", response_model=MemoryRecord, responses=ONE, summary="Get a memory")
def get(memory_id: MemoryId, user: User, state: State) -> MemoryRecord:
    return _mem(state).get(memory_id, user_id=user)


@router.patch("/{memory_id}", response_model=StoredMemory, responses=ONE, summary="Update a memory")
def update(memory_id: MemoryId, body: UpdateRequest, user: User, state: State) -> StoredMemory:
    fits(state, body.summary)
    changes = body.model_dump(exclude_unset=True)
    reason = changes.pop("reason", None)
    record = _mem(state).update(memory_id, user_id=user, actor=ACTOR, reason=reason, **changes)
    return stored(state, record, body.category)


@router.delete("/{memory_id}", response_model=MemoryRecord, responses=ONE, summary="Soft-delete a memory")
def delete(
    memory_id: MemoryId,
    user: User,
    state: State,
    reason: Annotated[str | None, Query(max_length=1000, pattern=NO_NUL)] = None,
) -> MemoryRecord:
    return _mem(state).delete(memory_id, user_id=user, actor=ACTOR, reason=reason)


@router.post("/{memory_id}/restore", response_model=MemoryRecord, responses=ONE, summary="Restore a memory")
def restore(
    memory_id: MemoryId, user: User, state: State, body: Annotated[ReasonRequest | None, Body()] = None
) -> MemoryRecord:
    return _mem(state).restore(memory_id, user_id=user, actor=ACTOR, reason=body.reason if body else None)


@router.post(
    "/{memory_id}/retype",
    response_model=MemoryRecord,
    responses={**ONE, **error_responses(409)},
    summary="Move a memory filed under the wrong type (semantic <-> episodic), with history",
)
def retype(memory_id: MemoryId, body: RetypeRequest, user: User, state: State) -> MemoryRecord:
    """A keyed memory moves to its key's id under the new type: use the returned id."""
    return _mem(state).retype(memory_id, user_id=user, type=body.type, actor=ACTOR, reason=body.reason)


@router.post(
    "/{memory_id}/purge", response_model=PurgeResponse, responses=ONE, summary="Purge a memory for good"
)
def purge(
    memory_id: MemoryId, user: User, state: State, body: Annotated[ReasonRequest | None, Body()] = None
) -> PurgeResponse:
    _mem(state).purge(memory_id, user_id=user, actor=ACTOR, reason=body.reason if body else None)
    return PurgeResponse(id=memory_id)


@router.get(
    "/{memory_id}/history",
    response_model=HistoryResponse,
    responses=ONE,
    summary="The memory's audit history: every write with old and new value, reason and actor",
)
def history(
    memory_id: MemoryId, user: User, state: State, limit: Annotated[int, Query(ge=1, le=10_000)] = 100
) -> HistoryResponse:
    return HistoryResponse(
        memory_id=memory_id, history=_mem(state).history(memory_id, user_id=user, limit=limit)
    )
