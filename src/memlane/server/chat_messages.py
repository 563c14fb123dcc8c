"""The chat proxy's view of an OpenAI chat request: its schema, the user's text, Open WebUI task
prompts, and the injection of memories into the system prompt (appended to the leading system message,
or a new one)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, model_validator

from memlane.server.fields import check_json

TASK_PREFIX = "### Task:"  # Open WebUI's own requests (titles, tags, follow-ups, queries)
PREAMBLE = ("Memories about the user from earlier conversations (memlane). They may be incomplete or out "
            "of date: use the ones that help with this turn, ignore the rest, and do not mention this list "
            "unless asked.")


class ChatMessageIn(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str = Field(min_length=1, max_length=64)
    content: str | list[dict[str, Any]] | None = None


class ChatCompletionRequest(BaseModel):
    """An OpenAI chat completion request. Fields beyond these are passed to the upstream unchanged."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": [
        {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "What should I cook tonight?"}],
         "stream": True},
    ]})

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
        return "\n".join(p["text"] for p in content
                         if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str))
    return ""


def last_user_text(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return text_of(message).strip()
    return ""


def is_task(messages: list[dict[str, Any]]) -> bool:
    """Open WebUI's task requests start with ``### Task:`` (in the user turn, or the system prompt)."""
    last = last_user_text(messages)
    system = [text_of(m).lstrip() for m in messages if m.get("role") in ("system", "developer")]
    return last.startswith(TASK_PREFIX) or any(s.startswith(TASK_PREFIX) for s in system)


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
