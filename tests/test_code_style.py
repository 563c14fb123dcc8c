"""The tree stays as the house rules say: formatted by ruff, clean under ruff's lints (broad excepts and
complexity included) and mypy, and no comment cites a design document's section instead of saying the rule."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def ruff() -> str:
    found = shutil.which("ruff")
    assert found, "ruff is a test dependency: pip install -e '.[test]'"
    return found


def test_the_tree_is_formatted(ruff: str) -> None:
    done = _run(ruff, "format", "--check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_finds_nothing(ruff: str) -> None:
    done = _run(ruff, "check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_finds_nothing() -> None:
    done = _run(sys.executable, "-m", "mypy")
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]


def test_no_comment_cites_a_seed_or_a_section() -> None:
    cite = re.compile(r"seed [0-9]{3}|§")
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in (ROOT / "src").rglob("*.py")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if cite.search(line)
    ]
    assert not found, found
