"""Vectors of recorded chat messages (seed 004's message-level retrieval), made in the background.

The sessions task embeds a user's messages that have no vector of the current embedder yet, oldest
first, a batch at a time; ``memlane sessions backfill`` runs the same step for every user after an
embedder change. Nothing here runs in the message path: a message is found by its keywords at once
and by its meaning once the task has run (the chat's latest messages are in the caller's prompt
anyway; message retrieval is for older ones).
"""

from __future__ import annotations

from memlane.providers.embed import Embedder
from memlane.storage.base import Backend

BATCH = 128  # messages embedded per call to the embedder


def embed_missing(backend: Backend, embedder: Embedder, user_id: str, *, limit: int) -> tuple[int, bool]:
    """Embed up to ``limit`` of the user's messages that lack a vector of ``embedder``; returns how many
    were stored and whether some remain."""
    done = 0
    while done < limit:
        todo = backend.messages_without_vector(user_id, embedder.identity, limit=min(BATCH, limit - done))
        if not todo:
            return done, False
        vectors = embedder.embed([m.text for m in todo])
        stored = backend.put_message_vectors(user_id, embedder.identity,
                                             {m.id: v for m, v in zip(todo, vectors, strict=True)})
        done += len(todo)
        if stored < len(todo):  # a message went away meanwhile (a deleted session): look again next run
            return done, True
    return done, bool(backend.messages_without_vector(user_id, embedder.identity, limit=1))
