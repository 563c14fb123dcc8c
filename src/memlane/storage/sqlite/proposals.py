"""SQLite side of consent proposals (model/consent.py): written inside a batch's transaction, read by user."""

from __future__ import annotations

import builtins
import json
from collections.abc import Sequence
from typing import Any

from memlane.model.consent import Proposal, ProposalFilter
from memlane.model.errors import ConflictError
from memlane.storage.filter_sql import SQLITE, iso, proposal_where
from memlane.storage.parts.proposals import ProposalStore
from memlane.storage.sqlite.part import SqlitePart

FIELDS: tuple[str, ...] = tuple(Proposal.model_fields)
COLS = ", ".join(FIELDS)
_TIMES = ("observed_at", "created_at", "expires_at", "decided_at")
# A proposal is decided once: an existing one is updated only while it is pending (and the user's).
_UPSERT = (
    f"INSERT INTO proposals({COLS}) VALUES ({', '.join('?' for _ in FIELDS)}) ON CONFLICT(id) DO UPDATE "
    f"SET {', '.join(f'{f} = excluded.{f}' for f in FIELDS if f not in ('id', 'user_id', 'created_at'))} "
    "WHERE proposals.user_id = excluded.user_id AND proposals.status = 'pending' RETURNING id"
)


def _params(p: Proposal) -> tuple[Any, ...]:
    row = p.model_dump(mode="json")
    row.update(
        candidate=json.dumps(row["candidate"]),
        also=json.dumps(row["also"]),
        sensitive=int(p.sensitive),
        **{t: iso(getattr(p, t)) for t in _TIMES if getattr(p, t) is not None},
    )
    return tuple(row[f] for f in FIELDS)


def write_proposals(c: Any, proposals: Sequence[Proposal]) -> None:
    """Insert or update each proposal; ConflictError (the transaction rolls back) for one already decided."""
    for p in proposals:
        if c.execute(_UPSERT, _params(p)).fetchone() is None:
            raise ConflictError(f"proposal {p.id} was already decided; nothing was written")


def proposal_from_row(r: Any) -> Proposal:
    row = {f: r[f] for f in FIELDS}
    row.update(
        candidate=json.loads(row["candidate"]), also=json.loads(row["also"]), sensitive=bool(row["sensitive"])
    )
    return Proposal.model_validate(row)


class SqliteProposals(SqlitePart, ProposalStore):
    """``SqliteBackend.proposals``."""

    def proposals(self, user_id: str, where: ProposalFilter, *, limit: int = 100) -> builtins.list[Proposal]:
        sql, params = proposal_where(user_id, where, SQLITE)
        rows = self._rows(
            f"SELECT {COLS} FROM proposals WHERE {sql} ORDER BY created_at, rowid LIMIT ?", (*params, limit)
        )
        return [proposal_from_row(r) for r in rows]

    def get_proposal(self, user_id: str, proposal_id: str) -> Proposal | None:
        rows = self._rows(
            f"SELECT {COLS} FROM proposals WHERE user_id = ? AND id = ?", (user_id, proposal_id)
        )
        return proposal_from_row(rows[0]) if rows else None
