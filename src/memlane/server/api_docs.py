"""The API reference pages, ``/docs`` (Swagger UI) and ``/redoc`` (ReDoc), with their scripts, styles and
icon served by memlane itself from ``/docs/assets`` (FastAPI's own pages load them from a CDN, and are
blank offline).

The files come from the ``fastapi-offline`` package (its ``static/`` folder: Swagger UI 5 and ReDoc 2;
only the files are used, not its ``FastAPIOffline`` factory). ``swagger-ui-bundle`` ships Swagger UI 4,
which cannot read the OpenAPI 3.1 document FastAPI writes; ``drf-spectacular-sidecar`` would bring Django.
A Content-Security-Policy keeps the pages' images, fonts and requests on the server's own origin: ReDoc
would otherwise load its logo from its vendor's CDN on every visit.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from starlette.staticfiles import StaticFiles

ASSETS_URL = "/docs/assets"
# Scripts and styles stay unrestricted: both pages start with an inline script FastAPI writes.
CSP = (
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'"
)


def assets_dir() -> Path:
    """The folder of ``swagger-ui-bundle.js``, ``swagger-ui.css``, ``redoc.standalone.js`` and ``favicon.png``."""
    return Path(str(resources.files("fastapi_offline") / "static"))


def _own_origin(page: HTMLResponse) -> HTMLResponse:
    page.headers["Content-Security-Policy"] = CSP
    return page


def install(app: FastAPI) -> None:
    """Serve ``/docs`` and ``/redoc`` from local files; ``app`` must be built with ``docs_url=None`` and
    ``redoc_url=None``."""
    assert app.docs_url is None and app.redoc_url is None, "FastAPI's CDN pages would shadow these"
    openapi_url = app.openapi_url or "/openapi.json"

    def root(request: Request) -> str:
        return str(request.scope.get("root_path", "")).rstrip("/")  # behind a path prefix too

    @app.get("/docs", include_in_schema=False)
    def swagger_ui(request: Request) -> HTMLResponse:
        base = root(request)
        return _own_origin(
            get_swagger_ui_html(
                openapi_url=base + openapi_url,
                title=f"{app.title} - Swagger UI",
                swagger_js_url=f"{base}{ASSETS_URL}/swagger-ui-bundle.js",
                swagger_css_url=f"{base}{ASSETS_URL}/swagger-ui.css",
                swagger_favicon_url=f"{base}{ASSETS_URL}/favicon.png",
                oauth2_redirect_url=None,
                swagger_ui_parameters=app.swagger_ui_parameters,
            )
        )

    @app.get("/redoc", include_in_schema=False)
    def redoc(request: Request) -> HTMLResponse:
        base = root(request)
        return _own_origin(
            get_redoc_html(
                openapi_url=base + openapi_url,
                title=f"{app.title} - ReDoc",
                redoc_js_url=f"{base}{ASSETS_URL}/redoc.standalone.js",
                redoc_favicon_url=f"{base}{ASSETS_URL}/favicon.png",
                with_google_fonts=False,
            )
        )

    app.mount(ASSETS_URL, StaticFiles(directory=assets_dir()), name="docs-assets")
