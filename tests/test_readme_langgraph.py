"""The README's LangGraph snippet, run as written in a fresh directory (the real local embedder and
SQLite; the snippet's own list-answering chat model stands in for a hosted one)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.cli_process import SRC, cli_env

README = Path(SRC).parent / "README.md"
BLOCK = re.compile(
    r"<!-- langgraph-snippet[^>]*-->\s*```python\n(.*?)```\s*<!-- /langgraph-snippet -->", re.S
)


def test_the_readme_langgraph_snippet_runs_and_the_agent_sees_the_memories(tmp_path: Path) -> None:
    found = BLOCK.search(README.read_text(encoding="utf-8"))
    assert found, "the README's langgraph-snippet block is missing"
    (tmp_path / "snippet.py").write_text(found.group(1))
    done = subprocess.run(
        [sys.executable, "snippet.py"],
        cwd=tmp_path,
        env=cli_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    context, answer = done.stdout.strip().split("\n", 1)[0], done.stdout.strip().splitlines()[-1]
    assert context.startswith("Known about the user:")
    assert "User lives in Lisbon." in done.stdout and "User is vegetarian." in done.stdout
    assert answer == "Something with chickpeas?"
    assert (tmp_path / "memlane.db").exists()
