"""The chat proxy's view of an OpenAI chat request: its schema, the user's text, Open WebUI task
prompts, and the injection of memories into the system prompt (appended to the leading system message,
or a new one)."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, model_validator

from memlane.server.fields import check_json

TASK_PREFIX = "### Task:"  # Open WebUI's own requests (titles, tags, follow-ups, queries)
# Open WebUI's retrieval template (a file, knowledge base or web search attached): "### Task:" ... the
# documents in <context>...</context>, in some versions the query again in <user_query>, then (or before) the
# user's own message. Greedy up to the last </context>: no document text is ever taken for the user's.
RETRIEVAL = re.compile(r"### Task:.*</context>\s*(?:<user_query>(?P<query>.*?)</user_query>)?", re.S)
PREAMBLE = (
    "Memories about the user from earlier conversations (memlane). They may be incomplete or out "
    "of date: use the ones that help with this turn, ignore the rest, and do not mention this list "
    "unless asked."
)


class ChatMessageIn(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str = Field(min_length=1, max_length=64)
    content: str | list[dict[str, Any]] | None = None


class ChatCompletionRequest(BaseModel):
    """An OpenAI chat completion request. Fields beyond these are passed to the upstream unchanged."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                {
                    "model": "gpt-4o-mini",
                    "messages": [{"role": "user", "content": "What should I cook tonight?"}],
                    "stream": True,
                },
            ]
        },
    )

    model: str | None = Field(None, description="Upstream model (default: MEMLANE_UPSTREAM_MODEL).")
    messages: list[ChatMessageIn] = Field(min_length=1, max_length=2000)
    stream: StrictBool = False

    @model_validator(mode="after")
    def _encodable(self) -> ChatCompletionRequest:
        check_json(self.model_dump(exclude_unset=True), allow_nul=True, max_nodes=200_000, max_depth=64)
        return self


def text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            p["text"]
            for p in content
            if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
        )
    return ""


def _retrieval(text: str) -> re.Match[str] | None:
    match = RETRIEVAL.search(text)
    return match if match is not None and "<context>" in match.group(0) else None


def own_words(text: str) -> str:
    """The user's own text of a user turn: Open WebUI's retrieval template and its documents taken off
    (the query inside the template when nothing else is left)."""
    match = _retrieval(text)
    if match is None:
        return text
    rest = (text[: match.start()] + text[match.end() :]).strip()
    return rest or (match.group("query") or "").strip()


def user_text_of(message: dict[str, Any]) -> str:
    return own_words(text_of(message)).strip()


def last_user_text(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return user_text_of(message)
    return ""


def is_task(messages: list[dict[str, Any]]) -> bool:
    """Open WebUI's task requests start with ``### Task:`` (in the user turn, or the system prompt); its
    retrieval template starts so too, but is a user's turn with documents, not a task."""
    last = next((text_of(m).lstrip() for m in reversed(messages) if m.get("role") == "user"), "")
    system = [text_of(m).lstrip() for m in messages if m.get("role") in ("system", "developer")]
    return any(t.startswith(TASK_PREFIX) and _retrieval(t) is None for t in [last, *system])


def inject(messages: list[dict[str, Any]], memories: str) -> list[dict[str, Any]]:
    """Extend the leading system message with the memories, or prepend one."""
    block = f"{PREAMBLE}\n{memories}"
    out = [dict(m) for m in messages]
    if out and out[0].get("role") in ("system", "developer"):
        content = out[0].get("content")
        if isinstance(content, list):
            out[0]["content"] = [*content, {"type": "text", "text": block}]
        else:
            out[0]["content"] = f"{content}\n\n{block}" if content else block
    else:
        out.insert(0, {"role": "system", "content": block})
    return out
