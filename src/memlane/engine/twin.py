"""The one wrapper that makes an async twin of a sync method, keeping its parameter and return types."""

from __future__ import annotations

import asyncio
import functools
import types
from collections.abc import Awaitable, Callable
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S")


class Twin(Generic[S, P, R]):
    """A class attribute ``name = Twin(Sync.name)`` of an async facade: read on an instance, it is the
    sync method bound to the instance's ``sync`` object, run in a worker thread and awaited."""

    def __init__(self, fn: Callable[Concatenate[S, P], R]) -> None:
        self.fn = fn
        functools.update_wrapper(self, fn)  # type: ignore[arg-type]

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> Twin[S, P, R]: ...

    @overload
    def __get__(self, obj: object, owner: type[Any]) -> Callable[P, Awaitable[R]]: ...

    def __get__(self, obj: object | None, owner: type[Any]) -> Twin[S, P, R] | Callable[P, Awaitable[R]]:
        if obj is None:
            return self
        bound = types.MethodType(self.fn, obj.sync)  # type: ignore[attr-defined]

        @functools.wraps(bound)
        async def call(*args: P.args, **kwargs: P.kwargs) -> R:
            return await asyncio.to_thread(bound, *args, **kwargs)

        return call
