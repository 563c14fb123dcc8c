"""A namespace of :class:`~memlane.engine.memory.Memory` (``mem.proposals.accept(...)``) and the old
flat names kept one release (``mem.accept_proposal(...)``), which warn with the new call."""

from __future__ import annotations

import functools
import types
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, TypeVar, overload

if TYPE_CHECKING:
    from memlane.engine.memory import Memory

P = ParamSpec("P")
R = TypeVar("R")
N = TypeVar("N")


class Namespace:
    """A group of calls over the same engine; ``mem`` is the :class:`Memory` it belongs to."""

    def __init__(self, mem: Memory) -> None:
        self.mem = mem


def warn_renamed(old: str, new: str) -> None:
    warnings.warn(f"{old}() is deprecated; use {new}() instead", DeprecationWarning, stacklevel=3)


class Renamed(Generic[N, P, R]):
    """``accept_proposal = Renamed("proposals", Proposals.accept)`` on Memory: the old name of
    ``mem.proposals.accept``, with its signature, warning on each call."""

    def __init__(self, namespace: str, fn: Callable[Concatenate[N, P], R]) -> None:
        self.namespace, self.fn = namespace, fn
        self.old = fn.__name__

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self.old = name

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> Callable[Concatenate[Any, P], R]: ...

    @overload
    def __get__(self, obj: object, owner: type[Any]) -> Callable[P, R]: ...

    def __get__(self, obj: object | None, owner: type[Any]) -> Callable[..., R]:
        new = f"mem.{self.namespace}.{self.fn.__name__}"
        old = f"Memory.{self.old}"
        if obj is None:  # read on the class (an async twin of the old name): the call takes the Memory

            def unbound(mem: Any, *args: P.args, **kwargs: P.kwargs) -> R:
                warn_renamed(old, new)
                return self.fn(getattr(mem, self.namespace), *args, **kwargs)

            return unbound
        bound = types.MethodType(self.fn, getattr(obj, self.namespace))

        @functools.wraps(bound)
        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            warn_renamed(old, new)
            return bound(*args, **kwargs)

        return call
