"""``/docs`` and ``/redoc`` of a real ``memlane serve``, opened in Chromium with every request that leaves
loopback blocked: the pages must load their scripts from the server itself and show the API's operations."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi.openapi.docs import get_swagger_ui_html
from playwright.sync_api import expect

from tests.cli_process import cli_env, serving
from tests.ui.conftest import shot

LOOPBACK = {"127.0.0.1", "localhost", "[::1]", "::1"}


@dataclass(frozen=True)
class Offline:
    page: Any
    blocked: list[str]  # the URLs outside loopback the page asked for (each request was aborted)
    errors: list[str]  # the page's JavaScript errors


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("docs-offline")
    env = cli_env(tmp, MEMLANE_DB=str(tmp / "memlane.db"))
    with serving(env) as listening:
        yield listening.url


@pytest.fixture
def offline(browser: Any, served: str, request: pytest.FixtureRequest) -> Iterator[Offline]:
    """A page whose requests outside loopback are aborted and listed, as are its JavaScript errors."""
    context = browser.new_context(viewport={"width": 1360, "height": 900}, base_url=served)
    blocked: list[str] = []

    def gate(route: Any) -> None:
        if urlsplit(route.request.url).hostname in LOOPBACK or route.request.url.startswith("data:"):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort("internetdisconnected")

    context.route("**/*", gate)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(20_000)
    try:
        yield Offline(page, blocked, errors)
    finally:
        shot(page, f"{request.node.name}-last")
        context.close()


def test_swagger_ui_shows_the_operations_offline(offline: Offline) -> None:
    page = offline.page
    page.goto("/docs")
    turns = page.locator(".opblock-post").filter(has=page.locator("[data-path='/v1/memory/turns']"))
    expect(turns).to_have_count(1)
    expect(turns.locator(".opblock-summary-method")).to_have_text("POST")
    expect(page.locator(".opblock-get [data-path='/healthz']")).to_be_visible()
    turns.locator(".opblock-summary").first.click()  # the operation opens with its request body
    expect(turns.locator(".opblock-body")).to_contain_text("Request body")
    shot(page, "docs-offline", full_page=False)
    assert offline.blocked == [] and offline.errors == []


def test_redoc_shows_the_operations_offline(offline: Offline) -> None:
    page = offline.page
    page.goto("/redoc")
    expect(page.locator("h1").first).to_contain_text("memlane")
    expect(page.get_by_text("/v1/memory/turns", exact=True).first).to_be_attached()
    shot(page, "redoc-offline", full_page=False)
    assert offline.blocked == [] and offline.errors == []


def test_the_gate_blocks_what_the_stock_page_needs(offline: Offline) -> None:
    """The checks above can fail: FastAPI's own page, behind the same gate, asks the CDN and shows nothing."""
    page = offline.page
    page.goto("/healthz")  # an origin on loopback for the stock page
    page.set_content(bytes(get_swagger_ui_html(openapi_url="/openapi.json", title="stock").body).decode())
    expect(page.locator("#swagger-ui")).to_be_attached()
    assert any("cdn.jsdelivr.net" in url for url in offline.blocked)
    assert offline.errors == ["SwaggerUIBundle is not defined"]
    expect(page.locator(".opblock")).to_have_count(0)


def test_the_pages_name_no_other_host(served: str) -> None:
    with httpx.Client(base_url=served) as http:
        for path in ("/docs", "/redoc"):
            html = http.get(path)
            assert html.status_code == 200 and "text/html" in html.headers["content-type"]
            assert "://" not in html.text.replace("http://www.w3.org", ""), html.text  # every URL is a path
            assert "img-src 'self' data:" in html.headers["content-security-policy"]  # no logo from a CDN
        script = http.get("/docs/assets/swagger-ui-bundle.js")
        assert script.status_code == 200 and "javascript" in script.headers["content-type"]
        assert http.get("/docs/assets/redoc.standalone.js").status_code == 200
        assert http.get("/docs/assets/nothing.js").status_code == 404
        assert "/docs" not in http.get("/openapi.json").json()["paths"]


def test_the_assets_come_from_an_installed_package_not_the_repository() -> None:
    from memlane.server.api_docs import assets_dir

    assert (assets_dir() / "swagger-ui-bundle.js").is_file()
    repo = Path(__file__).resolve().parents[2]
    assert not assets_dir().resolve().is_relative_to(repo)
