"""Post-turn episodic capture: after the assistant answered, the finished turn (user,
assistant and tool messages) may become an episode. The hot path writes semantic memories only.

A capture is a durable job (``kind = capture``) that the worker runs: the LLM (offline: the extractive
summary of :mod:`memlane.providers.llm.episode_rules`) says whether the turn had an outcome and what was
discussed and done; a turn without one is skipped (``episodic.skip``). An episode's summary is the
seed's sentence, dated in the user's time zone:

    On {YYYY-MM-DD} (W{WW}, {YYYY}) we discussed {topic}. Approach: {approach}

It then passes the episodic guard (cooldown, daily cap, novelty) and becomes an episodic candidate job
whose decision merges it into the last episode of the same theme within
``EPISODIC_MERGE_WINDOW_HOURS`` or creates a new one (``episodic.merge`` / ``episodic.create``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memlane.formation.episodic_guard import EpisodicGuard
from memlane.formation.hotpath import Dropped
from memlane.model.candidate import Candidate, ChatMessage, Episode
from memlane.model.config import Settings
from memlane.model.enums import MemoryType
from memlane.model.ids import new_id
from memlane.model.jobs import Job
from memlane.model.time_buckets import buckets
from memlane.providers.llm.base import MemoryLLM
from memlane.providers.llm.structured import fit

CAPTURE = "capture"


def capture_job(
    user_id: str, thread_id: str | None, messages: Sequence[ChatMessage], at: datetime, time_zone: str
) -> Job:
    payload = {
        "messages": [m.model_dump(mode="json") for m in messages],
        "at": at.isoformat(),
        "tz": time_zone,
    }
    return Job(id=new_id(), user_id=user_id, thread_id=thread_id, kind=CAPTURE, payload=payload)


def episode_summary(episode: Episode, at: datetime, time_zone: str, max_chars: int) -> str:
    """The seed's sentence for ``episode``, cut at a sentence boundary to ``max_chars`` ("" if it cannot be)."""
    date_iso, week, year = buckets(at, time_zone)
    topic = " ".join(episode.topic.split()).rstrip(".") or "the turn"
    approach = " ".join(episode.approach.split())
    approach = approach if approach.endswith((".", "!", "?")) else approach + "."
    return fit(f"On {date_iso} (W{week:02d}, {year}) we discussed {topic}. Approach: {approach}", max_chars)


def episode_candidate(episode: Episode, at: datetime, time_zone: str, max_chars: int) -> Candidate | None:
    summary = episode_summary(episode, at, time_zone, max_chars)
    if not episode.should_create or not summary:
        return None
    return Candidate(
        summary=summary,
        type=MemoryType.EPISODIC,
        category=episode.category or "Other",
        importance=episode.importance,
        tags=[t.strip().lower() for t in episode.tags if t.strip()][:3],
    )


def episodes(
    job: Job, llm: MemoryLLM, guard: EpisodicGuard, settings: Settings
) -> tuple[Episode, list[Candidate], list[Dropped]]:
    """The turn's episode and the candidate the guard keeps (none for a routine turn), with what the
    guard dropped. A provider error propagates: the job is retried."""
    messages = [ChatMessage.model_validate(m) for m in job.payload["messages"]][-settings.episodic_window_n :]
    at = datetime.fromisoformat(job.payload["at"])
    episode = llm.summarize_episode(messages)
    cand = episode_candidate(
        episode, at, job.payload.get("tz") or settings.timezone, settings.memory_candidate_max_chars
    )
    if cand is None:
        return episode, [], []
    kept, dropped = guard.filter(job, at, [cand])
    return episode, kept, dropped
