"""Consent: the profile fields whose changes wait for the user, and proposed patches.

A change that formation would make to a *sensitive* field (preferred name, pronouns, city, language)
is not applied: it is stored as a :class:`Proposal` the user or an admin accepts or rejects, and
that expires after ``MEMORY_CONSENT_TTL_DAYS``. A change to a *benign* field (tone) is held the
same way until ``MEMORY_CONSENT_SIGNALS`` separate statements of the same new value corroborate it,
then applies by itself. A field is a name for the deterministic keys it covers (:data:`FIELD_KEYS`);
a configured entry with a ``:`` is a key of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field, field_validator

from memlane.model.brief import brief, cut
from memlane.model.candidate import Candidate
from memlane.model.record import as_utc

# The seed's field names and the slot keys memlane's extractors give them (providers/llm/rules).
FIELD_KEYS: dict[str, tuple[str, ...]] = {
    "preferred_name": ("profile:name", "profile:preferred_name"),
    "pronouns": ("profile:pronouns",),
    "city": ("profile:residence:city",),
    "language": ("profile:language:native",),
    "tone": ("pref:answer_style", "pref:tone"),
}
SENSITIVE_FIELDS = ("preferred_name", "pronouns", "city", "language")
BENIGN_FIELDS = ("tone",)


def check_fields(names: Sequence[str], setting: str) -> list[str]:
    """The configured names, each a known field or a key (it holds a ``:``); ValueError otherwise."""
    unknown = [n for n in names if n not in FIELD_KEYS and ":" not in n]
    if unknown:
        raise ValueError(
            f"{setting}: unknown field(s) {', '.join(unknown)}; known: {', '.join(FIELD_KEYS)} "
            "(or give a memory key such as profile:employer)"
        )
    return list(dict.fromkeys(names))


def _covers(keys: tuple[str, ...], key: str) -> bool:
    """A field's key covers itself and the keys under it (``pref:answer_style`` covers ``...:length``)."""
    return any(key == k or key.startswith(k + ":") for k in keys)


@dataclass(frozen=True)
class ConsentPolicy:
    """Which keys need consent (sensitive) or corroboration (benign), by field name."""

    sensitive: tuple[str, ...] = ()
    benign: tuple[str, ...] = ()
    signals: int = 2  # statements of the same new value that apply a benign change

    def field_of(self, keys: Iterable[str | None]) -> tuple[str, bool] | None:
        """The field the first matching key belongs to, and whether it is sensitive; sensitive wins."""
        found = [k for k in keys if k]
        for names, sensitive in ((self.sensitive, True), (self.benign, False)):
            for name in names:
                if any(_covers(FIELD_KEYS.get(name, (name,)), k) for k in found):
                    return name, sensitive
        return None


class ProposalStatus(StrEnum):
    PENDING = "pending"
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    EXPIRED = "expired"
    REPLACED = "replaced"  # a newer proposal for the same memory took its place


@dataclass(frozen=True)
class ProposalFilter:
    """Which of a user's proposals to read (``expires_before`` inclusive, ``expires_after`` exclusive)."""

    status: ProposalStatus | None = None
    memory_id: str | None = None
    expires_after: datetime | None = None
    expires_before: datetime | None = None


class Proposal(BaseModel):
    """A change formation proposed to a memory of a consent field, waiting for a decision."""

    id: str
    user_id: str
    thread_id: str | None = None
    field: str = Field(description="The consent field, e.g. city (or a configured key)")
    sensitive: bool = Field(
        description="True: needs the user's or an admin's consent; False: benign, applies once corroborated"
    )
    memory_id: str = Field(description="The memory the change would supersede")
    current: str = Field(description="That memory's summary when the change was proposed")
    candidate: Candidate = Field(description="The proposed new fact")
    observed_at: datetime = Field(description="When the user said it")
    reason: str = Field("", description="Why formation saw a change")
    also: list[str] = Field(default_factory=list, description="Other memories the change would close")
    signals: int = Field(1, description="Separate statements of this value so far")
    status: ProposalStatus = ProposalStatus.PENDING
    created_at: datetime
    expires_at: datetime
    decided_at: datetime | None = None
    decided_by: str | None = Field(
        None, description="Who decided: user:<id>, admin:<key>, cli, system:consent"
    )
    note: str | None = Field(None, description="The decider's reason")

    @field_validator("observed_at", "created_at", "expires_at", "decided_at")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        return None if value is None else as_utc(value)

    def __repr_args__(self) -> list[tuple[str, Any]]:
        return brief(
            id=self.id,
            user_id=self.user_id,
            field=self.field,
            status=self.status,
            current=cut(self.current),
            proposed=cut(self.candidate.summary),
            memory_id=self.memory_id,
            expires_at=self.expires_at,
        )

    def decided(self, status: ProposalStatus, by: str, note: str | None, at: datetime) -> Proposal:
        """This proposal closed with ``status`` by ``by`` at ``at``."""
        return self.model_copy(update={"status": status, "decided_by": by, "note": note, "decided_at": at})
