"""Identifiers: time-ordered random ids (UUIDv7) for new rows, ``uuid5(namespace|key)`` for
deterministic keys."""

from __future__ import annotations

import os
import re
import time
import uuid

_USER_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@\-]{0,127}$")


def new_id() -> str:
    """A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then 74 random bits. Ids made one after
    another sort together, so the id indexes of memories and history grow at their end instead of
    touching a random page per row (measured: about a tenth of the write cost at 100k memories)."""
    value = (time.time_ns() // 1_000_000) << 80 | int.from_bytes(os.urandom(10), "big")
    value = value & ~(0xF << 76) | 0x7 << 76  # version 7
    value = value & ~(0x3 << 62) | 0x2 << 62  # RFC 9562 variant
    h = f"{value:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def deterministic_id(user_id: str, mem_type: str, key: str) -> str:
    """Stable id of a keyed memory: the same (user, type, key) always names the same memory."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{user_id}|{mem_type}::{key}"))


def is_valid_user_id(user_id: object) -> bool:
    return isinstance(user_id, str) and bool(_USER_ID.match(user_id))


# The owner of global memories. Not a valid user id (the rule wants a letter or digit first), so no
# caller can act as it: global memories are written through mem.sharing.put_global and read through links.
GLOBAL_USER = "__global__"

USER_ID_RULE = "1-128 characters: letters, digits and _ . : @ -, starting with a letter or digit"
