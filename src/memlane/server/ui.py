"""The memory inspector at ``/ui``: static HTML, CSS and one vanilla JS module shipped in the package
(``server/inspector/``; no build step, nothing fetched from elsewhere). The page talks to the REST API
and the SSE stream like any other client, with the API key the person types in; the files themselves
hold no data, so they are served without authentication. A strict Content-Security-Policy keeps the
page to its own scripts and its own origin (memory text is always rendered as text, never as HTML)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import RedirectResponse
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

ASSETS = Path(__file__).parent / "inspector"
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",  # an upgraded package serves its new page at once
}


class InspectorFiles(StaticFiles):
    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers.update(HEADERS)
        return response


def install(app: FastAPI) -> None:
    @app.get("/ui", include_in_schema=False)
    def ui_root() -> RedirectResponse:
        return RedirectResponse("ui/", status_code=308)  # relative: works behind a path prefix

    app.mount("/ui", InspectorFiles(directory=ASSETS, html=True), name="ui")
