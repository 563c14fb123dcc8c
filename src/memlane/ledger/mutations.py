"""What a write is: every change to a memory is planned as a :class:`Mutation` here.

A :class:`Mutation` collects writes (create, update, merge, supersede, soft delete, restore, purge,
link, share, unshare) into one :class:`WriteBatch`: the records and vectors, a history row per changed
record, and one change-log row per write. The change-log row is also the write's event:
:mod:`memlane.ledger.commit` writes the batch and then publishes one ``memory.<kind>`` event per
change row (:mod:`memlane.ledger.change_events`).

Bookkeeping that changes no content (TTL restarts, new vectors after a model change) writes records
only: no history, no change row, no event.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memlane.model.audit import history_entry
from memlane.model.consent import Proposal, ProposalStatus
from memlane.model.enums import HistoryEvent, MemoryState, MemoryType
from memlane.model.ids import new_id
from memlane.model.jobs import Change
from memlane.model.link import MemoryLink
from memlane.model.record import HistoryEntry, MemoryRecord, Relation, utcnow
from memlane.storage.base import Purge, Unlink, Upsert, WriteBatch


def _payload(rec: MemoryRecord) -> dict[str, Any]:
    return {
        "id": rec.id,
        "type": rec.type.value,
        "category": rec.category,
        "summary": rec.summary,
        "state": rec.state.value,
        "importance": rec.importance,
    }


@dataclass
class Mutation:
    """Writes by one ``actor`` to be committed together. ``thread_id``: the thread whose revision the
    writes advance (default: each record's own thread)."""

    actor: str
    thread_id: str | None = None
    at: datetime = field(default_factory=utcnow)
    batch: WriteBatch = field(default_factory=WriteBatch)

    # --- the writes ----------------------------------------------------------------------------
    def create(
        self,
        rec: MemoryRecord,
        vector: Sequence[float] | None,
        reason: str,
        relations: Sequence[Relation] = (),
    ) -> None:
        self.batch.upserts.append(Upsert(rec, vector))
        self._history(HistoryEvent.ADD, rec.id, rec.user_id, None, rec, reason)
        self.batch.relations.extend(relations)
        self._change(rec, "created", _payload(rec))

    def update(
        self, old: MemoryRecord, new: MemoryRecord, vector: Sequence[float] | None, reason: str
    ) -> None:
        self.batch.upserts.append(Upsert(new, vector))
        self._history(HistoryEvent.UPDATE, new.id, new.user_id, old, new, reason)
        self._change(new, "updated", _payload(new))

    def merge(
        self,
        old: MemoryRecord,
        new: MemoryRecord,
        reason: str,
        candidate: str,
        candidate_id: str | None = None,
        vector: Sequence[float] | None = None,
    ) -> None:
        """``candidate``'s text was found to say what ``old`` says: ``new`` is ``old`` with the
        candidate's tags, entities and signals folded in (``memory.merged`` says ``{from, into}``);
        ``vector`` when ``new`` took the candidate's words."""
        self.batch.upserts.append(Upsert(new, vector))
        self._history(HistoryEvent.MERGE, new.id, new.user_id, old, new, reason)
        self._change(
            new, "merged", {**_payload(new), "candidate": candidate, "from": candidate_id, "into": new.id}
        )

    def absorb(
        self, keeper: MemoryRecord, kept: MemoryRecord, dup: MemoryRecord, closed: MemoryRecord, reason: str
    ) -> None:
        """Two stored memories say the same thing: ``kept`` (``keeper`` with ``dup``'s signals and id in
        ``merged_from``) stays; ``closed`` (``dup``, superseded by the keeper) leaves retrieval."""
        self.batch.upserts += [Upsert(kept), Upsert(closed)]
        self._history(
            HistoryEvent.MERGE, keeper.id, keeper.user_id, keeper, kept, f"absorbed {dup.id}: {reason}"
        )
        self._history(
            HistoryEvent.MERGE, dup.id, dup.user_id, dup, closed, f"merged into {keeper.id}: {reason}"
        )
        self._change(kept, "merged", {**_payload(kept), "from": dup.id, "into": kept.id})

    def supersede(
        self,
        target: MemoryRecord,
        fresh: MemoryRecord,
        closed: MemoryRecord,
        vector: Sequence[float] | None,
        closed_vector: Sequence[float] | None,
        reason: str,
        relations: Sequence[Relation] = (),
    ) -> None:
        """``fresh`` replaces ``target``, which stays in history as ``closed`` (superseded). When
        ``fresh`` keeps ``target``'s id (a keyed fact), ``closed`` is the old version under a new id."""
        self.batch.upserts += [Upsert(closed, closed_vector), Upsert(fresh, vector)]
        if fresh.id == target.id:
            self._history(HistoryEvent.SUPERSEDE, fresh.id, fresh.user_id, target, fresh, reason)
        else:
            self._history(
                HistoryEvent.ADD, fresh.id, fresh.user_id, None, fresh, f"supersedes {target.id}: {reason}"
            )
        self._history(
            HistoryEvent.SUPERSEDE,
            closed.id,
            closed.user_id,
            target,
            closed,
            f"superseded by {fresh.id}: {reason}",
        )
        self.batch.relations.extend(relations)
        self._change(
            fresh,
            "changed_fact",
            {**_payload(fresh), "old_id": closed.id, "old_summary": target.summary, "reason": reason},
        )

    def archive(
        self, rec: MemoryRecord, vector: Sequence[float] | None, by: MemoryRecord, reason: str
    ) -> None:
        """``rec`` is written already superseded by ``by``: an earlier version learnt after the current one."""
        self.batch.upserts.append(Upsert(rec, vector))
        self._history(
            HistoryEvent.ADD, rec.id, rec.user_id, None, rec, f"earlier version of {by.id}: {reason}"
        )
        self._change(rec, "superseded", {**_payload(rec), "by": by.id})

    def close(self, old: MemoryRecord, closed: MemoryRecord, by: MemoryRecord, reason: str) -> None:
        """Another fact contradicted by ``by`` (a supersede that retires more than its target)."""
        self.batch.upserts.append(Upsert(closed))
        self._history(
            HistoryEvent.SUPERSEDE, old.id, old.user_id, old, closed, f"superseded by {by.id}: {reason}"
        )
        self._change(closed, "superseded", {**_payload(closed), "by": by.id})

    def delete(self, old: MemoryRecord, purge_at: datetime, reason: str) -> MemoryRecord:
        return self._set_state(
            old, MemoryState.SOFT_DELETED, purge_at, HistoryEvent.DELETE, "deleted", reason
        )

    def expire(self, old: MemoryRecord, purge_at: datetime, reason: str) -> MemoryRecord:
        """A soft delete by the TTL policy: a ``TTL`` history row and one ``deleted`` change (the delta
        bullet) that says why."""
        return self._set_state(
            old, MemoryState.SOFT_DELETED, purge_at, HistoryEvent.TTL, "deleted", reason, {"reason": "ttl"}
        )

    def restore(self, old: MemoryRecord, reason: str) -> MemoryRecord:
        return self._set_state(old, MemoryState.ACTIVE, None, HistoryEvent.RESTORE, "restored", reason)

    def _set_state(
        self,
        old: MemoryRecord,
        state: MemoryState,
        purge_at: datetime | None,
        event: HistoryEvent,
        change: str,
        reason: str,
        meta: Mapping[str, Any] | None = None,
    ) -> MemoryRecord:
        new = old.model_copy(update={"state": state, "updated_at": self.at, "purge_at": purge_at})
        self.batch.upserts.append(Upsert(new))
        self._history(event, old.id, old.user_id, old, new, reason)
        self._change(new, change, {**_payload(new), **(meta or {})})
        return new

    def purge(
        self,
        old: MemoryRecord,
        reason: str,
        *,
        absorbed_by: MemoryRecord | None = None,
        brought: Sequence[str] = (),
    ) -> MemoryRecord | None:
        """Forget ``old`` for good: the backend removes its content, vector and every copy of its text
        (history snapshots, change-log rows, job payloads); the history keeps the tombstone events. A
        session summary takes its chat session and the session's raw messages with it (docs/sessions.md).
        ``absorbed_by``: the survivor of a merge that absorbed ``old``; it loses ``brought`` (the tags and
        entities ``old`` added to it) from its record and its history's snapshots. Returns the survivor
        as written, if it changed."""
        words = tuple(brought)
        self.batch.purges.append(
            Purge(old.user_id, old.id, absorbed_by.id if absorbed_by and words else None, words)
        )
        session = old.metadata.get("session") if old.type is MemoryType.SESSION else None
        if isinstance(session, dict) and isinstance(session.get("id"), str):
            self.drop_session(old.user_id, session["id"])
        self._history(HistoryEvent.PURGE, old.id, old.user_id, None, None, reason)
        self._change(old, "purged", {"id": old.id, "type": old.type.value, "state": MemoryState.PURGED.value})
        if absorbed_by is None or not words:
            return None
        kept = absorbed_by.model_copy(
            update={
                "tags": [t for t in absorbed_by.tags if t not in words],
                "entities": [e for e in absorbed_by.entities if e not in words],
                "updated_at": self.at,
            }
        )
        self.batch.upserts.append(Upsert(kept))
        # no snapshot here: the row would quote what is being forgotten
        self._history(
            HistoryEvent.UPDATE,
            kept.id,
            kept.user_id,
            None,
            None,
            "purge: the tags and entities a purged duplicate brought are forgotten",
        )
        self._change(kept, "updated", _payload(kept))
        return kept

    def drop_session(self, user_id: str, session_id: str) -> None:
        """Forget a chat session and its messages (no history: they are not memories)."""
        if (user_id, session_id) not in self.batch.dropped_sessions:
            self.batch.dropped_sessions.append((user_id, session_id))

    def link(self, source: MemoryRecord, rel: Relation, reason: str) -> None:
        """A new edge from ``source`` (``rel.from_id``)."""
        self.batch.relations.append(rel)
        self._history(HistoryEvent.LINK, rel.from_id, rel.user_id, None, None, reason)
        self._change(
            source,
            "linked",
            {
                "id": rel.from_id,
                "to": rel.to_id,
                "relation_type": rel.relation_type,
                "strength": rel.strength,
            },
        )

    def share(
        self, rec: MemoryRecord, links: Sequence[MemoryLink], reason: str, *, owner_row: bool = True
    ) -> None:
        """Open ``links`` to ``rec``: each user it reaches gets a SHARE history row (the link as new value)
        and a ``shared`` change carrying the memory, so their event stream shows it; with ``owner_row``,
        the owner gets one row and change naming the users."""
        self.batch.links.extend(links)
        for link in links:
            self._link_history(HistoryEvent.SHARE, link.user_id, rec.id, link.model_dump(mode="json"), reason)
            self._change(rec, "shared", {**_payload(rec), "by": link.linked_by}, user_id=link.user_id)
        if owner_row and links:
            users = [link.user_id for link in links]
            self._link_history(
                HistoryEvent.SHARE, rec.user_id, rec.id, {"with": users}, f"shared with {', '.join(users)}"
            )
            self._change(rec, "shared", {"id": rec.id, "with": users})

    def unshare(
        self,
        user_id: str,
        memory_id: str,
        reason: str,
        *,
        owner: str | None = None,
        replaced_by: str | None = None,
    ) -> None:
        """Close ``user_id``'s link to ``memory_id``; the other users' links stay. The UNSHARE row is the
        audit of a shared memory's update: user, old memory, new memory (``replaced_by``, when a
        contradiction replaced it), reason and time. ``owner``: the owner closed it (they get a row too)."""
        self.batch.unlinks.append(Unlink(user_id, memory_id, self.at))
        after = {
            "user_id": user_id,
            "memory_id": memory_id,
            "unlinked_at": self.at.isoformat(),
            **({"replaced_by": replaced_by} if replaced_by else {}),
        }
        self._link_history(HistoryEvent.UNSHARE, user_id, memory_id, after, reason)
        meta = {"id": memory_id, "reason": reason, **({"replaced_by": replaced_by} if replaced_by else {})}
        self.batch.changes.append(
            Change(
                id=new_id(),
                user_id=user_id,
                thread_id=self.thread_id or "",
                memory_id=memory_id,
                event="unshared",
                meta=meta,
                at=self.at,
            )
        )
        if owner is not None:
            self._link_history(
                HistoryEvent.UNSHARE, owner, memory_id, {"from": user_id}, f"unshared from {user_id}"
            )

    def load(self, rec: MemoryRecord, vector: Sequence[float] | None) -> None:
        """A record brought from an export. Its history rows come with it, so none is added here;
        a live record is announced as created."""
        self.batch.upserts.append(Upsert(rec, vector))
        if rec.state is not MemoryState.PURGED:
            self._change(rec, "created", {**_payload(rec), "imported": True})

    def consent(
        self, p: Proposal, reason: str, old: MemoryRecord | None = None, new: MemoryRecord | None = None
    ) -> None:
        """A proposal written: queued or corroborated again (``PROPOSE``, a ``proposed`` change, with the
        memory as it is and as it would become) or decided (``CONSENT`` by its decider, a
        ``proposal_decided`` change)."""
        self.batch.proposals.append(p)
        pending = p.status is ProposalStatus.PENDING
        self._history(
            HistoryEvent.PROPOSE if pending else HistoryEvent.CONSENT,
            p.memory_id,
            p.user_id,
            old,
            new,
            reason,
            p.decided_by,
        )
        self._row(
            p.user_id,
            p.memory_id,
            self.thread_id or p.thread_id,
            "proposed" if pending else "proposal_decided",
            {
                "proposal": p.id,
                "field": p.field,
                "status": p.status.value,
                "signals": p.signals,
                "summary": p.candidate.summary,
                "current": p.current,
                "decided_by": p.decided_by,
            },
        )

    def touch(self, rec: MemoryRecord, vector: Sequence[float] | None = None) -> None:
        """Bookkeeping (a TTL restart, a new vector for unchanged text): no history, no event."""
        self.batch.upserts.append(Upsert(rec, vector))

    # --- rows ----------------------------------------------------------------------------------
    def _history(
        self,
        event: HistoryEvent,
        memory_id: str,
        user_id: str,
        old: MemoryRecord | None,
        new: MemoryRecord | None,
        reason: str,
        actor: str | None = None,
    ) -> None:
        self.batch.history.append(
            history_entry(
                event,
                memory_id=memory_id,
                user_id=user_id,
                old=old,
                new=new,
                reason=reason,
                actor=actor or self.actor,
                at=self.at,
            )
        )

    def _link_history(
        self, event: HistoryEvent, user_id: str, memory_id: str, after: dict[str, Any], reason: str
    ) -> None:
        """A link's row holds the link, never the memory's text (a purge has nothing to find there)."""
        self.batch.history.append(
            HistoryEntry(
                id=new_id(),
                memory_id=memory_id,
                user_id=user_id,
                event=event,
                new_value=after,
                reason=reason,
                actor=self.actor,
                at=self.at,
            )
        )

    def _change(
        self, rec: MemoryRecord, kind: str, meta: dict[str, Any], *, user_id: str | None = None
    ) -> None:
        """A change row of ``user_id`` (default: the owner); another user's is tied to no thread of the owner."""
        user = user_id or rec.user_id
        thread = (
            self.thread_id if self.thread_id is not None else rec.thread_id if user == rec.user_id else None
        )
        self.batch.changes.append(
            Change(
                id=new_id(),
                user_id=user,
                thread_id=thread or "",
                memory_id=rec.id,
                event=kind,
                meta=meta,
                at=self.at,
            )
        )

    def _row(self, user_id: str, memory_id: str, thread: str | None, kind: str, meta: dict[str, Any]) -> None:
        self.batch.changes.append(
            Change(
                id=new_id(),
                user_id=user_id,
                thread_id=thread or "",
                memory_id=memory_id,
                event=kind,
                meta=meta,
                at=self.at,
            )
        )
