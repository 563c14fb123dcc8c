"""The assistant's answer as text, from a chat.completion body or its streamed chunks, for the
post-turn episodic capture: the proxy hands ``Memory.capture_turn`` the user's message and
the answer once the answer is complete."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any


def _content(choice: dict[str, Any], part: str) -> str:
    value = (choice.get(part) or {}).get("content")
    return value if isinstance(value, str) else ""


def answer_text(body: bytes) -> str:
    """The first choice's message of a ``chat.completion`` body ("" when it has none)."""
    try:
        data = json.loads(body)
        return _content((data.get("choices") or [{}])[0], "message")
    except (ValueError, AttributeError, IndexError, TypeError):
        return ""


def streamed_text(chunks: Iterable[bytes]) -> str:
    """The first choice's deltas of ``chat.completion.chunk`` SSE events, joined."""
    out: list[str] = []
    for line in b"".join(chunks).decode("utf-8", "replace").splitlines():
        if not line.startswith("data:") or line[5:].strip() == "[DONE]":
            continue
        try:
            data = json.loads(line[5:])
            choices = data.get("choices") or []
            out += [_content(c, "delta") for c in choices if isinstance(c, dict) and c.get("index", 0) == 0]
        except (ValueError, AttributeError):
            continue
    return "".join(out)
