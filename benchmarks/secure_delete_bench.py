"""Issue 30 benchmark: what SQLite's ``secure_delete`` (on by default) costs memlane's writes.

    python benchmarks/secure_delete_bench.py --users 20 --per-user 100 --rounds 3

Two stores side by side, one with ``secure_delete`` on and one off, fed the same work in alternating
rounds (so both see the same machine load): bulk ingest (``put_many``, batches of 50), summary updates
(each rewrites a row, its keyword entries and its vector), purges, and ``delete_user``. Prints per
operation the time of each setting, the ratio on/off, and the file sizes; then what ``compact``
takes back after the deletions. The embedder is the hash embedder at 384 dims (the local model's
size) so the figures are storage's own, not the model's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from benchmarks.common import sentences, sqlite_path  # noqa: E402
from memlane import Memory  # noqa: E402
from memlane.model.config import Settings  # noqa: E402
from memlane.providers.embed.hash import HashEmbedder  # noqa: E402

BATCH = 50


def open_store(path: str, secure: bool) -> Memory:
    settings = Settings(db=path, worker=False, sqlite_secure_delete=secure)
    return Memory(path, embedder=HashEmbedder(384), llm="rules", settings=settings)


def clock(fn: Callable[..., object], *args: object, **kwargs: object) -> float:
    t0 = time.perf_counter()
    fn(*args, **kwargs)
    return (time.perf_counter() - t0) * 1000


def one_round(mem: Memory, tag: str, users: int, per_user: int, texts: list[str]) -> dict[str, float]:
    """The same work on one store; milliseconds per operation kind."""
    out: dict[str, float] = {}
    ids: dict[str, list[str]] = {}
    t = 0.0
    for u in range(users):
        user = f"{tag}-u{u}"
        mine = texts[u * per_user : (u + 1) * per_user]
        for i in range(0, len(mine), BATCH):
            items = [{"summary": s} for s in mine[i : i + BATCH]]
            t0 = time.perf_counter()
            made = mem.put_many(items, user_id=user)
            t += time.perf_counter() - t0
            ids.setdefault(user, []).extend(r.id for r in made)
    out["ingest ms/memory"] = t * 1000 / (users * per_user)
    some = [(user, mid) for user, mids in ids.items() for mid in mids[:10]]
    out["update ms"] = statistics.mean(
        clock(mem.update, mid, user_id=user, summary=f"Changed: {mid}.") for user, mid in some
    )
    out["purge ms"] = statistics.mean(clock(mem.purge, mid, user_id=user) for user, mid in some)
    gone = list(ids)[: max(1, users // 4)]
    out["delete_user ms"] = statistics.mean(clock(mem.delete_user, user) for user in gone)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--per-user", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    texts = sentences(args.users * args.per_user, seed=30)
    with sqlite_path() as on_path, sqlite_path() as off_path:
        stores = {"on": open_store(on_path, True), "off": open_store(off_path, False)}
        figures: dict[str, dict[str, list[float]]] = {"on": {}, "off": {}}
        for r in range(args.rounds):
            for mode in ("on", "off") if r % 2 == 0 else ("off", "on"):  # alternate who goes first
                for name, ms in one_round(stores[mode], f"r{r}", args.users, args.per_user, texts).items():
                    figures[mode].setdefault(name, []).append(ms)
        print(
            f"secure_delete on vs off: {args.users} users x {args.per_user} memories per round, "
            f"{args.rounds} rounds (median of rounds)"
        )
        print(f"{'operation':<20} {'on':>10} {'off':>10} {'on/off':>8}")
        for name in figures["on"]:
            on, off = statistics.median(figures["on"][name]), statistics.median(figures["off"][name])
            print(f"{name:<20} {on:>10.3f} {off:>10.3f} {on / off:>8.2f}")
        for mode, mem in stores.items():
            path = on_path if mode == "on" else off_path
            wal = f"{path}-wal"
            before = os.path.getsize(path) + (os.path.getsize(wal) if os.path.exists(wal) else 0)
            t0 = time.perf_counter()
            sizes = mem.compact()
            took = time.perf_counter() - t0
            print(
                f"file ({mode}): {before / 1e6:.1f} MB with its log; compact -> {sizes['bytes_after'] / 1e6:.1f} MB "
                f"in {took:.2f} s"
            )
            mem.close()


if __name__ == "__main__":
    main()
