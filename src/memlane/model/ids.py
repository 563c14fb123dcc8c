"""Identifiers: random ids for new memories, ``uuid5(namespace|key)`` for deterministic keys."""

from __future__ import annotations

import re
import uuid

_USER_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@\-]{0,127}$")


def new_id() -> str:
    return str(uuid.uuid4())


def deterministic_id(user_id: str, mem_type: str, key: str) -> str:
    """Stable id of a keyed memory: the same (user, type, key) always names the same memory."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{user_id}|{mem_type}::{key}"))


def is_valid_user_id(user_id: object) -> bool:
    return isinstance(user_id, str) and bool(_USER_ID.match(user_id))


USER_ID_RULE = "1-128 characters: letters, digits and _ . : @ -, starting with a letter or digit"
