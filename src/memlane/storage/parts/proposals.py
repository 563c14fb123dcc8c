"""The consent-proposals part of a backend."""

from __future__ import annotations

import builtins
from typing import Protocol, runtime_checkable

from memlane.model.consent import Proposal, ProposalFilter


@runtime_checkable
class ProposalStore(Protocol):
    """Consent proposals (written by a :class:`WriteBatch`)."""

    def proposals(self, user_id: str, where: ProposalFilter, *, limit: int = 100) -> builtins.list[Proposal]:
        """The user's consent proposals matching ``where``, oldest first, filtered in the database."""

    def get_proposal(self, user_id: str, proposal_id: str) -> Proposal | None: ...
