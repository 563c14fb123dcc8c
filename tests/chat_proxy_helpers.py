"""Helpers of the chat proxy tests: memlane on loopback in front of the scripted upstream
(tests/scripted_upstream.py), the official ``openai`` SDK as the client with Open WebUI's headers."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import openai

from memlane import Memory
from memlane.model.config import Settings
from memlane.providers.embed import get_embedder
from memlane.providers.embed.hash import HashEmbedder
from tests.scripted_upstream import MODEL, running_memlane

OWUI = {"X-OpenWebUI-User-Id": "maya", "X-OpenWebUI-Chat-Id": "chat-1"}


def serve(tmp_path: Path, upstream_url: str | None, local: bool = False, **settings: Any) -> Any:
    """A memory and (not yet entered) its server; ``settings`` are the server's."""
    location = str(tmp_path / "c.db")
    embedder = get_embedder("local") if local else HashEmbedder(64)
    mem = Memory(location, embedder=embedder, settings=Settings(db=location))
    return mem, running_memlane(
        mem,
        upstream_base_url=upstream_url,
        upstream_api_key="upstream-secret",
        upstream_model=MODEL,
        **settings,
    )


def sdk(url: str, **headers: str) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=f"{url}/v1", api_key="unused-on-loopback", default_headers=headers, max_retries=0
    )


def wait_jobs_done(url: str, user: str, timeout: float = 20) -> list[dict[str, Any]]:
    """The user's formation jobs once all are done (the periodic tasks the schedule holds are left out)."""
    deadline = time.monotonic() + timeout
    while True:
        jobs = [
            j
            for j in httpx.get(f"{url}/v1/memory/jobs", headers={"X-Memlane-User": user}).json()["jobs"]
            if not j["kind"].startswith("task.")
        ]
        if jobs and all(j["status"] == "done" for j in jobs) or time.monotonic() > deadline:
            return jobs
        time.sleep(0.05)
