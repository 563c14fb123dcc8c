"""memlane's memory tools (search, fetch, put, update) and ``memory.query`` as LangChain tools for a
LangGraph agent.

The user is ``config["configurable"]["user_id"]`` (never a tool argument the model could change). The
tools call the :class:`Memory` API (memlane's reranked search, database-side filters, history with actor
``langgraph:tool``); keys are the ones the store shows: a memory's key, or its id when it has none.

    tools = memory_tools(memory)            # or memory_tools() to use the graph's MemlaneStore
    agent = create_react_agent(model, tools, store=MemlaneStore(memory))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal

from langchain_core.messages import convert_to_messages
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.prebuilt import InjectedState

from memlane.engine.memory import Memory
from memlane.model.category import normalise_category
from memlane.model.enums import MemoryState, MemoryType
from memlane.model.errors import NotFoundError, ValidationError
from memlane.model.ids import deterministic_id
from memlane.model.provenance import shared_by
from memlane.model.record import MemoryRecord

ACTOR = "langgraph:tool"


def configured(config: RunnableConfig | None, name: str, *, required: bool = True) -> Any:
    value = ((config or {}).get("configurable") or {}).get(name)
    if required and not value:
        raise ValidationError(
            f"memlane's LangGraph tools and nodes need config['configurable']['{name}']; "
            f"pass it when invoking the graph: config={{'configurable': {{'{name}': ...}}}}"
        )
    return value


def memory_of(memory: Memory | None) -> Memory:
    """The given Memory, else the one behind the running graph's store (a MemlaneStore)."""
    if memory is not None:
        return memory
    from langgraph.config import get_store

    store = get_store()
    found = getattr(store, "memory", None) or getattr(getattr(store, "store", None), "memory", None)
    if not isinstance(found, Memory):
        raise ValidationError(
            "no Memory: pass memory_tools(memory), or compile the graph with a MemlaneStore"
        )
    return found


def as_dict(rec: MemoryRecord, user: str, score: float | None = None) -> dict[str, Any]:
    """The memory as a tool shows it to ``user``; ``shared_by`` names the owner of one shared with them
    (their words, not the user's), None for the user's own."""
    out = {
        "key": rec.key or rec.id,
        "id": rec.id,
        "type": rec.type.value,
        "category": rec.category,
        "summary": rec.summary,
        "shared_by": shared_by(rec, user),
        "tags": list(rec.tags),
        "importance": rec.importance,
        "pinned": rec.pinned,
        "created_at": rec.created_at.isoformat(),
        "updated_at": rec.updated_at.isoformat(),
    }
    return out if score is None else {**out, "score": round(score, 4)}


def last_user_text(messages: Sequence[Any]) -> str | None:
    """Text of the newest user message (LangChain messages, ``(role, text)`` pairs or role dicts)."""
    for msg in reversed(convert_to_messages(list(messages or []))):
        if msg.type == "human" and msg.text.strip():
            return msg.text
    return None


def _find(mem: Memory, user: str, mtype: MemoryType, key: str) -> MemoryRecord:
    for memory_id in (deterministic_id(user, mtype.value, key), key):
        try:
            rec = mem.get(memory_id, user_id=user)
        except NotFoundError:
            continue
        if rec.type is mtype and rec.state is MemoryState.ACTIVE:
            return rec
    raise NotFoundError(f"no active {mtype.value} memory with key {key!r}; search for it first")


def memory_tools(memory: Memory | None = None, *, agent: str = "supervisor") -> list[BaseTool]:
    """``semantic_memory_search``, ``episodic_memory_fetch``, ``semantic_memory_put``,
    ``episodic_memory_put``, ``semantic_memory_update``, ``episodic_memory_update``, ``memory_query``
    (whose agent is ``config["configurable"]["agent"]``, else ``agent``) and ``procedure_save``."""

    def _search(
        mtype: MemoryType, query: str, topic: str | None, limit: int, config: RunnableConfig
    ) -> list[dict[str, Any]]:
        mem, user = memory_of(memory), configured(config, "user_id")
        filters: dict[str, Any] = {"type": mtype.value}
        if topic:
            filters["category"] = normalise_category(topic, mem.settings.categories)
        return [
            as_dict(h.memory, user, h.score)
            for h in mem.search(query, user_id=user, filters=filters, limit=limit)
        ]

    def semantic_memory_search(
        query: str | None = None, topic: str | None = None, limit: int = 5, *, config: RunnableConfig
    ) -> list[dict[str, Any]]:
        """Search the user's durable facts (semantic memories) by meaning; topic narrows to a category
        (Personal, Finance, Goals, ...). Returns the best matches with their keys."""
        return _search(MemoryType.SEMANTIC, query, topic, limit, config) if query and query.strip() else []

    def episodic_memory_fetch(
        topic: str | None = None,
        limit: int = 5,
        query: str | None = None,
        *,
        config: RunnableConfig,
        state: Annotated[Any, InjectedState] = None,
    ) -> list[dict[str, Any]]:
        """Fetch the user's past events and conversations (episodic memories) relevant to the query, or to
        the user's last message when no query is given; topic narrows to a category."""
        text = query or last_user_text(
            (state or {}).get("messages", []) if isinstance(state, Mapping) else []
        )
        if text:
            return _search(MemoryType.EPISODIC, text, topic, limit, config)
        mem, user = memory_of(memory), configured(config, "user_id")
        return [as_dict(r, user) for r in mem.list(user_id=user, filters={"type": "episodic"}, limit=limit)]

    def _put(mtype: MemoryType) -> Callable[..., dict[str, Any]]:
        def put(
            summary: str, category: str | None = None, key: str | None = None, *, config: RunnableConfig
        ) -> dict[str, Any]:
            mem, user = memory_of(memory), configured(config, "user_id")
            rec = mem.put(
                summary,
                user_id=user,
                type=mtype.value,
                category=category,
                key=key,
                actor=ACTOR,
                thread_id=configured(config, "thread_id", required=False),
            )
            return as_dict(rec, user)

        put.__doc__ = (
            f"Save a {mtype.value} memory about the user: summary is 1-2 self-contained third-person "
            "sentences; category such as Personal, Finance, Goals; key (optional) names a slot such "
            "as profile:pet:luna:age so later saves update it."
        )
        return put

    def _update(mtype: MemoryType) -> Callable[..., dict[str, Any]]:
        def update(
            key: str, summary: str | None = None, category: str | None = None, *, config: RunnableConfig
        ) -> dict[str, Any]:
            mem, user = memory_of(memory), configured(config, "user_id")
            rec = _find(mem, user, mtype, key)
            changes = {k: v for k, v in (("summary", summary), ("category", category)) if v is not None}
            return as_dict(
                mem.update(rec.id, user_id=user, actor=ACTOR, reason="tool update", **changes), user
            )

        update.__doc__ = (
            f"Correct a {mtype.value} memory found by a search (its key): a new summary and/or "
            "category. The previous version stays in the memory's history."
        )
        return update

    def memory_query(
        query: str,
        categories: list[str] | None = None,
        top_k: int = 3,
        return_: Literal["bullets", "full"] = "bullets",
        budget_tokens: int | None = None,
        threshold: float | None = None,
        filters: dict[str, Any] | None = None,
        preset: str | None = None,
        *,
        config: RunnableConfig,
    ) -> dict[str, Any]:
        """Look up the user's memories within the categories this agent may read: top_k results as
        bullets ({id, category, text}) or full items (return_="full"), within budget_tokens; threshold
        drops weak matches; filters narrow by importance_min, pinned, updated_after, ...; preset picks
        the ranking: balanced, recent-first (newer first), precise (fewer, surer) or broad."""
        mem, user = memory_of(memory), configured(config, "user_id")
        who = configured(config, "agent", required=False) or agent
        return mem.query(
            query,
            user_id=user,
            agent=who,
            categories=categories,
            filters=filters,
            top_k=top_k,
            return_=return_,
            budget_tokens=budget_tokens,
            threshold=threshold,
            preset=preset,
        ).model_dump(mode="json")

    def procedure_save(name: str, steps: list[str], *, config: RunnableConfig) -> dict[str, Any]:
        """Save a workflow that worked as a named procedure of imperative steps ("Run the tests.") so
        agents allowed `procedural` can reuse it; saving the same name again replaces its steps."""
        mem, user = memory_of(memory), configured(config, "user_id")
        rec = mem.procedures.add(
            name, steps, user_id=user, actor=ACTOR, thread_id=configured(config, "thread_id", required=False)
        )
        return {**as_dict(rec, user), "steps": rec.metadata["steps"]}

    funcs: list[tuple[str, Callable[..., Any]]] = [
        ("semantic_memory_search", semantic_memory_search),
        ("episodic_memory_fetch", episodic_memory_fetch),
        ("semantic_memory_put", _put(MemoryType.SEMANTIC)),
        ("episodic_memory_put", _put(MemoryType.EPISODIC)),
        ("semantic_memory_update", _update(MemoryType.SEMANTIC)),
        ("episodic_memory_update", _update(MemoryType.EPISODIC)),
        ("memory_query", memory_query),
        ("procedure_save", procedure_save),
    ]
    return [
        StructuredTool.from_function(fn, name=name, description=(fn.__doc__ or name).strip())
        for name, fn in funcs
    ]
