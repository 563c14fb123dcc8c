"""A closed session's summary payload: from the configured model, or offline by extraction.

The offline digest says only what the messages say: the summary is the session's most central messages
(highest cosine similarity to the centroid of all its messages' embeddings, shown in time order); topics
are its most frequent content words; entities the capitalised names used mid-sentence; decisions the
messages that state one ("let's", "we'll", "agreed", ...); open questions the questions no other
participant answered afterwards.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from memlane.model.candidate import ChatMessage
from memlane.model.session import ChatSession, SessionDigest, SessionMessage
from memlane.providers.embed import Embedder
from memlane.providers.llm.base import MemoryLLM
from memlane.retrieval.tokens import truncate
from memlane.storage.keywords import STOP_WORDS, query_words

CENTRAL, LIST_MAX, LINE_CHARS = 3, 3, 160
_DECISION = re.compile(
    r"\b(?:let'?s|we'?ll|we will|decided|agreed|agree|deal|booked|i'?ll|i will|settled)\b", re.IGNORECASE
)
_NAME = re.compile(r"(?<=[\w,;:] )[A-Z][\w'-]*[a-z0-9][\w'-]*")  # a capitalised word after another word


def digest(
    messages: Sequence[SessionMessage], llm: MemoryLLM, embedder: Embedder
) -> tuple[SessionDigest, str, list[str]]:
    """The payload, who wrote it (the model's name, or ``extractive``) and the ids of the messages it
    quotes (extractive only: a model's words quote none). A provider error propagates."""
    chat = [ChatMessage(role=m.role, content=m.text, at=m.at, name=m.sender) for m in messages]
    made = llm.summarize_session(chat)
    if made is not None:
        return made, llm.name, []
    payload, quoted = extractive(messages, embedder)
    return payload, "extractive", quoted


def _line(m: SessionMessage) -> str:
    return f"{m.sender or m.role}: {truncate(' '.join(m.text.split()), LINE_CHARS)}"


def extractive(messages: Sequence[SessionMessage], embedder: Embedder) -> tuple[SessionDigest, list[str]]:
    """The digest and the ids of the messages it quotes, in time order."""
    vectors = np.asarray(embedder.embed([m.text for m in messages]), dtype=np.float64)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    centroid = vectors.mean(axis=0)
    central = sorted(np.argsort(-(vectors @ centroid), kind="stable")[:CENTRAL])
    words = Counter(
        w
        for m in messages
        for w in query_words(m.text, limit=64)
        if w not in STOP_WORDS and len(w) > 3 and not w.isdigit()
    )
    names = dict.fromkeys(n for m in messages for n in _NAME.findall(m.text))
    unanswered = [
        m
        for i, m in enumerate(messages)
        if m.text.rstrip().endswith("?") and not any(later.sender != m.sender for later in messages[i + 1 :])
    ]
    decisions = [m for m in messages if _DECISION.search(m.text)][-LIST_MAX:]
    questions = unanswered[-LIST_MAX:]
    quoted = {m.id for m in [*(messages[i] for i in central), *decisions, *questions]}
    return SessionDigest(
        summary=" ".join(_line(messages[i]) for i in central),
        topics=[w for w, _ in words.most_common(4)],
        decisions=[_line(m) for m in decisions],
        open_questions=[_line(m) for m in questions],
        entities=list(names)[:12],
    ), [m.id for m in messages if m.id in quoted]


def flatten(session: ChatSession, payload: SessionDigest) -> str:
    """The memory's text: a header (chat, time range, participants, topics), then the payload."""
    start, end = session.started_at, session.ended_at
    span = (
        f"{start:%Y-%m-%d %H:%M}–{end:%H:%M}"
        if start.date() == end.date()
        else f"{start:%Y-%m-%d %H:%M}–{end:%Y-%m-%d %H:%M}"
    )
    parts = [
        f"Chat {session.chat_id}, {span} UTC, {session.message_count} messages from "
        f"{', '.join(session.participants)}"
        + (f"; topics: {', '.join(payload.topics)}." if payload.topics else "."),
        payload.summary.strip(),
    ]
    if payload.decisions:
        parts.append("Decisions: " + " | ".join(payload.decisions))
    if payload.open_questions:
        parts.append("Open questions: " + " | ".join(payload.open_questions))
    return " ".join(p for p in parts if p)
