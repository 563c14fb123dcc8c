"""LangGraph's matching rules: value filters of ``search`` and the match conditions of
``list_namespaces`` (as ``InMemoryStore`` defines them, with unknown operators refused loudly)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from langgraph.store.base import MatchCondition

OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


def check_filter(filter: Mapping[str, Any] | None) -> None:
    """Refuse an unknown ``$operator`` before any work is done (never silently ignored)."""
    for spec in (filter or {}).values():
        if isinstance(spec, Mapping):
            ops = [k for k in spec if isinstance(k, str) and k.startswith("$")]
            bad = [k for k in ops if k not in OPERATORS]
            if bad:
                raise ValueError(f"unsupported filter operator {bad[0]!r}; use one of {', '.join(OPERATORS)}")
            if not ops:
                check_filter(spec)


def matches(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    return all(_compare(value.get(k), spec) for k, spec in (filter or {}).items())


def _compare(item: Any, spec: Any) -> bool:
    if isinstance(spec, Mapping):
        if any(isinstance(k, str) and k.startswith("$") for k in spec):
            return all(_apply(item, op, arg) for op, arg in spec.items())
        return isinstance(item, Mapping) and all(_compare(item.get(k), v) for k, v in spec.items())
    if isinstance(spec, list | tuple):
        return (
            isinstance(item, list | tuple)
            and len(item) == len(spec)
            and all(_compare(i, s) for i, s in zip(item, spec, strict=True))
        )
    return bool(item == spec)


def _apply(item: Any, op: str, arg: Any) -> bool:
    if op == "$eq":
        return bool(item == arg)
    if op == "$ne":
        return bool(item != arg)
    try:
        a, b = float(item), float(arg)
    except (TypeError, ValueError):
        return False  # a missing or non-numeric field is outside every range
    return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]


def conditions(raw: Iterable[MatchCondition] | None) -> list[tuple[str, tuple[str, ...]]]:
    """``(kind, path)`` pairs; a bare string path is one label."""
    out: list[tuple[str, tuple[str, ...]]] = []
    for cond in raw or ():
        path = (cond.path,) if isinstance(cond.path, str) else tuple(cond.path)
        if cond.match_type not in ("prefix", "suffix"):
            raise ValueError(f"unsupported match type {cond.match_type!r}; use prefix or suffix")
        out.append((cond.match_type, path))
    return out


def namespace_matches(namespace: Sequence[str], conds: Sequence[tuple[str, tuple[str, ...]]]) -> bool:
    """Prefix and suffix conditions align to whole labels; ``"*"`` matches exactly one label."""
    for kind, path in conds:
        if len(namespace) < len(path):
            return False
        labels = namespace[: len(path)] if kind == "prefix" else namespace[len(namespace) - len(path) :]
        if any(p != "*" and p != label for p, label in zip(path, labels, strict=True)):
            return False
    return True
