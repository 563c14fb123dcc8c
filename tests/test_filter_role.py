"""Seed 001 lists a "role" filter for memory.query. memlane's memories have no message role (the assistant's
words are never kept as memories), so the filter is refused with an error that says why and what to use,
on the Python API and over HTTP, and nothing changes."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from memlane import Memory
from memlane.model.config import Settings
from memlane.model.errors import FilterError
from memlane.providers.embed.hash import HashEmbedder
from tests.scripted_upstream import running_memlane


def test_a_role_filter_is_refused_with_the_reason(tmp_path: Path) -> None:
    location = str(tmp_path / "r.db")
    with Memory(location, embedder=HashEmbedder(64), settings=Settings(db=location)) as mem:
        mem.put("User lives in Porto.", user_id="maya")
        with pytest.raises(FilterError, match="no message role.*source"):
            mem.search("where do I live", user_id="maya", filters={"role": "assistant"})
        with running_memlane(mem) as url:
            for path, body in (
                ("/v1/memory/query", {"agent": "assistant", "query": "where do I live"}),
                ("/v1/memory/search", {"query": "where do I live"}),
            ):
                r = httpx.post(
                    f"{url}{path}",
                    headers={"X-Memlane-User": "maya"},
                    json={**body, "filters": {"role": "assistant"}},
                )
                assert r.status_code == 422, (path, r.text)
                assert "'role' is not supported" in r.text and "source" in r.text, r.text
            ok = httpx.post(
                f"{url}/v1/memory/search",
                headers={"X-Memlane-User": "maya"},
                json={"query": "where do I live", "filters": {"source": "chat"}},
            )
            assert ok.status_code == 200  # the filter it points to works
        assert [r.summary for r in mem.list(user_id="maya")] == ["User lives in Porto."]
