"""docs/first-hour.md, run as written: every bash block (but the install) in a fresh HOME with this
checkout's ``memlane`` on PATH, ``memlane serve`` as a real background process, a scripted
OpenAI-compatible server in place of the hosted model; each ``text`` block must match the output of the
commands before it (``...`` stands for anything). Then the chat proved it used the memory: the model
was sent the user's vegetarian diet."""

from __future__ import annotations

import re
import subprocess
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from tests.cli_process import SRC, cli_env, run_bash, serving
from tests.scripted_upstream import scripted_upstream

DOC = Path(SRC).parent / "docs" / "first-hour.md"
FENCE = re.compile(r"(?:<!-- first-hour: (\w+)[^>]*-->\s*)?```(bash|text)\n(.*?)```", re.S)
ADDRESS, HOSTED = "http://127.0.0.1:8765", "https://api.openai.com/v1"
TEN_MINUTES = 600.0


@dataclass
class Block:
    kind: str  # bash | text
    marker: str | None  # skip | serve | eventually
    body: str


def blocks() -> list[Block]:
    return [
        Block(kind, marker, body) for marker, kind, body in FENCE.findall(DOC.read_text(encoding="utf-8"))
    ]


def matches(expected: str, output: str) -> bool:
    """Each expected line matches a later output line than the one before (``...``: any text)."""
    lines, at = output.splitlines(), 0
    for want in filter(None, (line.strip() for line in expected.splitlines())):
        pattern = re.compile(".*".join(re.escape(part) for part in want.split("...")))
        at = next((i + 1 for i in range(at, len(lines)) if pattern.fullmatch(lines[i].strip())), -1)
        if at < 0:
            return False
    return True


def exported(script: str, env: dict[str, str]) -> dict[str, str]:
    """The environment after the ``export`` lines of ``script``."""
    done = subprocess.run(
        ["bash", "-c", script + "\nenv -0"], env=env, capture_output=True, text=True, check=True
    )
    return dict(item.split("=", 1) for item in done.stdout.split("\0") if "=" in item)


def test_the_first_hour_walkthrough_runs_as_written(tmp_path: Path) -> None:
    steps = blocks()
    assert [b.marker for b in steps if b.marker] == ["skip", "serve", "eventually"]
    env, output, started = cli_env(tmp_path), "", time.monotonic()
    with ExitStack() as stack:
        upstream, upstream_url = stack.enter_context(scripted_upstream())
        address = ADDRESS
        for block in steps:
            if block.kind == "text":
                wanted = block.body.replace(ADDRESS, address)
                assert matches(wanted, output), (
                    f"docs/first-hour.md expects\n{wanted}\nbut the commands printed\n{output}"
                )
            elif block.marker == "skip":
                continue
            elif block.marker == "serve":
                setup = [line for line in block.body.splitlines() if line.strip() != "memlane serve"]
                assert len(setup) < len(block.body.splitlines()), "the serve block runs `memlane serve`"
                env = exported("\n".join(setup).replace(HOSTED, upstream_url), env)
                served = stack.enter_context(serving(env))
                address, output = served.url, served.line
            else:
                output = _run(block, env, address)
        elapsed = time.monotonic() - started
    forwarded = upstream.requests[0]["messages"]
    assert forwarded[0]["role"] == "system" and "User is vegetarian." in forwarded[0]["content"]
    assert elapsed < TEN_MINUTES, f"the walkthrough took {elapsed:.0f} s"
    print(f"first hour walkthrough (after the install): {elapsed:.1f} s")


def _run(block: Block, env: dict[str, str], address: str) -> str:
    """The block's output; an ``eventually`` block is run again until the next text block would match
    (background formation), for up to a minute."""
    deadline = time.monotonic() + (60 if block.marker == "eventually" else 0)
    while True:
        done = run_bash(block.body.replace(ADDRESS, address), env)
        assert done.returncode == 0, f"{block.body}\nfailed:\n{done.stderr[-3000:]}"
        nxt = blocks()[blocks().index(block) + 1]
        if time.monotonic() >= deadline or matches(nxt.body.replace(ADDRESS, address), done.stdout):
            return done.stdout
        time.sleep(1)
