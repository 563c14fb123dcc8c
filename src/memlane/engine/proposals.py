"""``mem.proposals`` (docs/consent.md): proposed changes to sensitive fields, listed, accepted or
rejected by the user or an admin."""

from __future__ import annotations

import builtins
from datetime import datetime

from memlane.engine import validate as v
from memlane.engine.namespace import Namespace, warn_renamed
from memlane.formation import consent_decide
from memlane.model.consent import Proposal, ProposalFilter, ProposalStatus
from memlane.model.errors import NotFoundError
from memlane.model.record import utcnow

_ACTOR = "who decides (e.g. user:maya, admin:ops, cli)"


class Proposals(Namespace):
    """Every interface (REST, CLI) decides proposals through these calls."""

    def __call__(
        self,
        *,
        user_id: str,
        status: str | None = "pending",
        memory_id: str | None = None,
        limit: int = 100,
        at: datetime | str | None = None,
    ) -> builtins.list[Proposal]:
        """The old ``mem.proposals(...)``, kept one release: :meth:`list`."""
        warn_renamed("Memory.proposals", "mem.proposals.list")
        return self.list(user_id=user_id, status=status, memory_id=memory_id, limit=limit, at=at)

    def list(
        self,
        *,
        user_id: str,
        status: str | None = "pending",
        memory_id: str | None = None,
        limit: int = 100,
        at: datetime | str | None = None,
    ) -> builtins.list[Proposal]:
        """The user's proposals, oldest first: ``status="pending"`` (the default) lists those still open at
        ``at`` (default now); another status, those closed that way; ``None``, all of them."""
        user, state = v.user_id(user_id), v.choice("proposal status", status, ProposalStatus)
        now = v.when("at", at) or utcnow()
        where = ProposalFilter(
            state,
            v.optional_scope("memory_id", memory_id),
            expires_after=now if state is ProposalStatus.PENDING else None,
        )
        return self.mem.backend.proposals.proposals(user, where, limit=v.positive("limit", limit))

    def get(self, proposal_id: str, *, user_id: str) -> Proposal:
        user, pid = v.user_id(user_id), v.required_id("proposal_id", proposal_id)
        found = self.mem.backend.proposals.get_proposal(user, pid)
        if found is None:
            raise NotFoundError(f"no proposal {pid!r} for user {user!r}")
        return found

    def accept(
        self,
        proposal_id: str,
        *,
        user_id: str,
        actor: str = "api",
        reason: str | None = None,
        at: datetime | str | None = None,
    ) -> Proposal:
        """Apply the proposed change (the memory is superseded, with history naming ``actor``); a
        proposal already decided, expired or whose memory changed since is refused (ConflictError)."""
        return consent_decide.accept(
            self.mem.formation,
            v.user_id(user_id),
            v.required_id("proposal_id", proposal_id),
            actor=v.required_id("actor", actor, _ACTOR),
            note=v.reason(reason),
            now=v.when("at", at) or utcnow(),
        )

    def reject(
        self,
        proposal_id: str,
        *,
        user_id: str,
        actor: str = "api",
        reason: str | None = None,
        at: datetime | str | None = None,
    ) -> Proposal:
        """Close the proposal; the memory stays as it is (the decision is in its history)."""
        return consent_decide.reject(
            self.mem.formation,
            v.user_id(user_id),
            v.required_id("proposal_id", proposal_id),
            actor=v.required_id("actor", actor, _ACTOR),
            note=v.reason(reason),
            now=v.when("at", at) or utcnow(),
        )
