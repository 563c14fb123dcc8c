"""The storage contract's shape: a backend of small typed parts, no abstract class too big to
implement by hand, and every backend's parts are the parts the rest of memlane is typed against."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import memlane.storage
from memlane.storage.base import Backend
from memlane.storage.parts import ChangeLog, JobQueue, MemoryStore, ProposalStore, SessionStore

MAX_ABSTRACT_METHODS = 12
PARTS = {
    "memories": MemoryStore,
    "jobs": JobQueue,
    "sessions": SessionStore,
    "changes": ChangeLog,
    "proposals": ProposalStore,
}


def _storage_classes() -> list[type]:
    found: list[type] = []
    for info in pkgutil.walk_packages(memlane.storage.__path__, "memlane.storage."):
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional driver not installed here
            continue
        found += [
            c for _, c in inspect.getmembers(module, inspect.isclass) if c.__module__ == module.__name__
        ]
    return found


def test_no_abstract_class_in_storage_has_more_than_twelve_abstract_methods() -> None:
    classes = _storage_classes()
    assert Backend in classes
    too_big = {
        c.__qualname__: len(c.__abstractmethods__)
        for c in classes
        if len(getattr(c, "__abstractmethods__", ())) > MAX_ABSTRACT_METHODS
    }
    assert too_big == {}


def test_every_backend_is_complete_and_has_every_part(any_backend: Backend) -> None:
    assert not type(any_backend).__abstractmethods__
    for name, protocol in PARTS.items():
        part = getattr(any_backend, name)
        assert isinstance(part, protocol), f"{any_backend.name}.{name}"
        missing = [m for m in dir(protocol) if not m.startswith("_") and not callable(getattr(part, m, None))]
        assert missing == [], f"{any_backend.name}.{name} lacks {missing}"
