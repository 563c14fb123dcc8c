"""Large users' vectors held in memory, scanned with numpy.

vec0 scans a user's partition with a scalar cosine loop: about 0.6 µs per 384-dim vector, 6 ms for a
user with 10,000 memories, which is most of a context block's time at that size. For users with at
least :data:`MIN_VECTORS` vectors the backend keeps their normalised vectors as one float32 matrix
(one matrix-vector product: under a millisecond) with each row's rowid, type and state.

The copy follows the database through ``vector_journal``: every write that adds, replaces, moves or
removes a vector appends the rowid it touched (``-1``: everything of the user changed) in the same
transaction, from any process. Before a scan the cache reads the journal past the sequence it has
seen (usually nothing: one primary-key range), notes the changed rowids of the users it holds, and
re-reads just those rows of the user scanned. The journal has no user index: with a batch spread
over many users, each such index entry dirtied a page of its own (30 us per record at 100k).
Memory is bounded by :data:`MAX_BYTES` (least recently used users are dropped); the journal by
:data:`JOURNAL_KEEP`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

MIN_VECTORS = (
    2000  # memories; below this vec0's scan is about as fast as numpy's, with nothing kept in memory
)
MAX_BYTES = 256 * 1024 * 1024
RESET = -1  # a journal rowid meaning "reload the user"
# The journal's user of a RESET for every held copy: a deleted user's entries are removed and this one
# written instead, so no row names them (not a valid user id: the rule wants a first letter or digit)
EVERYONE = ""
JOURNAL_KEEP = 200_000  # past this many entries the journal is compacted (one RESET per user)


def journal(c: Any, user_rids: Sequence[tuple[str, int]]) -> None:
    """Record, inside the writing transaction, which vectors changed."""
    if user_rids:
        c.executemany("INSERT INTO vector_journal(user_id, rid) VALUES (?, ?)", user_rids)


def forget_user(c: Any, user_id: str) -> None:
    """Inside a deletion of ``user_id``: the journal keeps no entry naming them; every process reloads
    the copies it holds (one RESET for everyone: a copy of the deleted user's vectors is dropped too)."""
    c.execute("DELETE FROM vector_journal WHERE user_id = ?", (user_id,))
    journal(c, [(EVERYONE, RESET)])


def compact(c: Any) -> None:
    """Keep the journal short (run when a store is opened): every process reloads those users once."""
    lo, hi = c.execute("SELECT min(seq), max(seq) FROM vector_journal").fetchone()
    if lo is None or hi - lo < JOURNAL_KEEP:
        return
    users = [r[0] for r in c.execute("SELECT DISTINCT user_id FROM vector_journal")]
    c.execute("DELETE FROM vector_journal")
    journal(c, [(u, RESET) for u in users])


@dataclass
class UserVectors:
    rids: np.ndarray  # int64 [n]
    types: np.ndarray  # str [n]
    states: np.ndarray  # str [n]
    matrix: np.ndarray  # float32 [n, dims], rows of unit length
    last: tuple[bytes, np.ndarray] | None = None  # the last query and its similarities (a block asks twice)
    changed: set[int] = field(default_factory=set)  # rowids the journal names since this copy was read

    @property
    def nbytes(self) -> int:
        return int(self.matrix.nbytes + self.rids.nbytes * 3)

    def similarities(self, query: Sequence[float]) -> np.ndarray:
        q = np.asarray(query, dtype=np.float32)
        key = q.tobytes()
        if self.last is None or self.last[0] != key:
            # einsum, not @: BLAS's gemv spreads over threads and stalls on a busy machine (0.3-8 ms
            # here); einsum's single-threaded SIMD loop takes a steady ~0.7 ms for 10,000 x 384
            self.last = key, np.einsum("ij,j->i", self.matrix, q / (float(np.linalg.norm(q)) or 1.0))
        return self.last[1]


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms > 0, norms, 1.0)


def _read(c: Any, user_id: str, rids: Sequence[int] | None) -> list[Any]:
    """Current vectors of the user (all, or the given rowids), driven by ``memories`` (vec0 point lookups)."""
    where = (
        "m.user_id = ?" if rids is None else f"+m.user_id = ? AND m.rid IN ({','.join('?' for _ in rids)})"
    )
    return list(
        c.execute(
            "SELECT v.rowid, v.type, v.state, v.embedding FROM memories m CROSS JOIN memory_vectors v "
            f"ON v.rowid = m.rid WHERE {where} AND m.has_vector = 1",
            (user_id, *(rids or ())),
        ).fetchall()
    )


class VectorCache:
    def __init__(self, dims: int) -> None:
        self.dims = dims
        self._users: OrderedDict[str, UserVectors] = OrderedDict()
        self._seq: int | None = None  # the last journal entry read; None until the first lookup

    def get(self, c: Any, user_id: str) -> UserVectors | None:
        """The user's vectors brought up to date, or ``None`` for a user with fewer than
        :data:`MIN_VECTORS` memories (counted on the user index, without reading rows)."""
        self._catch_up(c)
        entry = self._users.get(user_id)
        if entry is not None:
            entry = self._refresh(c, user_id, entry)
        elif (
            c.execute("SELECT count(*) FROM memories WHERE user_id = ?", (user_id,)).fetchone()[0]
            < MIN_VECTORS
        ):
            return None
        else:
            entry = self._build(_read(c, user_id, None))
        self._users[user_id] = entry
        self._users.move_to_end(user_id)
        while sum(e.nbytes for e in self._users.values()) > MAX_BYTES and len(self._users) > 1:
            self._users.popitem(last=False)
        return entry

    def _catch_up(self, c: Any) -> None:
        """Note the rowids changed since the last look on the users held. Rows are read after this,
        so a write landing in between is read now and noted again next time (harmless)."""
        if self._seq is None:  # nothing held yet: earlier entries concern no copy
            self._seq = int(c.execute("SELECT coalesce(max(seq), 0) FROM vector_journal").fetchone()[0])
            return
        rows = c.execute(
            "SELECT seq, user_id, rid FROM vector_journal WHERE seq > ? ORDER BY seq", (self._seq,)
        ).fetchall()
        if rows:
            self._seq = int(rows[-1][0])
        for _, user_id, rid in rows:
            for held in (
                self._users.values() if user_id == EVERYONE else filter(None, [self._users.get(user_id)])
            ):
                held.changed.add(int(rid))

    def _build(self, rows: list[Any]) -> UserVectors:
        matrix = np.frombuffer(b"".join(r[3] for r in rows), dtype=np.float32).reshape(len(rows), self.dims)
        return UserVectors(
            rids=np.array([r[0] for r in rows], dtype=np.int64),
            types=np.array([r[1] for r in rows], dtype=str),
            states=np.array([r[2] for r in rows], dtype=str),
            matrix=_unit(matrix),
        )

    def _refresh(self, c: Any, user_id: str, entry: UserVectors) -> UserVectors:
        if not entry.changed:
            return entry
        rids = sorted(entry.changed)
        if RESET in entry.changed:
            return self._build(_read(c, user_id, None))
        added = self._build(_read(c, user_id, rids))
        keep = ~np.isin(entry.rids, np.array(rids, dtype=np.int64))  # changed rows are replaced or gone
        return UserVectors(
            rids=np.concatenate([entry.rids[keep], added.rids]),
            types=np.concatenate([entry.types[keep], added.types]),
            states=np.concatenate([entry.states[keep], added.states]),
            matrix=np.concatenate([entry.matrix[keep], added.matrix]),
        )


def ranked(
    entry: UserVectors, query: Sequence[float], allowed: Mapping[str, Sequence[str]], top: int
) -> tuple[np.ndarray, np.ndarray]:
    """Rowids and cosine similarities of the ``top`` best rows whose ``type`` / ``state`` are among
    ``allowed``'s values, best first."""
    sims = entry.similarities(query)
    mask = np.ones(len(entry.rids), dtype=bool)
    for column, values in allowed.items():
        column_values = entry.types if column == "type" else entry.states
        mask &= np.logical_or.reduce([column_values == v for v in values]) if values else False
    rows = np.flatnonzero(mask)
    if top < len(rows):
        rows = rows[np.argpartition(-sims[rows], top)[:top]]
    rows = rows[np.argsort(-sims[rows], kind="stable")]
    return entry.rids[rows], sims[rows]
