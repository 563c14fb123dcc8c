"""Open WebUI's ``X-OpenWebUI-Chat-Id`` header: the chat (thread) a request belongs to. The chat proxy
takes it as the thread and the group chat; REST routes that take a thread or chat id accept it instead."""

from __future__ import annotations

from typing import Annotated

from fastapi import Header

from memlane.server.errors import ApiError

CHAT_ID_HEADER = "X-OpenWebUI-Chat-Id"
ChatIdHeader = Annotated[
    str | None,
    Header(
        alias=CHAT_ID_HEADER,
        pattern=r"^[\x21-\x7e]([\x20-\x7e]{0,254}[\x21-\x7e])?$",
        description="The chat (thread) id, as Open WebUI sends it: printable ASCII, at most 256. Where a route "
        "also takes a thread_id or chat_id, either may be given (both: they must be equal).",
    ),
]


def chat_or(given: str | None, header: str | None, field: str) -> str | None:
    """The request's ``field`` (``thread_id`` or ``chat_id``), or the header's chat id; a 400 when both are
    given and differ."""
    if given is not None and header is not None and given != header:
        raise ApiError(
            400,
            "invalid_request",
            f"{field} {given!r} and the {CHAT_ID_HEADER} header {header!r} "
            "name different chats; give one of them",
        )
    return given if given is not None else header
