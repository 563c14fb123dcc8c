"""Fixtures of the inspector's browser tests: Debian's Chromium (installed here with apt-get when it
is missing, as CI's fresh machine needs), one headless browser per module driven by Playwright, and a
real memlane service on loopback (uvicorn on ``create_app``, a SQLite file, the local embedder, the
rule-based extractor) with an admin key and a key bound to one user."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memlane import Memory
from memlane.model.config import Settings
from tests.formation_helpers import local_embedder
from tests.scripted_upstream import running_memlane
from tests.ui.helpers import ADMIN_KEY, BOUND_KEY, BOUND_USER

CHROMIUM = os.environ.get("MEMLANE_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "inspector"


def install_chromium() -> None:
    """``apt-get update && apt-get install -y chromium``; a failure fails the tests with apt's output."""
    if shutil.which("apt-get") is None:
        pytest.fail(
            f"no Chromium at {CHROMIUM} and no apt-get to install it: install Chromium and set "
            "MEMLANE_TEST_CHROMIUM to its path"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update"], ["apt-get", "install", "-y", "chromium"]):
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1200, check=False)
        if done.returncode != 0:
            pytest.fail(
                f"installing Chromium for the inspector tests failed: `{' '.join(command)}` exited "
                f"{done.returncode}\n--- stdout\n{done.stdout[-4000:]}\n--- stderr\n{done.stderr[-4000:]}"
            )
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"apt-get installed chromium but {CHROMIUM} does not exist")


@pytest.fixture(scope="session")
def chromium() -> str:
    if not os.path.exists(CHROMIUM):
        install_chromium()
    return CHROMIUM


@pytest.fixture(scope="module")
def browser(chromium: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    location = str(tmp_path_factory.mktemp("inspector") / "memlane.db")
    mem = Memory(location, embedder=local_embedder(), settings=Settings(db=location))
    try:
        yield mem
    finally:
        mem.close()


@pytest.fixture(scope="module")
def base_url(memory: Memory) -> Iterator[str]:
    with running_memlane(memory, api_keys=[ADMIN_KEY, f"{BOUND_KEY}:{BOUND_USER}"]) as url:
        yield url


@pytest.fixture
def page(browser: Any, base_url: str, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh browser context (no stored key or users); what the page logged is kept, and its
    JavaScript errors fail the test."""
    context = browser.new_context(viewport={"width": 1360, "height": 900}, base_url=base_url)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.set_default_timeout(10_000)
    try:
        yield pg
    finally:
        shot(pg, f"{request.node.name}-last")
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def shot(pg: Any, name: str, *, full_page: bool = True) -> Path:
    """Save a screenshot under test-artifacts/inspector/ (gitignored); docs/inspector/ holds copies."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    pg.screenshot(path=str(path), full_page=full_page)
    return path
