"""422 ``invalid_request``: a request that does not match the OpenAPI schema, in plain words.

The message names each wrong field, where it was (body, query parameter, header, path) and what it
expects; ``details`` lists the same per field. Nothing of pydantic's internals is shown: no input
echoed back, error codes, documentation links, union branch names or regular expressions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from memlane.ledger.events import EVENT_TYPES
from memlane.model.invalid import field_errors, field_name
from memlane.server.auth import USER_PATTERN
from memlane.server.errors import error_response
from memlane.server.fields import (
    HAS_LETTER,
    HAS_TEXT,
    ID_TEXT,
    INSTANT_SCHEMA,
    KEY_TEXT,
    NO_NUL,
    PATH_ID,
    PATH_NAME,
)
from memlane.server.routes_events import TYPES_PATTERN

PATTERN_HELP = {  # every pattern of the OpenAPI document (tests/test_server_error_messages.py checks)
    NO_NUL: "must not contain NUL characters",
    HAS_TEXT: "must contain visible text (not only whitespace) and no NUL characters",
    HAS_LETTER: "must contain a letter or digit and no NUL characters",
    ID_TEXT: "must contain visible text and no control characters (tab and newline aside)",
    KEY_TEXT: "must contain visible text (zero-width characters do not count) and no control characters "
    "(tab and newline aside)",
    PATH_ID: "must contain a visible character, and no control characters or %",
    PATH_NAME: "must contain a letter or digit, and no control characters or %",
    USER_PATTERN: "must be a user id: 1-128 letters, digits or _ . : @ -, starting with a letter or digit",
    TYPES_PATTERN: f"must be event types separated by commas, from: {', '.join(EVENT_TYPES)}",
    INSTANT_SCHEMA[
        "pattern"
    ]: "must be an RFC 3339 time with an offset, years 1000-8999, e.g. 2026-01-31T09:00:00Z",
    r"^[^\x00-\x1f\x7f]+$": "must not be empty or contain control characters",
    r"^[^\x00-\x1f\x7f%]+$": "must not be empty or contain control characters or %",
    r"^[!-~]([ -~]*[!-~])?$": "must be visible ASCII characters (spaces only between them)",
    r"^[\x21-\x7e]([\x20-\x7e]{0,254}[\x21-\x7e])?$": "must be 1-256 printable ASCII characters, without a "
    "leading or trailing space",
}
PLACES = {
    "body": "",
    "query": "query parameter ",
    "header": "header ",
    "path": "path parameter ",
    "cookie": "cookie ",
}


def where(loc: Sequence[Any]) -> tuple[str, str]:
    """(place, field) of an error location such as ``("body", "filters", "importance", "$gte")``."""
    place = str(loc[0]) if loc and loc[0] in PLACES else "body"
    rest = loc[1:] if loc and loc[0] in PLACES else loc
    if place == "body" and not [p for p in rest if not isinstance(p, int)]:
        return place, "request body"
    return place, field_name(rest)


def explain(errors: Sequence[Mapping[str, Any]]) -> tuple[str, list[dict[str, str]]]:
    """The message (at most three fields, then how many more) and the per-field details."""
    details = []
    for loc, message in field_errors(errors, PATTERN_HELP):
        place, field = where(loc)
        details.append({"in": place, "field": field, "message": message})
    parts = [f"{PLACES[d['in']]}{d['field']}: {d['message']}" for d in details[:3]]
    more = f" (and {len(details) - 3} more)" if len(details) > 3 else ""
    return "; ".join(parts) + more, details


def install(app: FastAPI) -> None:
    async def on_schema_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        message, details = explain(exc.errors())
        return error_response(422, "invalid_request", message, details)

    app.add_exception_handler(RequestValidationError, on_schema_error)
