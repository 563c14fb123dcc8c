"""Rows of one user's export made into another user's (``memlane import --user``): every row gets the
new user id, and memory, history, session and message ids get new ones (ids are unique across users) with every reference
to them (supersede chains, merges, relations, history snapshots) following. The new ids are derived
from the old ones, so importing the same file twice writes the same memories again, not copies."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from memlane.model.errors import ValidationError
from memlane.model.ids import deterministic_id

ID_LISTS = ("merged_from", "related")


def _new_id(user_id: str, what: str, old: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{user_id}|import-{what}|{old}"))


def _memory_id(user_id: str, row: Mapping[str, Any]) -> str:
    """A keyed memory gets the id its key has for the new user (a later put of that key updates it)."""
    if row.get("key") and isinstance(row.get("type"), str):
        return deterministic_id(user_id, row["type"], str(row["key"]))
    return _new_id(user_id, "memory", str(row.get("id")))


def _snapshot(value: Any, user_id: str, ids: Mapping[str, str]) -> Any:
    """A memory snapshot (a row, or a history row's old/new value) with the user and ids replaced."""
    if not isinstance(value, Mapping):
        return value
    out = dict(value)
    if "user_id" in out:
        out["user_id"] = user_id
    for name in ("id", "superseded_by"):
        if isinstance(out.get(name), str):
            out[name] = ids.get(out[name], out[name])
    for name in ID_LISTS:
        if isinstance(out.get(name), list):
            out[name] = [ids.get(i, i) if isinstance(i, str) else i for i in out[name]]
    return out


def as_user(rows: Iterable[Any], user_id: str) -> list[Any]:
    """The rows as ``user_id``'s. Rows already of ``user_id`` are unchanged; rows of several other users
    are refused (an export holds one user)."""
    rows = list(rows)
    owners = {r.get("user_id") for r in rows if isinstance(r, Mapping)}
    if owners <= {user_id}:
        return rows
    if len(owners) > 1:
        names = ", ".join(sorted(map(str, owners)))
        raise ValidationError(
            f"the rows belong to several users ({names}); importing as {user_id!r} takes one "
            "user's export (memlane export --user U)"
        )
    ids = {
        str(r["id"]): _memory_id(user_id, r)
        for r in rows
        if isinstance(r, Mapping) and r.get("kind", "memory") == "memory" and "id" in r
    }
    out: list[Any] = []
    for row in rows:
        if not isinstance(row, Mapping):
            out.append(row)  # the importer names the bad row
            continue
        kind = row.get("kind", "memory")
        new = dict(row, user_id=user_id)
        if kind == "memory":
            new = _snapshot(new, user_id, ids)
        elif kind == "history":
            new["id"] = _new_id(user_id, "history", str(row.get("id")))
            new["memory_id"] = ids.get(str(row.get("memory_id")), row.get("memory_id"))
            for name in ("old_value", "new_value"):
                new[name] = _snapshot(row.get(name), user_id, ids)
        elif kind == "relation":
            for name in ("from_id", "to_id"):
                new[name] = ids.get(str(row.get(name)), row.get(name))
        elif kind == "session":
            new["id"] = _new_id(user_id, "session", str(row.get("id")))
            if isinstance(row.get("memory_id"), str):
                new["memory_id"] = ids.get(row["memory_id"], row["memory_id"])
        elif kind == "message":
            new["id"] = _new_id(user_id, "message", str(row.get("id")))
            new["session_id"] = _new_id(user_id, "session", str(row.get("session_id")))
        out.append(new)
    return out
