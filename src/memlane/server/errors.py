"""JSON errors with one stable shape: ``{"error": {"type": ..., "message": ..., "details": ...}}``.

Engine errors map to statuses here (bad input 400, not found 404, a forbidden scope or category or a
change to a memory only shared with the user 403,
a dimension mismatch 409, a rate limit 429, a provider failure 502, the store unavailable 503);
a request that does not match the OpenAPI schema is a 422 ``invalid_request`` (:mod:`.schema_errors`).
A server-side failure (5xx) names no file path of the server (its log has the whole message).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from memlane.model.errors import (
    BackendError,
    ConflictError,
    DimensionMismatchError,
    EmbedderMismatchError,
    FilterError,
    ForbiddenError,
    MemlaneError,
    NotFoundError,
    ProviderError,
    RateLimitError,
    SchemaVersionError,
    ValidationError,
)
from memlane.retrieval.allowlist import CategoryConfigError, PermissionDeniedError

log = logging.getLogger("memlane.server")
SERVER_PATH = re.compile(r"(?<![\w:/.~-])~?/(?:[\w.@+-]+/)+[\w.@+-]+")  # /a/b.yaml, ~/x; not in http://h/p


class ErrorDetail(BaseModel):
    type: str = Field(description="Stable machine-readable kind, e.g. not_found, validation_error.")
    message: str = Field(description="What went wrong and what to do about it.")
    details: Any = Field(None, description="Extra structured information (schema errors, upstream body).")


class ErrorBody(BaseModel):
    """Every error response of the service."""

    error: ErrorDetail

    model_config = {
        "json_schema_extra": {
            "examples": [
                {
                    "error": {
                        "type": "not_found",
                        "message": "no memory 'abc' for user 'maya'",
                        "details": None,
                    }
                },
            ]
        }
    }


class ApiError(Exception):
    """Raised by routes for an error that is not an engine error (auth, missing user, upstream)."""

    def __init__(
        self,
        status: int,
        type_: str,
        message: str,
        details: Any = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.type, self.message, self.details, self.headers = (
            status,
            type_,
            message,
            details,
            headers,
        )


DESCRIPTIONS = {
    400: "Bad input: memlane refused a value (nothing was changed)",
    401: "Missing or unknown API key",
    403: "The key may not act for that user (or needs an admin key), the memory is only shared with the user "
    "(read-only), or the category is not allowed for the agent",
    404: "No such memory for this user",
    409: "The embedder (or its dimensions) differs from the store's, an idempotency key was reused for another "
    "memory, or a proposal was already decided, expired or its memory changed since",
    413: "The request body is over MEMLANE_MAX_BODY_BYTES",
    422: "The request does not match the schema",
    429: "A per-user write cap was reached",
    502: "An embedder or LLM provider (or the upstream LLM) failed",
    503: "The store or the upstream LLM is unavailable or not configured",
    504: "The upstream LLM timed out",
}


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries for these statuses, each with the error body schema."""
    return {code: {"model": ErrorBody, "description": DESCRIPTIONS[code]} for code in codes}


def classify(exc: MemlaneError) -> tuple[int, str]:
    """HTTP status and error type of an engine error."""
    if isinstance(exc, PermissionDeniedError):  # a category outside the agent's allowlist
        return 403, "forbidden"
    if isinstance(exc, CategoryConfigError):  # the server's categories file, not the request
        return 500, "configuration_error"
    if isinstance(exc, ValidationError):
        return 400, "filter_error" if isinstance(exc, FilterError) else "validation_error"
    table: list[tuple[type[MemlaneError], int, str]] = [
        (NotFoundError, 404, "not_found"),
        (ForbiddenError, 403, "forbidden"),
        (DimensionMismatchError, 409, "dimension_mismatch"),
        (ConflictError, 409, "conflict"),
        (EmbedderMismatchError, 409, "embedder_mismatch"),
        (RateLimitError, 429, "rate_limited"),
        (ProviderError, 502, "provider_error"),
        (BackendError, 503, "backend_error"),
        (SchemaVersionError, 503, "schema_version"),
    ]
    for cls, status, name in table:
        if isinstance(exc, cls):
            return status, name
    return 500, "internal_error"


def error_response(
    status: int, type_: str, message: str, details: Any = None, headers: dict[str, str] | None = None
) -> JSONResponse:
    body = ErrorBody(error=ErrorDetail(type=type_, message=" ".join(str(message).split()), details=details))
    return JSONResponse(body.model_dump(mode="json"), status_code=status, headers=headers)


def without_paths(message: str) -> str:
    """A server-side failure's message with the server's file paths cut to their file names."""
    return SERVER_PATH.sub(lambda m: Path(m.group()).name or "(a server path)", message)


def allowed_methods(request: Request) -> list[str]:
    """The methods the OpenAPI document lists for the request's path."""
    parts = request.url.path.rstrip("/").split("/")
    best: tuple[int, list[str]] = (-1, [])
    for template, operations in request.app.openapi().get("paths", {}).items():
        pattern = template.rstrip("/").split("/")
        if len(pattern) != len(parts):
            continue
        pairs = list(zip(pattern, parts, strict=True))
        if all(p == q or (p.startswith("{") and q) for p, q in pairs):
            literal = sum(p == q for p, q in pairs)  # /v1/memory/export beats /v1/memory/{memory_id}
            if literal > best[0]:
                best = (literal, sorted(m.upper() for m in operations))
    return best[1]


def install(app: FastAPI) -> None:
    """Register the handlers that give every error the shape above."""

    async def on_api_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        return error_response(exc.status, exc.type, exc.message, exc.details, exc.headers)

    async def on_engine_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, MemlaneError)
        status, name = classify(exc)
        if status >= 500:  # the whole message in the server's log; the caller is not told its file layout
            log.error("%s: %s", type(exc).__name__, exc)
            return error_response(status, name, without_paths(str(exc)))
        return error_response(status, name, str(exc))

    async def on_http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        kind = {
            400: "invalid_request",
            404: "not_found",
            405: "method_not_allowed",
            413: "payload_too_large",
        }.get(exc.status_code, "http_error")
        headers = dict(getattr(exc, "headers", None) or {})
        if exc.status_code == 405:  # every method of the path, not only those of one route
            headers["Allow"] = ", ".join(allowed_methods(request))
        return error_response(exc.status_code, kind, str(exc.detail), headers=headers)

    async def on_overflow(_: Request, exc: Exception) -> JSONResponse:  # a value beyond what a store holds
        return error_response(400, "validation_error", f"value out of range: {exc}")

    async def on_unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error", exc_info=exc)
        return error_response(500, "internal_error", f"unexpected {type(exc).__name__}; see the server log")

    app.add_exception_handler(ApiError, on_api_error)
    app.add_exception_handler(MemlaneError, on_engine_error)
    app.add_exception_handler(StarletteHTTPException, on_http_error)
    app.add_exception_handler(OverflowError, on_overflow)
    app.add_exception_handler(Exception, on_unexpected)
