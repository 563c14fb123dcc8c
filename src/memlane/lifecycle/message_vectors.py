"""Vectors of recorded chat messages (for message-level retrieval), made in the background.

The sessions task embeds a user's messages that have no vector of the current embedder yet, oldest
first, a batch at a time; ``memlane sessions backfill`` runs the same step for every user after an
embedder change. Nothing here runs in the message path: a message is found by its keywords at once
and by its meaning once the task has run (the chat's latest messages are in the caller's prompt
anyway; message retrieval is for older ones).
"""

from __future__ import annotations

from collections.abc import Sequence

from memlane.model.session import SessionMessage
from memlane.providers.embed import Embedder
from memlane.storage.base import Backend

BATCH = 128  # messages embedded per call to the embedder
CONTEXT_CHARS = 400  # of the message before, embedded with a message


def _line(m: SessionMessage) -> str:
    return f"{m.sender or m.role}: {' '.join(m.text.split())}"


def embed_texts(backend: Backend, user_id: str, messages: Sequence[SessionMessage]) -> list[str]:
    """What is embedded for each message: the message before it in its session (cut), then the message,
    each after its sender. A reply ("Yes, the one near the lake") is found by what it answers, as memlane
    embeds a memory with its context (contextual retrieval; MEMORY_EMBEDDING_HEADER for memories)."""
    before: dict[str, SessionMessage | None] = {}
    for session_id in dict.fromkeys(m.session_id for m in messages):
        ordered = backend.sessions.session_messages(user_id, session_id, limit=10**6)
        before.update((cur.id, prev) for prev, cur in zip([None, *ordered], ordered, strict=False))
    texts = []
    for m in messages:
        prev = before.get(m.id)
        texts.append(f"{_line(prev)[:CONTEXT_CHARS]}\n{_line(m)}" if prev is not None else _line(m))
    return texts


def embed_missing(backend: Backend, embedder: Embedder, user_id: str, *, limit: int) -> tuple[int, bool]:
    """Embed up to ``limit`` of the user's messages that lack a vector of ``embedder``; returns how many
    were stored and whether some remain."""
    done = 0
    while done < limit:
        todo = backend.sessions.messages_without_vector(
            user_id, embedder.identity, limit=min(BATCH, limit - done)
        )
        if not todo:
            return done, False
        vectors = embedder.embed(embed_texts(backend, user_id, todo))
        stored = backend.sessions.put_message_vectors(
            user_id, embedder.identity, {m.id: v for m, v in zip(todo, vectors, strict=True)}
        )
        done += len(todo)
        if stored < len(todo):  # a message went away meanwhile (a deleted session): look again next run
            return done, True
    return done, bool(backend.sessions.messages_without_vector(user_id, embedder.identity, limit=1))
