"""The ``memlane`` command as a user runs it: a real process found on PATH, with its own HOME and no
MEMLANE_* variables from the caller, and ``memlane serve`` running in the background. Used by the
tests that run documentation (the README's curl block, docs/first-hour.md) word for word."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import memlane

SRC = str(Path(memlane.__file__).resolve().parent.parent)
LISTENING = re.compile(r"memlane listening on (http://\S+)")


def cli_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """An environment whose ``memlane`` is this checkout's, with HOME in ``tmp_path``."""
    bin_dir, home = tmp_path / "bin", tmp_path / "home"
    bin_dir.mkdir(exist_ok=True)
    home.mkdir(exist_ok=True)
    script = bin_dir / "memlane"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m memlane.cli "$@"\n')
    script.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMLANE_", "MEMORY_"))}
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{os.path.dirname(sys.executable)}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=SRC,
        HOME=str(home),
        MEMLANE_CONFIG=str(home / "no-config.toml"),
        COLUMNS="100",
    )
    env.update(extra)
    return env


@dataclass(frozen=True)
class Listening:
    url: str
    line: str  # what ``memlane serve`` printed when it started listening


@contextmanager
def serving(env: dict[str, str], *args: str, timeout: float = 240) -> Iterator[Listening]:
    """``memlane serve --port 0 ARGS`` in the background, once it listens."""
    proc = subprocess.Popen(
        ["memlane", "serve", "--port", "0", "--log-level", "warning", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield _wait_listening(proc, timeout)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def _wait_listening(proc: subprocess.Popen[str], timeout: float) -> Listening:
    assert proc.stdout is not None
    deadline, seen = time.monotonic() + timeout, []
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.5)
        if ready:
            line = proc.stdout.readline()
            seen.append(line)
            if found := LISTENING.search(line):
                return Listening(found.group(1), line.strip())
        if proc.poll() is not None:
            break
    raise AssertionError(
        f"memlane serve did not start: {''.join(seen)}{proc.stderr.read() if proc.stderr else ''}"
    )


def run_bash(script: str, env: dict[str, str], *, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``script`` in bash with errexit and pipefail; every curl fails on an HTTP error status (a stream
    ended by its own ``--max-time`` is fine)."""
    prelude = (
        'set -eo pipefail\ncurl() { command curl --fail-with-body "$@" || { rc=$?; '
        '[ "$rc" -eq 28 ] || { echo "curl failed ($rc): $*" >&2; return "$rc"; }; }; }\n'
    )
    return subprocess.run(
        ["bash", "-c", prelude + script], env=env, capture_output=True, text=True, timeout=timeout
    )
