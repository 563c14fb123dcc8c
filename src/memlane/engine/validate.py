"""Input checks shared by every engine entry point. Each raises a ValidationError saying what to fix."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from dataclasses import fields
from datetime import datetime
from enum import StrEnum
from typing import Any, TypeVar

from pydantic import ValidationError as PydanticError

from memlane.ledger.mutations import Mutation
from memlane.model.candidate import Candidate, ChatMessage
from memlane.model.category import UnknownCategoryWarning, category_notice, normalise_category
from memlane.model.enums import MemoryType, Source
from memlane.model.errors import ValidationError
from memlane.model.ids import USER_ID_RULE, is_valid_user_id
from memlane.model.metadata import check_metadata
from memlane.model.record import as_utc
from memlane.model.text import check_id, check_text, normal_key

E = TypeVar("E", bound=StrEnum)


def text(name: str, value: Any) -> str:
    """A string both stores can keep: no NUL characters, valid Unicode (no lone surrogates); other
    control characters are removed."""
    if not isinstance(value, str):
        raise ValidationError(f"{name} must be a string, got {type(value).__name__}")
    return check_text(name, value)


def flag(name: str, value: Any) -> bool:
    """Only ``True`` or ``False``: ``"false"`` or ``0`` would be read as something else."""
    if not isinstance(value, bool):
        raise ValidationError(f"{name} must be true or false (a boolean), got {value!r}")
    return value


def category(value: Any, allowed: Iterable[str]) -> str:
    """The normalised category; an unknown name becomes ``Other`` with an :class:`UnknownCategoryWarning`."""
    if value is not None:
        text("category", value)
    notice = category_notice(value, allowed)
    if notice:
        warnings.warn(notice, UnknownCategoryWarning, stacklevel=3)
    return normalise_category(value, allowed)


def choice(name: str, value: Any, kind: type[E]) -> E | None:
    """A member of the string enum ``kind`` by its value (None stays None)."""
    if value is None:
        return None
    try:
        return kind(value if isinstance(value, str) else repr(value))
    except ValueError:
        raise ValidationError(
            f"unknown {name} {value!r}; use one of {', '.join(m.value for m in kind)}"
        ) from None


def user_id(value: Any) -> str:
    if not is_valid_user_id(value):
        raise ValidationError(f"invalid user_id {value!r}: expected {USER_ID_RULE}")
    return str(value)


def memory_id(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ValidationError(f"memory id must be a non-empty string, got {value!r}")
    return value


def optional_scope(name: str, value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > 256:
        raise ValidationError(f"{name} must be a non-empty string of at most 256 characters, got {value!r}")
    return check_id(name, value)


def required_id(name: str, value: Any, what: str = "") -> str:
    """An id the caller must give (a proposal's, a job's); ``what`` says what it is, for the error."""
    if value is None:
        raise ValidationError(f"{name} is required{': ' + what if what else ''}")
    return str(optional_scope(name, value))


def reason(value: Any) -> str | None:
    """A decision's free-text reason: at most 1,000 characters."""
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > 1000:
        raise ValidationError(f"reason must be a string of at most 1000 characters, got {value!r}")
    return text("reason", value).strip() or None


def summary(value: Any, max_chars: int) -> str:
    if not isinstance(value, str):
        raise ValidationError(f"summary must be a string, got {type(value).__name__}")
    clean = " ".join(text("summary", value).split())
    if not clean:
        raise ValidationError("summary is empty: give the memory's text (1-2 sentences)")
    if len(clean) > max_chars:
        raise ValidationError(
            f"summary is {len(clean)} characters, over the limit of {max_chars} "
            "(MEMORY_SUMMARY_MAX_CHARS); shorten it or split it into several memories"
        )
    return clean


def memory_type(value: Any) -> MemoryType:
    try:
        return MemoryType(value)
    except ValueError:
        raise ValidationError(
            f"unknown memory type {value!r}; use one of {', '.join(t.value for t in MemoryType)}"
        ) from None


def source(value: Any) -> Source:
    try:
        return Source(value)
    except ValueError:
        raise ValidationError(
            f"unknown source {value!r}; use one of {', '.join(s.value for s in Source)}"
        ) from None


def importance(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 5:  # 1e300 and "3" too
        raise ValidationError(f"importance must be an integer from 1 to 5, got {value!r}")
    return value


def string_list(name: str, value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValidationError(f"{name} must be a list of non-empty strings, got {value!r}")
    return [t for t in dict.fromkeys(text(name, v).strip() for v in value) if t]


def key(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > 256:
        raise ValidationError(f"key must be a non-empty string of at most 256 characters, got {value!r}")
    clean = normal_key(text("key", value)).strip()
    if not clean:
        raise ValidationError(f"key {value!r} is empty once control and zero-width characters are removed")
    return clean


def idempotency_key(value: Any) -> str | None:
    """A client's retry key (an ``Idempotency-Key`` header): the same key names the same write."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > 255:
        raise ValidationError(
            f"idempotency_key must be a non-empty string of at most 255 characters, got {value!r}"
        )
    return value.strip()


def when(name: str, value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return as_utc(value)
    try:
        return as_utc(datetime.fromisoformat(str(value).replace("Z", "+00:00")))
    except ValueError:
        raise ValidationError(
            f"{name} must be an ISO-8601 time such as 2026-01-31T09:00:00Z, got {value!r}"
        ) from None


def positive(name: str, value: Any, *, allow_zero: bool = False, maximum: int = 10_000) -> int:
    low = 0 if allow_zero else 1
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= maximum:
        raise ValidationError(f"{name} must be an integer from {low} to {maximum}, got {value!r}")
    return value


def messages(value: Any, at: datetime) -> list[ChatMessage]:
    """A turn: a string (one user message) or a list of ``{"role", "content"}`` / ChatMessage."""
    if isinstance(value, str):
        value = [{"role": "user", "content": value}]
    if not isinstance(value, list | tuple) or not value:
        raise ValidationError("messages must be a non-empty string or a list of {role, content} objects")
    out: list[ChatMessage] = []
    for n, item in enumerate(value):
        try:
            msg = item if isinstance(item, ChatMessage) else ChatMessage.model_validate(item)
        except PydanticError as exc:
            err = exc.errors()[0]
            where = "".join(f".{part}" for part in err["loc"] if isinstance(part, str))
            raise ValidationError(f"messages[{n}]{where}: {err['msg']} (need role and content)") from None
        name = None if msg.name is None else text(f"messages[{n}].name", msg.name).strip()  # a display name
        if name == "":
            raise ValidationError(f"messages[{n}].name must be visible text, or left out for no sender name")
        msg = msg.model_copy(update={"content": text(f"messages[{n}].content", msg.content), "name": name})
        if not msg.content.strip():
            raise ValidationError(f"messages[{n}].content is empty")
        if len(msg.content) > 20_000:
            raise ValidationError(f"messages[{n}].content is over 20000 characters")
        out.append(msg if msg.at else msg.model_copy(update={"at": at}))
    return out


def candidates(value: Any, max_chars: int) -> list[Candidate]:
    if isinstance(value, Mapping | Candidate) or not isinstance(value, list | tuple) or not value:
        raise ValidationError(
            "facts must be a non-empty list of candidate memories ({summary, type, category, ...})"
        )
    out: list[Candidate] = []
    for n, item in enumerate(value):
        if isinstance(item, Mapping) and "pinned" in item:
            flag(f"facts[{n}].pinned", item["pinned"])
        try:
            cand = item if isinstance(item, Candidate) else Candidate.model_validate(item)
        except PydanticError as exc:
            err = exc.errors()[0]
            raise ValidationError(f"facts[{n}].{'.'.join(map(str, err['loc']))}: {err['msg']}") from None
        out.append(
            cand.model_copy(
                update={
                    "summary": summary(cand.summary, max_chars),
                    "key": key(cand.key),
                    "tags": string_list(f"facts[{n}].tags", cand.tags),
                    "entities": string_list(f"facts[{n}].entities", cand.entities),
                }
            )
        )
    return out


def metadata(value: Any, max_bytes: int) -> dict[str, Any]:
    return check_metadata(value, max_bytes)


def time_zone(value: Any) -> str:
    """An IANA time zone name (``Europe/Lisbon``)."""
    from memlane.model.time_buckets import zone

    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"time_zone must be an IANA name such as Europe/Lisbon, got {value!r}")
    zone(value.strip())
    return value.strip()


# what a mutation planned outside the engine may carry (see WritesAPI.commit_mutation)
RECORD_WRITES = frozenset({"upserts", "history", "changes"})


def record_writes(value: Any) -> Mutation:
    """A :class:`Mutation` of record writes only (with their history and change rows), every row of
    a valid user id: so never of the global memories' owner, which no caller may act as."""
    if not isinstance(value, Mutation):
        raise ValidationError(f"expected a Mutation, got {type(value).__name__}")
    batch = value.batch
    other = sorted(f.name for f in fields(batch) if f.name not in RECORD_WRITES and getattr(batch, f.name))
    if other:
        raise ValidationError(
            f"a mutation committed as record writes cannot carry {', '.join(other)}: use the Memory "
            "method for that write (purge, link, share, the consent and session methods)"
        )
    users = (
        {u.record.user_id for u in batch.upserts}
        | {h.user_id for h in batch.history}
        | {c.user_id for c in batch.changes}
    )
    for user in sorted(users):
        user_id(user)
    return value
