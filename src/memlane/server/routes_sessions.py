"""Group-chat sessions under ``/v1/memory/sessions`` (docs/sessions.md): record a chat's
messages, list the user's sessions and a session's messages, forget a session."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Header, Path, Query

from memlane.model.session import ChatSession
from memlane.server.auth import User
from memlane.server.chat_header import CHAT_ID_HEADER, ChatIdHeader, chat_or
from memlane.server.errors import ApiError, error_responses
from memlane.server.fields import NO_NUL, PATH_ID, Name
from memlane.server.schemas import MessagesResponse, RecordMessagesRequest, SessionsResponse
from memlane.server.state import ServerState, get_state

router = APIRouter(prefix="/v1/memory/sessions", tags=["sessions"])
ERRORS = error_responses(400, 401, 403, 413, 422, 503)
State = Annotated[ServerState, Depends(get_state)]
SessionId = Annotated[str, Path(min_length=1, max_length=256, pattern=PATH_ID, description="Session id.")]
IdempotencyKey = Annotated[
    str | None,
    Header(
        min_length=1,
        max_length=255,
        pattern=r"^[!-~]([ -~]*[!-~])?$",
        description="Retry key: a repeated request with the same key (and chat) returns the messages the first one "
        "recorded instead of recording them twice (409 if they differ)",
    ),
]


@router.post(
    "/messages",
    response_model=MessagesResponse,
    status_code=201,
    responses={**ERRORS, **error_responses(409)},
    summary="Record a group chat's messages (each joins its chat's session by its time)",
)
def record(
    body: RecordMessagesRequest,
    user: User,
    state: State,
    chat: ChatIdHeader = None,
    idempotency_key: IdempotencyKey = None,
) -> MessagesResponse:
    chat_id = chat_or(body.chat_id, chat, "chat_id")
    if chat_id is None:
        raise ApiError(
            400, "invalid_request", f"chat_id is required: in the body or the {CHAT_ID_HEADER} header"
        )
    stored = state.memory.sessions.record_messages(
        [m.model_dump() for m in body.messages],
        user_id=user,
        chat_id=chat_id,
        idempotency_key=idempotency_key,
    )
    return MessagesResponse(messages=stored)


@router.get(
    "", response_model=SessionsResponse, responses=ERRORS, summary="The user's chat sessions, oldest first"
)
def sessions(
    user: User,
    state: State,
    chat_id: Annotated[Name | None, Query()] = None,
    status: Annotated[Literal["open", "closed", "summarized", "failed"] | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> SessionsResponse:
    return SessionsResponse(
        sessions=state.memory.sessions.list(user_id=user, chat_id=chat_id, status=status, limit=limit)
    )


@router.get(
    "/{session_id}/messages",
    response_model=MessagesResponse,
    responses=ERRORS,
    summary="A session's messages, oldest first",
)
def messages(
    session_id: SessionId, user: User, state: State, limit: Annotated[int, Query(ge=1, le=10_000)] = 1000
) -> MessagesResponse:
    return MessagesResponse(messages=state.memory.sessions.messages(session_id, user_id=user, limit=limit))


@router.delete(
    "/{session_id}",
    response_model=ChatSession,
    responses={**ERRORS, **error_responses(404)},
    summary="Forget a session: its messages, the session and its summary memory (purged)",
)
def delete(
    session_id: SessionId,
    user: User,
    state: State,
    reason: Annotated[str | None, Query(max_length=1000, pattern=NO_NUL)] = None,
) -> ChatSession:
    """Returns the session as it was. Purging its summary memory (POST /v1/memory/{id}/purge) does the same."""
    return state.memory.sessions.delete(session_id, user_id=user, actor="api", reason=reason)
