"""Small builders shared by the PostgreSQL-specific test modules (the `pg` fixture is in conftest)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg

from memlane.model.record import MemoryRecord

DIMS = 8


def vec(*head: float) -> list[float]:
    return [*head, *([0.0] * (DIMS - len(head)))]


def rec(mid: str, user: str = "u1", summary: str = "a memory", **kw: Any) -> MemoryRecord:
    return MemoryRecord(id=mid, user_id=user, summary=summary, **kw)


def query(url: str, statement: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        return conn.execute(statement, params).fetchall()


def in_threads(n: int, fn: Callable[[int], Any]) -> list[Any]:
    barrier = threading.Barrier(n)

    def run(i: int) -> Any:
        barrier.wait()  # start together, so the calls really overlap
        return fn(i)

    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(run, range(n)))
