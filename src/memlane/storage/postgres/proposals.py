"""PostgreSQL side of consent proposals (model/consent.py): written inside a batch's transaction, read by user."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg.rows import dict_row
from pydantic import TypeAdapter

from memlane.model.consent import Proposal, ProposalFilter
from memlane.model.errors import ConflictError
from memlane.storage.filter_sql import POSTGRES, proposal_where

FIELDS: tuple[str, ...] = tuple(Proposal.model_fields)
COLUMNS = ", ".join(FIELDS)
_LIST = TypeAdapter(list[Proposal])
# One JSON array expanded by the server (as for records, rows.py). A proposal is decided once: an
# existing one is updated only while it is pending (and the user's); RETURNING leaves the others out.
_UPSERT = (
    f"INSERT INTO proposals ({COLUMNS}) SELECT {COLUMNS} FROM jsonb_populate_recordset(NULL::proposals, %s::jsonb) "
    f"ON CONFLICT (id) DO UPDATE SET "
    f"{', '.join(f'{f} = EXCLUDED.{f}' for f in FIELDS if f not in ('id', 'user_id', 'created_at'))} "
    "WHERE proposals.user_id = EXCLUDED.user_id AND proposals.status = 'pending' RETURNING id"
)


def write_proposals(cur: psycopg.Cursor[Any], proposals: Sequence[Proposal]) -> None:
    """Insert or update the proposals; ConflictError (the transaction rolls back) for one already decided."""
    if not proposals:
        return
    written = {r[0] for r in cur.execute(_UPSERT, (_LIST.dump_json(list(proposals)).decode(),)).fetchall()}
    refused = sorted({p.id for p in proposals} - written)
    if refused:
        raise ConflictError(f"proposal {', '.join(refused)} was already decided; nothing was written")


def list_proposals(
    conn: psycopg.Connection[Any], user_id: str, where: ProposalFilter, limit: int
) -> list[Proposal]:
    sql, params = proposal_where(user_id, where, POSTGRES)
    return _read(conn, f"{sql} ORDER BY created_at, seq LIMIT %s", [*params, limit])


def get_proposal(conn: psycopg.Connection[Any], user_id: str, proposal_id: str) -> Proposal | None:
    found = _read(conn, "user_id = %s AND id = %s", [user_id, proposal_id])
    return found[0] if found else None


def _read(conn: psycopg.Connection[Any], where: str, params: list[Any]) -> list[Proposal]:
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(f"SELECT {COLUMNS} FROM proposals WHERE {where}", params).fetchall()
    return [Proposal.model_validate(r) for r in rows]
