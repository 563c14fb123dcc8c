"""Issue 13 benchmark: daily consolidation over many users with injected paraphrase duplicates.

    python benchmarks/consolidation_bench.py --users 100 --per-user 100 --dup-rate 0.1 --backends sqlite

Each user gets ``--per-user`` memories written with ``put_many`` (no deduplication on the way in):
distinct facts of one coherent person from 12 templates (each named person has one kin, one city and
one age; a pastime is liked or disliked, not both; so no two facts contradict), with near misses
("User's sister Ana loves jazz" beside "User is learning jazz with Ana"), and for ``--dup-rate`` of them a paraphrase from a second
wording of the same template, written after the original. One consolidation run per user (the
bundled all-MiniLM-L6-v2 embedder, the offline rules judge, counted at the provider boundary) then
merges or supersedes. Printed: injected pairs, merges and supersedes, precision and recall of merges
against the injected pairs, wrong writes, judge calls, pairs judged, wall time.

The templates are this benchmark's own and were written before the first run; nothing was tuned on
its result.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Sequence
from datetime import timedelta

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("MEMLANE_CONFIG", os.devnull + ".toml")  # no ~/.memlane/config.toml here

from benchmarks.common import postgres_url, sqlite_path  # noqa: E402
from memlane import Memory  # noqa: E402
from memlane.model.candidate import ConflictVerdict  # noqa: E402
from memlane.model.config import Settings  # noqa: E402
from memlane.model.enums import MemoryState  # noqa: E402
from memlane.model.record import utcnow  # noqa: E402
from memlane.providers.embed import get_embedder  # noqa: E402
from memlane.providers.llm.rules.llm import RulesLLM  # noqa: E402

NAMES = [
    "Ana",
    "Leo",
    "Ivy",
    "Omar",
    "Mina",
    "Theo",
    "Zoe",
    "Ravi",
    "Lena",
    "Kofi",
    "Sara",
    "Jonas",
    "Nadia",
    "Paulo",
    "Hana",
    "Felix",
    "Aisha",
    "Tomas",
    "Yuki",
    "Marta",
]
PLACES = [
    "Lisbon",
    "Oslo",
    "Lyon",
    "Kyoto",
    "Accra",
    "Quito",
    "Tallinn",
    "Denver",
    "Porto",
    "Austin",
    "Hanoi",
    "Cusco",
]
THINGS = [
    "jazz",
    "chess",
    "tennis",
    "sci-fi novels",
    "pottery",
    "opera",
    "hiking",
    "salsa dancing",
    "birdwatching",
    "climbing",
    "knitting",
    "astronomy",
]
FOODS = ["sushi", "ramen", "lasagne", "tacos", "pho", "curry", "paella", "dumplings"]
KIN = ["sister", "brother", "daughter", "son", "cousin", "friend", "colleague", "neighbour"]
# (wording, paraphrase). Slots: {n} a person (one kin {k}, one city {p}, one age {y} per user), {t} a
# pastime (liked or disliked, not both), {f} a food, {v} a place visited once, in year {w}.
TEMPLATES = [
    ("User's {k} is named {n}.", "User has a {k} called {n}."),
    ("User's {k} {n} lives in {p}.", "{n}, the user's {k}, is based in {p}."),
    ("User's {k} {n} loves {t}.", "{n}, who is the user's {k}, is really into {t}."),
    ("User enjoys {t}.", "User is a fan of {t}."),
    ("User visited {v} in {w}.", "In {w} the user went on a trip to {v}."),
    ("User's {k} {n} turns {y} this year.", "{n}, the user's {k}, will be {y} this year."),
    ("User dislikes {t}.", "User does not like {t}."),
    ("User is learning {t} with {n}.", "User and {n} are studying {t} together."),
    ("User met {n} in {v}.", "User first got to know {n} in {v}."),
    ("User often cooks {f}.", "User makes {f} at home a lot."),
    ("User takes {t} lessons on Mondays.", "Every Monday the user has a {t} lesson."),
    ("User gave {n} a book about {t}.", "User gifted {n} a book on {t}."),
]
LIKES, DISLIKES = 3, 6  # templates that fix a pastime's polarity


class CountingJudge(RulesLLM):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def judge(self, candidate: str, existing: Sequence[str]) -> list[ConflictVerdict]:
        self.calls += 1
        return super().judge(candidate, existing)


def user_facts(rng: random.Random, n: int, dup_rate: float) -> tuple[list[str], list[tuple[int, int]]]:
    """A coherent user's distinct facts, then paraphrases of some; pairs are (original, paraphrase) indices."""
    people = {name: (rng.choice(KIN), rng.choice(PLACES), rng.randrange(4, 70)) for name in NAMES}
    visits = {place: rng.randrange(1990, 2025) for place in PLACES}
    polarity = {thing: rng.choice((LIKES, DISLIKES)) for thing in THINGS}
    facts: list[str] = []
    forms: list[tuple[int, dict[str, object]]] = []
    n_dups = round(n * dup_rate)
    tries = 0
    while len(facts) < n - n_dups and tries < 100 * n:
        tries += 1
        t, name, thing, place = (
            rng.randrange(len(TEMPLATES)),
            rng.choice(NAMES),
            rng.choice(THINGS),
            rng.choice(PLACES),
        )
        if t in (LIKES, DISLIKES) and polarity[thing] != t:
            continue
        kin, city, age = people[name]
        slots = {
            "n": name,
            "k": kin,
            "p": city,
            "y": age,
            "t": thing,
            "f": rng.choice(FOODS),
            "v": place,
            "w": visits[place],
        }
        text = TEMPLATES[t][0].format(**slots)
        if text not in facts:
            facts.append(text)
            forms.append((t, slots))
    pairs = []
    for i in rng.sample(range(len(facts)), n_dups):
        t, slots = forms[i]
        pairs.append((i, len(facts)))
        facts.append(TEMPLATES[t][1].format(**slots))
    return facts, pairs


def run(location: str, users: int, per_user: int, dup_rate: float, seed: int) -> None:
    rng = random.Random(seed)
    judge = CountingJudge()
    embedder = get_embedder("local")
    settings = Settings(db=location, memlane_schedule={"consolidate": 24}, worker=False)
    with Memory(location, embedder=embedder, llm=judge, settings=settings) as mem:
        truth: set[frozenset[str]] = set()
        t = time.perf_counter()
        for u in range(users):
            facts, pairs = user_facts(rng, per_user, dup_rate)
            recs = mem.put_many([{"summary": f} for f in facts], user_id=f"user{u:03d}")
            truth |= {frozenset((recs[a].id, recs[b].id)) for a, b in pairs}
        load_s = time.perf_counter() - t
        t0 = utcnow()
        mem.run_tasks(at=t0)
        t = time.perf_counter()
        ran = mem.run_tasks(at=t0 + timedelta(hours=25))
        run_s = time.perf_counter() - t
        merged, superseded, judged = set(), set(), 0
        for job in mem.backend.jobs.list_jobs(None, limit=100_000):
            if job.kind == "task.consolidate" and job.status.value == "done":
                judged += int(job.payload.get("pairs", 0))
        for u in range(users):
            for rec in mem.list(user_id=f"user{u:03d}", include_inactive=True, limit=10_000):
                if rec.state is MemoryState.SUPERSEDED and rec.superseded_by:
                    pair = frozenset((rec.id, rec.superseded_by))
                    (merged if rec.id in _merged_ids(mem, rec) else superseded).add(pair)
        right = len(merged & truth)
        print(
            f"{location.split('://')[0] if '://' in location else 'sqlite'}: {users} users x {per_user} memories "
            f"(load {load_s:.1f}s); {ran} runs in {run_s:.1f}s ({run_s / max(1, ran) * 1000:.0f} ms/user)"
        )
        print(f"  injected duplicate pairs {len(truth)}; pairs judged {judged}; judge calls {judge.calls}")
        print(
            f"  merges {len(merged)} (right {right}): precision {right / max(1, len(merged)):.3f}, "
            f"recall {right / max(1, len(truth)):.3f}"
        )
        print(
            f"  supersedes {len(superseded)} (none injected: each is a wrong write; "
            f"{len(superseded & truth)} of them on an injected duplicate pair)"
        )


def _merged_ids(mem: Memory, rec: object) -> set[str]:
    """The record was closed by a merge (its keeper lists it in merged_from)."""
    keeper = mem.get(rec.superseded_by, user_id=rec.user_id)  # type: ignore[attr-defined]
    return set(keeper.merged_from)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=100)
    ap.add_argument("--per-user", type=int, default=100)
    ap.add_argument("--dup-rate", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--backends", default="sqlite")
    args = ap.parse_args()
    for backend in args.backends.split(","):
        with sqlite_path() if backend == "sqlite" else postgres_url() as location:
            run(location, args.users, args.per_user, args.dup_rate, args.seed)


if __name__ == "__main__":
    main()
