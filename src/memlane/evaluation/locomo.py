"""``memlane eval locomo``: evidence retrieval on LoCoMo conversations, offline (recall@k, NDCG@10; no LLM).

Each conversation goes into a fresh store as its own user. Every turn is one episodic memory: the
summary is ``"Speaker: text [shares <photo>]"``, ``source_ref`` its ``dia_id``, observed at its
session's date, ``thread_id`` its session, ``actor_id`` its speaker and ``metadata["context"]`` the
turn before it in the session (the contextual header embeds it with the turn). Consecutive turns of a
session are linked by ``follows`` relations. Nothing else is derived, and no answer or evidence is
shown to the store.

Every question is asked as of one minute after the last session, through ``memlane``'s search and
through two baselines on the same store: ``keyword`` (the full-text index alone) and ``dense`` (the
vector index alone).

With ``sessions``, each conversation is also recorded as a group chat (turn by turn, a minute apart,
``ref`` its ``dia_id``), so LoCoMo's sessions (days apart) become memlane sessions, and the sessions task
embeds the messages and summarises each session offline (the extractive digest). Three more methods then answer: ``chat`` (the group-chat recall of the context block: recorded
messages and session summaries through the seed's reranker, no memories), and its channels alone,
``chat-messages`` and ``chat-sessions`` (at most ``CONTEXT_SESSION_MAX_RETRIEVED`` summaries, as the context
block shows); and ``fused``, memlane's first ``FUSED_POOL`` turns reordered by the
sessions the message channel ranks first (:mod:`memlane.retrieval.session_prior`: session-level
evidence as a prior on turns). The summaries are not part of ``fused``: as a prior they added nothing
over the messages on conversations 1-3, and the seed's reranker (summary bonus, coverage penalty), built
so a context block does not tell one conversation twice, halved evidence recall (docs/locomo.md). The first three methods search the turns alone (``type = episodic``; the
summaries' rows in SQLite's keyword index still move the turns' BM25 statistics, docs/locomo.md). A message cites its ``ref``; a session summary cites the messages it quotes
verbatim (the digest's central messages, decisions and open questions), nothing else. For each, the ranked results' ``source_ref`` ids are walked in order and the
first k distinct ones kept: recall@k is the share of the question's evidence among them, NDCG@10 is
computed on the same list; session recall@k is the share of the LoCoMo sessions holding evidence among
the first k distinct sessions of the list. Questions whose evidence names no turn of the conversation are skipped and
counted. Latency is the search call with the question's embedding already cached (all questions are
embedded in one batch first, so the three methods are timed alike); the batch's time per question is
reported as ``query_embed_ms``.
"""

from __future__ import annotations

import re
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from memlane.engine.memory import Memory
from memlane.evaluation.locomo_data import Conversation, Question
from memlane.evaluation.metrics import distinct, ndcg_at, percentile, recall_at, session_recall_at
from memlane.model.config import Settings
from memlane.model.enums import MemoryState, MemoryType
from memlane.model.filters import Condition
from memlane.model.record import Relation, SearchHit, utcnow
from memlane.providers.embed import Embedder
from memlane.retrieval import chat_recall, session_prior
from memlane.retrieval.search import SearchRequest, search
from memlane.retrieval.session_blend import BlendItem
from memlane.storage.base import WriteBatch

METHODS = ("memlane", "keyword", "dense")
CHAT_METHODS = ("chat", "chat-messages", "chat-sessions", "fused")
FUSED_POOL = 50  # memlane's turns reordered, and the messages that rank sessions
ASK_AFTER = timedelta(minutes=1)
Progress = Callable[[str, int, int], None]


@dataclass
class Scores:
    """Per-question figures of one method, grouped by category."""

    recall: dict[str, dict[int, list[float]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )
    session_recall: dict[str, dict[int, list[float]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )
    ndcg: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    latency_ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    def add(
        self,
        category: str,
        recalls: dict[int, float],
        ndcg: float,
        ms: float,
        session_recalls: dict[int, float] | None = None,
    ) -> None:
        for group in (category, "overall"):
            for k, r in recalls.items():
                self.recall[group][k].append(r)
            for k, r in (session_recalls or {}).items():
                self.session_recall[group][k].append(r)
            self.ndcg[group].append(ndcg)
            self.latency_ms[group].append(ms)

    def summary(self, group: str) -> dict[str, Any]:
        n = len(self.ndcg[group])
        out: dict[str, Any] = {"questions": n}
        for k, values in sorted(self.recall[group].items()):
            out[f"recall@{k}"] = round(sum(values) / n, 4) if n else 0.0
        for k, values in sorted(self.session_recall[group].items()):
            out[f"session_recall@{k}"] = round(sum(values) / n, 4) if n else 0.0
        out["ndcg@10"] = round(sum(self.ndcg[group]) / n, 4) if n else 0.0
        out["latency_ms_p50"] = round(percentile(self.latency_ms[group], 50), 2)
        out["latency_ms_p95"] = round(percentile(self.latency_ms[group], 95), 2)
        return out


def eval_settings(settings: Settings, *, header: bool = True) -> Settings:
    """The run's settings: the caller's, with the contextual header on (speaker and previous turn)."""
    if not header:
        return settings.model_copy(update={"memory_embedding_header": False})
    fields = list(dict.fromkeys([*settings.memory_embedding_header_fields, "context", "speaker"]))
    return settings.model_copy(
        update={"memory_embedding_header": True, "memory_embedding_header_fields": fields}
    )


def ingest(mem: Memory, conv: Conversation) -> int:
    """Write the conversation's turns (one memory each) and the ``follows`` links between them."""
    user = conv.sample_id
    items = []
    for i, turn in enumerate(conv.turns):
        prev = conv.turns[i - 1] if i and conv.turns[i - 1].session == turn.session else None
        items.append(
            {
                "summary": turn.summary,
                "type": "episodic",
                "key": f"locomo:{turn.dia_id}",
                "source": "external",
                "source_ref": turn.dia_id,
                "at": turn.at,
                "thread_id": f"session_{turn.session}",
                "actor_id": turn.speaker,
                "metadata": {"context": prev.summary} if prev else {},
            }
        )
    records = mem.put_many(items, user_id=user, actor="locomo")
    links = [
        Relation(from_id=a.id, to_id=b.id, user_id=user, relation_type="follows", strength=1.0)
        for a, b, ta, tb in zip(records, records[1:], conv.turns, conv.turns[1:], strict=False)
        if ta.session == tb.session
    ]
    if links:
        mem.backend.apply(WriteBatch(relations=links))
    return len(records)


def record_chat(mem: Memory, conv: Conversation) -> dict[str, str]:
    """Record the conversation as a group chat (a minute between turns) and run the sessions task (it
    embeds the messages and summarises the sessions); returns message id -> dia_id."""
    turns = [
        {
            "role": "user",
            "name": t.speaker,
            "content": t.summary.split(": ", 1)[-1],
            "ref": t.dia_id,
            "at": t.at + timedelta(minutes=n),
        }
        for n, t in enumerate(conv.turns)
    ]
    refs: dict[str, str] = {}
    for start in range(0, len(turns), 1000):
        for m in mem.sessions.record_messages(
            turns[start : start + 1000], user_id=conv.sample_id, chat_id=conv.sample_id
        ):
            refs[m.id] = m.ref or ""
    # recording scheduled the task an hour after the recording (wall clock), not after the chat's 2023 end
    later = utcnow() + timedelta(hours=2)
    while mem.run_tasks(at=later):  # a run summarises at most 20 sessions and schedules the next at once
        pass
    return refs


def chat_cited(
    mem: Memory, conv: Conversation, q: Question, method: str, refs: dict[str, str], limit: int
) -> tuple[list[str], float]:
    """Cited dia_ids of the group-chat recall (see the module's docstring)."""
    start = time.perf_counter()
    items = _chat_recall(
        mem,
        conv,
        q,
        max_messages=0 if method == "chat-sessions" else limit,
        max_sessions=0 if method == "chat-messages" else mem.settings.context_session_max_retrieved,
    )
    ms = (time.perf_counter() - start) * 1000.0
    out: list[str] = []
    for item in items:
        if item.message is not None:
            out.append(item.message.ref or "")
        elif item.session is not None:
            out += [
                refs.get(i, "") for i in item.session.memory.metadata.get("session", {}).get("quoted", [])
            ]
    return [d for d in out if d], ms


def fused_cited(
    mem: Memory, conv: Conversation, q: Question, session_of: dict[str, int]
) -> tuple[list[str], float]:
    """memlane's turns (the first ``FUSED_POOL``) reordered by the sessions the message channel ranks
    first (:mod:`memlane.retrieval.session_prior`); the summaries are not used (see the module's docstring)."""
    start = time.perf_counter()
    now = conv.last_at + ASK_AFTER
    req = SearchRequest(
        user_id=conv.sample_id, query=q.text, now=now, limit=FUSED_POOL, conditions=_turns_only()
    )
    hits = search(mem.backend, mem.embedder, mem.settings, req)
    items = _chat_recall(mem, conv, q, max_messages=FUSED_POOL, max_sessions=0, pool=FUSED_POOL)
    prior = session_prior.session_ranks(
        (session_of.get(i.message.ref or ""), i.score) for i in items if i.message is not None
    )
    lifted = session_prior.lift(hits, prior, lambda h: next((session_of.get(d) for d in cited([h])), None))
    return cited([h for h, _ in lifted]), (time.perf_counter() - start) * 1000.0


def _chat_recall(
    mem: Memory,
    conv: Conversation,
    q: Question,
    *,
    max_messages: int,
    max_sessions: int,
    pool: int = chat_recall.POOL,
) -> list[BlendItem]:
    """The group-chat recall of the conversation's user for the question, asked after the last session."""
    return chat_recall.recall(
        mem.backend,
        mem.embedder,
        mem.settings,
        query=q.text,
        user_id=conv.sample_id,
        chat_id=None,
        now=conv.last_at + ASK_AFTER,
        max_messages=max_messages,
        max_sessions=max_sessions,
        pool=pool,
    )


def _turns_only() -> list[Condition]:
    return [
        Condition("state", "$eq", MemoryState.ACTIVE.value),
        Condition("type", "$eq", MemoryType.EPISODIC.value),
    ]


def cited(hits: Sequence[SearchHit]) -> list[str]:
    """Source dia_ids of ranked results, in order (a result may cite several)."""
    return [d for h in hits for d in re.split(r"[,;\s]+", h.memory.source_ref or "") if d]


def ask(
    mem: Memory, conv: Conversation, q: Question, method: str, limit: int, turns_only: bool = False
) -> tuple[list[str], float]:
    conds = [Condition("state", "$eq", MemoryState.ACTIVE.value)]
    if turns_only:  # the session summaries are the chat methods' (see run)
        conds.append(Condition("type", "$eq", MemoryType.EPISODIC.value))
    req = SearchRequest(
        user_id=conv.sample_id,
        query=q.text,
        now=conv.last_at + ASK_AFTER,
        limit=limit,
        conditions=conds,
        mode="hybrid" if method == "memlane" else method,
    )
    start = time.perf_counter()
    hits = search(mem.backend, mem.embedder, mem.settings, req)
    return cited(hits), (time.perf_counter() - start) * 1000.0


def run(
    conversations: Sequence[Conversation],
    embedder: Embedder,
    settings: Settings,
    *,
    ks: Sequence[int] = (5, 10, 25),
    workdir: str | Path | None = None,
    progress: Progress | None = None,
    sessions: bool = False,
) -> dict[str, Any]:
    """Ingest, ask and score; returns the report (JSON-ready)."""
    methods = METHODS + (CHAT_METHODS if sessions else ())
    if sessions:  # the sessions task alone runs (no consolidation or TTL touches the stored turns)
        settings = settings.model_copy(update={"memlane_schedule": {"sessions": 1.0}})
    ks = sorted({int(k) for k in ks})
    if not ks or ks[0] < 1:
        raise ValueError("k values must be positive integers")
    scores = {m: Scores() for m in methods}
    skipped: dict[str, int] = defaultdict(int)
    chat_sessions: dict[str, int] = defaultdict(int)
    turns = ingest_s = embed_s = 0.0
    asked = 0
    total_q = sum(len(c.questions) for c in conversations)
    with tempfile.TemporaryDirectory(prefix="memlane-locomo-", dir=workdir) as tmp:
        for conv in conversations:
            mem = Memory(str(Path(tmp) / f"{conv.sample_id}.db"), embedder=embedder, settings=settings)
            try:
                start = time.perf_counter()
                turns += ingest(mem, conv)
                refs = record_chat(mem, conv) if sessions else {}
                if sessions:
                    for s in mem.sessions.list(user_id=conv.sample_id, limit=10_000):
                        chat_sessions[s.status.value] += 1
                ingest_s += time.perf_counter() - start
                if progress:
                    progress("ingested", len(conv.turns), 0)
                usable = [q for q in conv.questions if q.evidence]
                session_of = {t.dia_id: t.session for t in conv.turns}
                for q in conv.questions:
                    if not q.evidence:
                        skipped[q.category_name] += 1
                start = time.perf_counter()
                mem.embedder.embed([q.text for q in usable])  # warm the cache: methods are timed alike
                embed_s += time.perf_counter() - start
                for q in usable:
                    for method in methods:
                        if method == "fused":
                            ranked, ms = fused_cited(mem, conv, q, session_of)
                        elif method in CHAT_METHODS:
                            ranked, ms = chat_cited(mem, conv, q, method, refs, max(ks))
                        else:
                            ranked, ms = ask(mem, conv, q, method, max(ks), turns_only=sessions)
                        recalls = {k: recall_at(ranked, q.evidence, k) for k in ks}
                        by_session = {k: session_recall_at(ranked, q.evidence, k, session_of) for k in ks}
                        ndcg = ndcg_at(distinct(ranked), q.evidence, 10)
                        scores[method].add(q.category_name, recalls, ndcg, ms, by_session)
                    asked += 1
                    if progress:
                        progress("asked", asked, total_q)
            finally:
                mem.close()
    groups = ["overall", *sorted({g for g in scores["memlane"].ndcg if g != "overall"})]
    return {
        "conversations": len(conversations),
        "turns": int(turns),
        "questions": asked,
        "skipped": {"total": sum(skipped.values()), "by_category": dict(sorted(skipped.items()))},
        "k": ks,
        "embedder": embedder.identity,
        "embedding": "header:" + ",".join(settings.memory_embedding_header_fields)
        if settings.memory_embedding_header
        else "summary",
        "ingest_seconds": round(ingest_s, 2),
        "query_embed_ms": round(embed_s * 1000.0 / max(asked, 1), 2),
        "chat_sessions": dict(chat_sessions),
        "methods": {m: {g: scores[m].summary(g) for g in groups} for m in methods},
    }
