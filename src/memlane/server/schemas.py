"""Request and response bodies of the REST API (``/v1/memory``), with examples for the OpenAPI page.

Every constraint here is one the engine would enforce anyway, stated up front so the document is
exact: a body that fits its schema is accepted (or refused for what the schema cannot know: a memory
that does not exist, an agent's allowlist), and one that does not fit is a 422.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from memlane.model.candidate import Proposed
from memlane.model.consent import Proposal
from memlane.model.enums import MemoryType, Source
from memlane.model.jobs import Job, Outcome, Pending
from memlane.model.link import MemoryLink
from memlane.model.misfiled import Misfiled
from memlane.model.provenance import shared_by
from memlane.model.record import HistoryEntry, MemoryRecord, SearchHit
from memlane.model.session import ChatSession, SessionMessage
from memlane.server.auth import USER_PATTERN
from memlane.server.fields import (
    HAS_LETTER,
    Body,
    Budget,
    Clean,
    Flag,
    Importance,
    Instant,
    JsonObject,
    Key,
    Labels,
    ListLimit,
    ListOffset,
    Name,
    QueryText,
    Reason,
    Revision,
    SearchLimit,
    SearchOffset,
    ShortName,
    Similarity,
    TopK,
)
from memlane.server.filters import Filters


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TurnMessage(Strict):
    role: Literal["user", "assistant", "system", "tool"] = "user"
    content: Body
    at: Instant | None = None
    name: ShortName | None = None


class TurnRequest(Strict):
    """A chat turn to run formation on: committed as a job, its candidates come back at once."""

    messages: Body | Annotated[list[TurnMessage], Field(min_length=1, max_length=50)] = Field(
        description="One user message as text, or the turn's messages."
    )
    thread_id: Name | None = None
    at: Instant | None = Field(None, description="When the turn happened (default: now).")
    wait: Flag = Field(
        False,
        description=(
            "Return once the decisions ran (200), or after MEMLANE_WAIT_TIMEOUT_S or a failed LLM call with "
            "202, pending=true and the reason (the turn is kept and formed in the background)."
        ),
    )

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "messages": [{"role": "user", "content": "I moved to Lisbon and my dog Luna is 3."}],
                    "thread_id": "chat-42",
                },
            ]
        },
    )


class FactIn(Strict):
    """A candidate memory, as an LLM extractor proposes it."""

    summary: Body = Field(description="Third person, 1-2 sentences.")
    type: MemoryType = MemoryType.SEMANTIC
    category: ShortName = "Other"
    importance: Importance = 3
    key: Key | None = Field(None, description="Deterministic slot key such as profile:residence:city")
    tags: Labels = Field(default_factory=list)
    entities: Labels = Field(default_factory=list)
    pinned: Flag = False


class FactsRequest(Strict):
    """Ready candidate memories, through the decision only (dedup, merge, supersede or create)."""

    facts: Annotated[list[FactIn], Field(min_length=1, max_length=20)]
    thread_id: Name | None = None
    at: Instant | None = None
    wait: Flag = False

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "facts": [
                        {"summary": "User prefers aisle seats.", "category": "Personal", "importance": 3}
                    ]
                },
            ]
        },
    )


class FormationResponse(BaseModel):
    candidates: list[Proposed] = Field(
        description="Each with the id of the memory it proposes: GET /v1/memory/{memory_id} reads it at once "
        "(state provisional until decided, then the memory it became)"
    )
    waited: bool = Field(description="True when the decisions already ran; else they run in the background.")
    turn_id: str | None = Field(None, description="The turn's job (POST /turns)")
    decisions: list[Outcome] = Field(
        default_factory=list,
        description=(
            "With wait=true (POST /turns and /facts): what was decided for each candidate and the resulting memory id; "
            "a candidate still pending shows its job's status as the action"
        ),
    )
    pending: bool = Field(
        False,
        description=(
            "True while formation has not finished: it goes on in the background (the turn is kept); `reason` "
            "says why, e.g. llm_unavailable when the LLM failed and the job waits for its retry"
        ),
    )
    reason: Pending | None = Field(None, description="Why formation is pending (null when it is not)")


class PutRequest(Strict):
    """A ready memory. With ``key`` the put is idempotent: the same key updates that memory, changing
    only the fields given."""

    summary: Body
    type: MemoryType = MemoryType.SEMANTIC
    category: ShortName | None = None
    key: Key | None = None
    importance: Importance = 3
    pinned: Flag = False
    tags: Labels | None = None
    entities: Labels | None = None
    source: Source = Source.CHAT
    source_ref: Name | None = None
    valid_from: Instant | None = None
    expires_at: Instant | None = None
    at: Instant | None = None
    metadata: JsonObject | None = None
    agent_id: Name | None = None
    run_id: Name | None = None
    actor_id: Name | None = None
    thread_id: Name | None = None
    chat_id: Name | None = None

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "summary": "User lives in Lisbon.",
                    "category": "Personal",
                    "key": "profile:residence:city",
                    "importance": 4,
                },
            ]
        },
    )


# a letter or digit (any script) among at most 120 characters: what memlane.model.procedure accepts
ProcedureName = Annotated[str, StringConstraints(min_length=1, max_length=120, pattern=HAS_LETTER), Clean]


class ProcedureRequest(Strict):
    """A named workflow: steps as a list, or one text of numbered lines. Saving a name again replaces
    its steps (the old ones stay in history)."""

    name: ProcedureName
    steps: Annotated[list[Body], Field(min_length=1, max_length=20)] | Body
    tags: Labels | None = None
    importance: Importance = 3
    pinned: Flag = False
    agent_id: Name | None = None
    run_id: Name | None = None
    thread_id: Name | None = None

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"name": "deploy the blog", "steps": ["Run the tests", "Build the site", "Push to main"]},
            ]
        },
    )


class UpdateRequest(Strict):
    """Fields to change; those left out (or null) stay as they are, except ``expires_at: null``,
    which clears the TTL."""

    summary: Body | None = None
    category: ShortName | None = None
    importance: Importance | None = None
    pinned: Flag | None = None
    tags: Labels | None = None
    entities: Labels | None = None
    metadata: JsonObject | None = None
    expires_at: Instant | None = None
    reason: Reason | None = None

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"pinned": True, "reason": "user asked"}]}
    )


class StoredMemory(MemoryRecord):
    """The memory as stored, and anything the caller should know about how it was stored."""

    warnings: list[str] = Field(
        default_factory=list,
        description=(
            "Notices about the request, e.g. a category that is not configured and was stored as Other."
        ),
    )


class ReasonRequest(Strict):
    reason: Reason | None = None


class RetypeRequest(Strict):
    """The right type of a memory filed under the wrong one, and optionally why (for its history)."""

    type: Literal["semantic", "episodic"]
    reason: Reason | None = None

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"type": "semantic", "reason": "a lasting fact, not an event"}]},
    )


class MisfiledResponse(BaseModel):
    misfiled: list[Misfiled] = Field(
        description="Memories whose type looks wrong, with the type they look like and why; nothing is changed."
    )


UserIds = Annotated[list[Annotated[str, Field(pattern=USER_PATTERN)]], Field(min_length=1, max_length=100)]


class ShareRequest(Strict):
    """The users who may see the memory (read, search, context), never change it."""

    with_users: UserIds

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"with_users": ["lena", "sam"]}]}
    )


class UnshareRequest(Strict):
    """The owner names the users to unshare from (default: all); a user it is shared with unshares it from
    themselves (no ``from_users``, or only themselves)."""

    from_users: UserIds | None = None
    reason: Reason | None = None


class LinksResponse(BaseModel):
    memory_id: str
    links: list[MemoryLink] = Field(description="Open links have no unlinked_at.")


class SearchRequest(Strict):
    query: QueryText
    filters: Filters | None = None  # type: ignore[valid-type]
    limit: SearchLimit = 10
    offset: SearchOffset = 0
    threshold: Similarity | None = None
    include_inactive: Flag = False
    at: Instant | None = None
    preset: ShortName | None = Field(
        None,
        description="A named retrieval preset (balanced, recent-first, precise, broad); none: the server's.",
    )

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"query": "where does the user live?", "limit": 5}]}
    )


class SearchResponse(BaseModel):
    results: list[SearchHit]


class ListRequest(Strict):
    """A page of memories matching ``filters``, newest first."""

    filters: Filters | None = None  # type: ignore[valid-type]
    limit: ListLimit = 100
    offset: ListOffset = 0
    include_inactive: Flag = False

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"filters": {"category": "Finance", "importance": {"$gte": 3}}, "limit": 20}]
        },
    )


class QueryRequest(Strict):
    """One ``memory.query`` call of an agent: a search limited to the categories its allowlist grants (403
    for any other)."""

    agent: ShortName
    query: QueryText
    categories: Labels | None = None
    filters: Filters | None = None  # type: ignore[valid-type]
    top_k: TopK = 3
    return_: Literal["bullets", "full"] = Field("bullets", alias="return")
    budget_tokens: Budget | None = None
    threshold: Similarity | None = None
    at: Instant | None = None
    preset: ShortName | None = Field(
        None,
        description="A named retrieval preset (balanced, recent-first, precise, broad); none: the server's.",
    )

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=False,
        json_schema_extra={
            "examples": [
                {
                    "agent": "planner",
                    "query": "deployment plan context",
                    "categories": ["Goals"],
                    "top_k": 3,
                    "return": "bullets",
                    "budget_tokens": 512,
                },
            ]
        },
    )


class ContextRequest(Strict):
    """The context block for a turn: semantic, recent episodic and session memories within a budget."""

    query: QueryText
    thread_id: Name | None = None
    chat_id: Name | None = Field(
        None,
        description="The group chat whose earlier sessions and messages to recall "
        "(or the X-OpenWebUI-Chat-Id header).",
    )
    since_rev: Revision | None = Field(
        None, description="The `rev` of the thread's previous block: adds the delta header."
    )
    budget_tokens: Budget | None = None
    agent: ShortName | None = None
    at: Instant | None = None
    preset: ShortName | None = Field(
        None,
        description="A named retrieval preset (balanced, recent-first, precise, broad); none: the server's.",
    )

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"query": "plan my weekend", "thread_id": "chat-42"}]}
    )


class HistoryResponse(BaseModel):
    memory_id: str
    history: list[HistoryEntry]


class ListedMemory(MemoryRecord):
    """A memory as listed for the caller's user: their own, or one shared with them."""

    shared_by: str | None = Field(
        None,
        description=(
            "Who shared the memory with the user (its owner; 'the operator' for a global memory): their words, "
            "not the user's. Null for the user's own memories."
        ),
    )

    @classmethod
    def of(cls, rows: Sequence[MemoryRecord], reader: str) -> list[ListedMemory]:
        """``rows`` as listed for ``reader``."""
        return [cls(**r.model_dump(), shared_by=shared_by(r, reader)) for r in rows]


class ListResponse(BaseModel):
    memories: list[ListedMemory]
    limit: int
    offset: int


class PurgeResponse(BaseModel):
    id: str
    state: Literal["purged"] = "purged"


class DeleteUserResponse(BaseModel):
    user_id: str
    deleted: int = Field(description="How many memories were removed.")


class JobsResponse(BaseModel):
    jobs: list[Job]


class RetryJobsRequest(Strict):
    job_ids: list[Name] | None = Field(
        None, max_length=1000, description=("The parked jobs to retry; absent: every parked job of the user")
    )


class RetryJobsResponse(BaseModel):
    retried: list[str] = Field(description="The jobs put back in the queue (parked ones only), sorted")


class ProposalsResponse(BaseModel):
    proposals: list[Proposal]


class RecordMessagesRequest(Strict):
    """A group chat's messages: ``name`` is the sender, ``at`` the message's time (default now)."""

    chat_id: Name | None = Field(None, description="The group chat (or the X-OpenWebUI-Chat-Id header).")
    messages: Annotated[list[TurnMessage], Field(min_length=1, max_length=1000)]

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "chat_id": "trip-planning",
                    "messages": [
                        {
                            "name": "ana",
                            "content": "Shall we book the cabin for June?",
                            "at": "2026-03-02T18:00:00Z",
                        },
                        {
                            "name": "ben",
                            "content": "Yes, the one near the lake.",
                            "at": "2026-03-02T18:10:00Z",
                        },
                    ],
                }
            ]
        },
    )


class MessagesResponse(BaseModel):
    messages: list[SessionMessage]


class SessionsResponse(BaseModel):
    sessions: list[ChatSession]


class Health(BaseModel):
    status: Literal["ok"] = "ok"
    version: str
    backend: str
    embedder: str
    llm: str
    upstream: str | None = Field(None, description="The upstream LLM base URL of the chat proxy, if any.")
    notices: list[str] = Field(
        default_factory=list,
        description="What the store cannot do where it runs, e.g. PostgreSQL without pgvector "
        "(keyword search only), and how to fix it.",
    )
