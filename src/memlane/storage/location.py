"""Where a store lives: ``postgresql://...`` is PostgreSQL, ``:memory:`` or a file path is SQLite,
and any other ``scheme://`` is refused (it would otherwise become an oddly named SQLite file).
Passwords in URLs are hidden from every message."""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from memlane.model.errors import ValidationError

POSTGRES_SCHEMES = ("postgresql", "postgres", "postgresql+psycopg")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*)://")


def backend_kind(location: str) -> Literal["postgres", "sqlite"]:
    """Which backend serves ``location``; a ValidationError for an empty one or an unknown scheme."""
    if not isinstance(location, str) or not location.strip():
        raise ValidationError(
            "the database location is empty: give a SQLite file path or a postgresql:// URL"
        )
    if "\x00" in location:
        raise ValidationError("the database location contains a NUL character")
    found = _SCHEME.match(location)
    if found is None:
        return "sqlite"
    if found.group(1).lower() in POSTGRES_SCHEMES:
        return "postgres"
    hint = (
        " (for SQLite give the file path itself, e.g. ~/.memlane/memlane.db)"
        if found.group(1).lower().startswith("sqlite")
        else ""
    )
    raise ValidationError(
        f"unsupported database URL {redact_url(location)}: memlane stores in SQLite (a file path) or "
        f"PostgreSQL (postgresql://user:password@host/db){hint}"
    )


def redact_url(url: str) -> str:
    """The URL with any password replaced by ``***``, safe to put in an error message or a log."""
    parts = urlsplit(url)
    if not parts.scheme:  # a key=value conninfo string: hide password=...
        return " ".join("password=***" if item.startswith("password=") else item for item in url.split())
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user = userinfo.split(":", 1)[0]
        netloc = f"{user}:***@{host}" if ":" in userinfo and userinfo.split(":", 1)[1] else f"{user}@{host}"
    query = urlencode(
        [(k, "***" if k == "password" else v) for k, v in parse_qsl(parts.query, keep_blank_values=True)],
        safe="/*",
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
