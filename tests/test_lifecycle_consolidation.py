"""Daily consolidation on SQLite and a real PostgreSQL, with the bundled embedder and the rules judge
(counted at the provider boundary): paraphrases written side by side are merged into the older
memory, a newer contradicting fact retires the older one, unrelated memories stay; judged pairs are
not judged again within 14 days; the per-user pair cap and token budget hold."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from memlane import Memory
from memlane.model.candidate import ConflictVerdict
from memlane.model.config import Settings
from memlane.model.enums import HistoryEvent, MemoryState
from memlane.model.jobs import JobStatus
from memlane.model.record import utcnow
from memlane.providers.llm.rules.llm import RulesLLM
from tests.formation_helpers import local_embedder

U = "maya"
FACTS = [
    "User enjoys hiking on weekends.",
    "User lives in Lisbon.",
    "User plays the cello.",
    "User likes to hike at weekends.",
    "User lives in Porto.",
]


class CountingJudge(RulesLLM):
    """The real rules judge, counting the calls consolidation makes."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, int]] = []

    def judge(self, candidate: str, existing: Sequence[str]) -> list[ConflictVerdict]:
        self.calls.append((candidate, len(existing)))
        return super().judge(candidate, existing)


def open_mem(location: str, judge: RulesLLM, **settings: object) -> Memory:
    return Memory(
        location,
        embedder=local_embedder(),
        llm=judge,
        settings=Settings(db=location, memlane_schedule={"consolidate": 24}, **settings),
    )


def report(mem: Memory) -> list[dict[str, object]]:
    return [j.payload for j in mem.jobs.list(JobStatus.DONE.value, user_id=U) if j.kind == "task.consolidate"]


def test_paraphrases_merge_corrections_supersede_and_judged_pairs_wait(location: str) -> None:
    judge = CountingJudge()
    with open_mem(location, judge) as mem:
        recs = {f: mem.put(f, user_id=U) for f in FACTS}
        t0 = utcnow()
        mem.run_tasks(at=t0)
        assert mem.run_tasks(at=t0 + timedelta(hours=25)) == 1

        older, newer = recs[FACTS[0]], recs[FACTS[3]]
        kept, gone = mem.get(older.id, user_id=U), mem.get(newer.id, user_id=U)
        assert kept.state is MemoryState.ACTIVE and kept.merged_from == [newer.id]
        assert gone.state is MemoryState.SUPERSEDED and gone.superseded_by == older.id
        merges = [c for c in mem.backend.changes.changes_after(U, 0, limit=100) if c.event == "merged"]
        assert [(c.meta["from"], c.meta["into"]) for c in merges] == [(newer.id, older.id)]
        assert HistoryEvent.MERGE in [h.event for h in mem.history(newer.id, user_id=U)]

        lisbon, porto = mem.get(recs[FACTS[1]].id, user_id=U), mem.get(recs[FACTS[4]].id, user_id=U)
        assert lisbon.state is MemoryState.SUPERSEDED and lisbon.superseded_by == porto.id
        assert porto.state is MemoryState.ACTIVE
        assert mem.get(recs[FACTS[2]].id, user_id=U).state is MemoryState.ACTIVE
        live = [h.memory.summary for h in mem.search("where does the user live?", user_id=U)]
        assert "User lives in Porto." in live and "User lives in Lisbon." not in live

        (first,) = report(mem)
        assert first["merged"] == 1 and first["superseded"] == 1 and first["calls"] == len(judge.calls) >= 1
        assert int(str(first["pairs"])) >= 2

        calls = len(judge.calls)
        mem.put("User has a cat named Miso.", user_id=U)
        mem.run_tasks(at=t0 + timedelta(hours=49))
        assert all(
            "hike" not in c and "Porto" not in c for c, _ in judge.calls[calls:]
        )  # judged pairs wait 14 days


def test_the_pair_cap_and_the_token_budget_hold(location: str) -> None:
    judge = CountingJudge()
    with open_mem(location, judge, memory_consolidation_max_pairs=1) as mem:
        for f in FACTS:
            mem.put(f, user_id=U)
        t0 = utcnow()
        mem.run_tasks(at=t0)
        mem.run_tasks(at=t0 + timedelta(hours=25))
        assert report(mem)[0]["pairs"] == 1 and sum(n for _, n in judge.calls) == 1
    judge = CountingJudge()
    with open_mem(location, judge, memory_consolidation_token_budget=0) as mem:
        mem.run_tasks(at=t0 + timedelta(hours=50))
        assert judge.calls == [] and report(mem)[-1]["calls"] == 0
