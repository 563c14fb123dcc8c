"""Per-user terms in the one FTS5 index.

FTS5 has no partition key: a query for one user's memories walked the whole store's posting list of
every query word, so a common word ("like", "work") cost time in proportion to all users' memories
(3.7 ms for one such word at 100k memories). Every indexed word is therefore written with the user's
token in front of it (``1234…5678likes``) and the query asks for the same prefixed words, so each
posting list holds one user's memories only. The token is digits, which the ``porter`` stemmer
treats like consonants in front of a word, so stems come out as for the bare word
(``…hiking`` → ``…hike``), and bm25's document frequencies become the user's own.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@lru_cache(maxsize=4096)
def user_token(user_id: str) -> str:
    """A digits-only token naming the user (stored in the ``uid`` column and in front of each word)."""
    return str(int(hashlib.sha1(user_id.encode()).hexdigest()[:15], 16))


def indexed_text(token: str, text: str) -> str:
    """``text`` with every word prefixed by the user's ``token``."""
    return _WORD.sub(lambda m: token + m.group(0), text)


def fts_row(rid: int, user_id: str, summary: str, tags: Sequence[str]) -> tuple[int, str, str, str]:
    """The ``memories_fts`` row of a memory: rowid, uid, summary, tags."""
    token = user_token(user_id)
    return rid, token, indexed_text(token, summary), indexed_text(token, " ".join(tags))


def match_query(user_ids: Sequence[str], words: Sequence[str]) -> str:
    """An FTS5 query for any of ``words`` in the summaries and tags of these users' memories."""
    terms = [f'"{user_token(u)}{w}"' for u in user_ids for w in words]
    return "{summary tags} : (" + " OR ".join(terms) + ")"


def refill(c: Any) -> None:
    """Rebuild the index from ``memories`` (schema 3: stores indexed before words were prefixed)."""
    c.execute("DELETE FROM memories_fts")
    rows = c.execute("SELECT rid, user_id, summary, tags FROM memories WHERE state != 'purged'").fetchall()
    c.executemany(
        "INSERT INTO memories_fts(rowid, uid, summary, tags) VALUES (?, ?, ?, ?)",
        [fts_row(r[0], r[1], r[2], json.loads(r[3] or "[]")) for r in rows],
    )


def refill_messages(c: Any) -> None:
    """Index the messages recorded before messages had keywords (schema 10)."""
    rows = c.execute("SELECT rowid, user_id, text FROM messages").fetchall()
    c.executemany(
        "INSERT INTO messages_fts(rowid, uid, text) VALUES (?, ?, ?)",
        [message_row(r[0], r[1], r[2]) for r in rows],
    )


def message_row(rowid: int, user_id: str, text: str) -> tuple[int, str, str]:
    """The ``messages_fts`` row of a message: rowid, uid, text."""
    token = user_token(user_id)
    return rowid, token, indexed_text(token, text)


def match_messages(user_id: str, words: Sequence[str]) -> str:
    """An FTS5 query for any of ``words`` in the user's messages."""
    return "text : (" + " OR ".join(f'"{user_token(user_id)}{w}"' for w in words) + ")"
