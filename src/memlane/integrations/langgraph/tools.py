"""memlane's memory tools (search, fetch, put, update) and ``memory.query`` as LangChain tools for a
LangGraph agent.

The user is ``config["configurable"]["user_id"]`` (never a tool argument the model could change). With
a :class:`Memory` (given, or behind the graph's ``MemlaneStore``) the tools call its API (memlane's
reranked search, database-side filters, formation's keyed ids, history with actor ``langgraph:tool``);
keys are the ones the store shows: a memory's key, or its id when it has none.

With no Memory and any other ``BaseStore`` compiled into the graph (``S3VectorsStore``, LangGraph's
``InMemoryStore``, ...) the search, fetch, put and update tools work on that store's
``(user_id, "semantic")`` / ``(user_id, "episodic")`` items through the ``BaseStore`` API, with less:
no deduplication or merging, no history, the store's own ranking (``plain.py`` lists it all);
``memory_query`` and ``procedure_save`` need a Memory and say so.

    tools = memory_tools(memory)            # or memory_tools() to use the graph's store
    agent = create_react_agent(model, tools, store=MemlaneStore(memory))   # or store=S3VectorsStore(...)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal

from langchain_core.messages import convert_to_messages
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.prebuilt import InjectedState
from langgraph.store.base import BaseStore

from memlane.engine.memory import Memory
from memlane.integrations.langgraph import plain
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


def target_of(memory: Memory | None, what: str = "memlane's tools") -> Memory | BaseStore:
    """The given Memory, else the one behind the running graph's store (a MemlaneStore), else that
    store itself when it is any other ``BaseStore`` (the plain path of ``plain.py``)."""
    if memory is not None:
        return memory
    from langgraph.config import get_store

    try:
        store = get_store()
    except (RuntimeError, KeyError) as e:  # called outside a graph run (no store in its config)
        raise ValidationError(
            f"{what} have no memory: pass memory_tools(memory) / the node a Memory, or run them "
            "in a graph compiled with a store (a MemlaneStore, S3VectorsStore or any BaseStore)"
        ) from e
    found = getattr(store, "memory", None) or getattr(getattr(store, "store", None), "memory", None)
    if isinstance(found, Memory):
        return found
    if isinstance(store, BaseStore):
        return store
    raise ValidationError(
        f"{what} have no memory: pass memory_tools(memory) / the node a Memory, or compile the "
        "graph with a store (a MemlaneStore, S3VectorsStore or any BaseStore)"
    )


def memory_of(memory: Memory | None, what: str = "this tool") -> Memory:
    """The Memory the call needs (given, or behind the graph's MemlaneStore); a plain store is refused."""
    found = target_of(memory, what)
    if not isinstance(found, Memory):
        raise ValidationError(
            f"{what} needs memlane's Memory (pass it, or compile the graph with a MemlaneStore); "
            f"the graph's store is a plain {type(found).__name__}, on which only the search, fetch, "
            "put and update tools work"
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
        mtype: MemoryType, query: str | None, topic: str | None, limit: int, config: RunnableConfig
    ) -> list[dict[str, Any]]:
        """The best matches of ``query``; with none, the newest (a plain store: its own listing)."""
        mem, user = target_of(memory), configured(config, "user_id")
        if not isinstance(mem, Memory):
            return plain.search(mem, user, mtype, query, topic, limit)
        filters: dict[str, Any] = {"type": mtype.value}
        if topic:
            filters["category"] = normalise_category(topic, mem.settings.categories)
        if not query:
            return [as_dict(r, user) for r in mem.list(user_id=user, filters=filters, limit=limit)]
        return [
            as_dict(h.memory, user, h.score)
            for h in mem.search(query, user_id=user, filters=filters, limit=limit)
        ]

    def semantic_memory_search(
        query: str | None = None, topic: str | None = None, limit: int = 5, *, config: RunnableConfig
    ) -> list[dict[str, Any]]:
        """Search the user's durable facts (semantic memories) by meaning; topic narrows to a category
        (Personal, Finance, Goals, ...). Returns the best matches with their keys (on a plain store, not
        memlane's, ranked by the store's vector similarity alone)."""
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
        return _search(MemoryType.EPISODIC, text, topic, limit, config)

    def _put(mtype: MemoryType) -> Callable[..., dict[str, Any]]:
        def put(
            summary: str, category: str | None = None, key: str | None = None, *, config: RunnableConfig
        ) -> dict[str, Any]:
            mem, user = target_of(memory), configured(config, "user_id")
            thread = configured(config, "thread_id", required=False)
            if not isinstance(mem, Memory):
                return plain.put(mem, user, mtype, summary, category=category, key=key, thread_id=thread)
            rec = mem.put(
                summary,
                user_id=user,
                type=mtype.value,
                category=category,
                key=key,
                actor=ACTOR,
                thread_id=thread,
            )
            return as_dict(rec, user)

        put.__doc__ = (
            f"Save a {mtype.value} memory about the user: summary is 1-2 self-contained third-person "
            "sentences; category such as Personal, Finance, Goals; key (optional) names a slot such "
            "as profile:pet:luna:age so later saves update it. (On a plain store, not memlane's, the "
            "summary is stored as given: no deduplication or merging with what is already known.)"
        )
        return put

    def _update(mtype: MemoryType) -> Callable[..., dict[str, Any]]:
        def update(
            key: str, summary: str | None = None, category: str | None = None, *, config: RunnableConfig
        ) -> dict[str, Any]:
            mem, user = target_of(memory), configured(config, "user_id")
            if not isinstance(mem, Memory):
                return plain.update(mem, user, mtype, key, summary=summary, category=category)
            rec = _find(mem, user, mtype, key)
            changes = {k: v for k, v in (("summary", summary), ("category", category)) if v is not None}
            return as_dict(
                mem.update(rec.id, user_id=user, actor=ACTOR, reason="tool update", **changes), user
            )

        update.__doc__ = (
            f"Correct a {mtype.value} memory found by a search (its key): a new summary and/or "
            "category. The previous version stays in the memory's history (not on a plain store, "
            "not memlane's, where the update overwrites it)."
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
        mem, user = memory_of(memory, "memory_query"), configured(config, "user_id")
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
        mem, user = memory_of(memory, "procedure_save"), configured(config, "user_id")
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
