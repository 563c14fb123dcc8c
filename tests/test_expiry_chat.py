"""The chat proxy's system prompt leaves out a memory past its ``expires_at`` (real server on
loopback, the official ``openai`` SDK as the client, a scripted upstream)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import openai

from memlane import Memory
from memlane.model.config import Settings
from memlane.model.record import utcnow
from memlane.providers.embed.hash import HashEmbedder
from tests.scripted_upstream import MODEL, running_memlane, scripted_upstream


def test_an_expired_memory_stays_out_of_the_system_prompt(tmp_path: Path) -> None:
    location = str(tmp_path / "c.db")
    mem = Memory(location, embedder=HashEmbedder(64), settings=Settings(db=location))
    mem.put(
        "User's dog Luna is staying at the kennel this week.",
        user_id="maya",
        category="Personal",
        expires_at=utcnow() - timedelta(hours=1),
    )
    mem.put("User's dog Luna loves the beach.", user_id="maya", category="Personal")
    with (
        scripted_upstream() as (fake, up_url),
        running_memlane(mem, upstream_base_url=up_url, upstream_model=MODEL, upstream_api_key="k") as url,
    ):
        client = openai.OpenAI(
            base_url=f"{url}/v1",
            api_key="unused",
            max_retries=0,
            default_headers={"X-OpenWebUI-User-Id": "maya", "X-OpenWebUI-Chat-Id": "c1"},
        )
        client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "Where is Luna, my dog?"}]
        )
        system = fake.requests[-1]["messages"][0]
        assert system["role"] == "system" and "beach" in system["content"]
        assert "kennel" not in system["content"]
    mem.close()
