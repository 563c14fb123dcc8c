"""The OpenAPI document, completed with what FastAPI cannot infer: the configured
``MEMORY_SUMMARY_MAX_CHARS`` as the summaries' ``maxLength``; and the check that a request names no
query parameter its operation does not declare."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.openapi.utils import get_openapi

from memlane.model.config import Settings
from memlane.server.errors import ApiError

SUMMARY_MODELS = ("PutRequest", "UpdateRequest", "FactIn")


def _limit_summary(schemas: dict[str, Any], limit: int) -> None:
    for name in SUMMARY_MODELS:
        prop = schemas.get(name, {}).get("properties", {}).get("summary")
        for variant in [prop, *(prop or {}).get("anyOf", [])] if prop else []:
            if variant.get("type") == "string":
                variant["maxLength"] = limit


def install(app: FastAPI, settings: Settings) -> None:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            doc = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
                tags=app.openapi_tags,
            )
            _limit_summary(doc.get("components", {}).get("schemas", {}), settings.memory_summary_max_chars)
            app.openapi_schema = doc
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


async def known_query(request: Request) -> None:
    """Refuse query parameters the operation does not declare (a typo is not silently ignored)."""
    path = getattr(request.scope.get("route"), "path", None)
    operation = request.app.openapi().get("paths", {}).get(path, {}).get(request.method.lower())
    if operation is None:
        return
    declared = {p["name"] for p in operation.get("parameters", []) if p.get("in") == "query"}
    unknown = sorted(set(request.query_params) - declared)
    if unknown:
        raise ApiError(
            422,
            "invalid_request",
            f"unknown query parameter(s): {', '.join(map(repr, unknown))}; "
            f"this operation takes: {', '.join(sorted(declared)) or 'none'}",
        )
