"""The episodic guard: which of a turn's episodic candidates may become episodes. Semantic candidates pass untouched. Three rules, each reported when it drops:

- ``episodic_cooldown``: the last turn that kept an episode was fewer than ``EPISODIC_COOLDOWN_TURNS``
  turns (the next turn is 1) and fewer than ``EPISODIC_COOLDOWN_MINUTES`` minutes ago; the cooldown is
  over once either has passed. A turn is one job of the user of the kind being guarded (every thread):
  a captured turn (``capture``), or an accepted turn (``turn``) when the hot path proposes episodes.
- ``episodic_daily_cap``: the user already has ``EPISODIC_MAX_PER_DAY`` episodic memories (stored
  and active, or queued as candidate jobs) on the turn's day in ``MEMLANE_TIMEZONE``; the most
  important candidates fill what is left.
- ``episodic_not_novel``: novelty (1 - the highest cosine similarity to the last ``EPISODIC_WINDOW_N``
  episodes, queued ones and the turn's earlier candidates included) is below ``EPISODIC_NOVELTY_MIN``.

Times are the turns' observed times (``at``), so an imported conversation is guarded as it was held.
Two hot paths of one user running at the same moment may both pass (the guard takes no lock).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from memlane.formation.hotpath import CANDIDATE, Dropped
from memlane.model.candidate import Candidate
from memlane.model.config import Settings
from memlane.model.enums import MemoryType
from memlane.model.filters import Condition, live
from memlane.model.jobs import Job, JobStatus
from memlane.model.time_buckets import buckets
from memlane.providers.embed import Embedder
from memlane.retrieval.hybrid import cosines
from memlane.storage.base import Backend

QUEUED_LIMIT = 500  # queued candidate jobs of one user looked at (a backlog larger than this is not counted)
EPISODIC = [Condition("type", "$eq", MemoryType.EPISODIC.value)]


class EpisodicGuard:
    def __init__(self, backend: Backend, embedder: Embedder, settings: Settings) -> None:
        self.backend, self.embedder, self.settings = backend, embedder, settings

    def filter(
        self, turn: Job, at: datetime, candidates: Sequence[Candidate]
    ) -> tuple[list[Candidate], list[Dropped]]:
        """The turn's candidates the guard keeps (in their order) and what each rule dropped."""
        episodic = [c for c in candidates if c.type is MemoryType.EPISODIC]
        if not episodic:
            return list(candidates), []
        cooldown = self._cooldown(turn, at)
        if cooldown:
            message = f"{len(episodic)} episodic candidate(s) not stored: {cooldown}"
            return _without(candidates, episodic), [Dropped("episodic_cooldown", len(episodic), message)]
        queued = self._queued(turn.user_id)
        day = buckets(at, self.settings.timezone)[0]
        room = self.settings.episodic_max_per_day - self._episodes_on(turn.user_id, day, queued)
        dropped: list[Dropped] = []
        novel = episodic
        if room > 0:
            novel, not_novel = self._novel(turn.user_id, episodic, [summary for _, summary in queued])
            dropped += not_novel
        ranked = sorted(novel, key=lambda c: -c.importance)
        kept, over = ranked[: max(0, room)], ranked[max(0, room) :]
        if over:
            dropped.append(
                Dropped(
                    "episodic_daily_cap",
                    len(over),
                    f"{len(over)} episodic candidate(s) over EPISODIC_MAX_PER_DAY "
                    f"({self.settings.episodic_max_per_day}) on {day}",
                )
            )
        return _without(candidates, _without(episodic, kept)), dropped

    def _episodes_on(self, user_id: str, day: str, queued: list[tuple[datetime, str]]) -> int:
        """The user's active episodic memories of ``day`` plus the queued episodic candidates of it."""
        stored = self.backend.memories.count(user_id, [*live(), *EPISODIC, Condition("date_iso", "$eq", day)])
        return stored + sum(buckets(t, self.settings.timezone)[0] == day for t, _ in queued)

    def _cooldown(self, turn: Job, at: datetime) -> str | None:
        """Why the turn is within the cooldown, or None. The previous turns are those accepted before
        it (a backlog of later turns waiting for extraction does not count)."""
        turns, minutes = self.settings.episodic_cooldown_turns, self.settings.episodic_cooldown_minutes
        if turns <= 1 or minutes <= 0:
            return None
        previous = self.backend.jobs.recent_jobs(
            turn.user_id, turn.kind, before=turn.created_at, limit=turns - 1
        )
        for ago, job in enumerate(previous, 1):
            if job.payload.get("episodic") and "at" in job.payload:
                gap = abs(at - datetime.fromisoformat(job.payload["at"]))
                if gap < timedelta(minutes=minutes):
                    return (
                        f"the last episode was {ago} turn(s) and {gap.total_seconds() / 60:.0f} minute(s) ago, "
                        f"within EPISODIC_COOLDOWN_TURNS ({turns}) and EPISODIC_COOLDOWN_MINUTES ({minutes:g})"
                    )
                return None
        return None

    def _queued(self, user_id: str) -> list[tuple[datetime, str]]:
        """Episodic candidates still waiting for their decision: (observed time, summary)."""
        jobs = [
            j
            for status in (JobStatus.PENDING, JobStatus.RUNNING)
            for j in self.backend.jobs.list_jobs(status, user_id=user_id, limit=QUEUED_LIMIT)
        ]
        return [
            (datetime.fromisoformat(j.payload["at"]), j.payload["candidate"]["summary"])
            for j in jobs
            if j.kind == CANDIDATE and j.payload.get("candidate", {}).get("type") == MemoryType.EPISODIC.value
        ]

    def _novel(
        self, user_id: str, candidates: list[Candidate], queued: list[str]
    ) -> tuple[list[Candidate], list[Dropped]]:
        """The candidates new enough against the last episodes (and the turn's candidates kept before
        them), and the report of the others."""
        minimum, window = self.settings.episodic_novelty_min, self.settings.episodic_window_n
        if minimum <= 0:
            return candidates, []
        queued = queued[-window:]  # the last episodes: the newest queued ones, then the newest stored ones
        room = window - len(queued)
        recent = self.backend.memories.list(user_id, [*live(), *EPISODIC], limit=room) if room > 0 else []
        known = dict(self.backend.memories.vectors(user_id, [r.id for r in recent]))
        vectors = self.embedder.embed([c.summary for c in candidates] + queued)
        known.update({f"queued-{i}": v for i, v in enumerate(vectors[len(candidates) :])})
        kept: list[Candidate] = []
        lowest = 1.0
        for i, (cand, vector) in enumerate(zip(candidates, vectors, strict=False)):
            novelty = 1.0 - max(cosines(vector, known).values(), default=0.0)
            if novelty >= minimum:
                kept.append(cand)
                known[f"turn-{i}"] = vector
            else:
                lowest = min(lowest, novelty)
        n = len(candidates) - len(kept)
        if not n:
            return kept, []
        return kept, [
            Dropped(
                "episodic_not_novel",
                n,
                f"{n} episodic candidate(s) too close to a recent episode: "
                f"novelty {lowest:.2f} below EPISODIC_NOVELTY_MIN ({minimum:g})",
            )
        ]


def _without(candidates: Sequence[Candidate], drop: Sequence[Candidate]) -> list[Candidate]:
    gone = {id(c) for c in drop}
    return [c for c in candidates if id(c) not in gone]
