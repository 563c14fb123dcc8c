"""Fetch LangGraph's store test suites (the installed versions' source distributions, with
``pip download --no-binary``), keep their ``tests/`` in a cache outside the repository, and run them
against ``MemlaneStore`` with ``conftest.py`` (next to this file) copied beside them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

HERE = Path(__file__).resolve().parent
CACHE = Path(
    os.environ.get("MEMLANE_LANGGRAPH_SUITES_CACHE", "~/.cache/memlane-langgraph-suites")
).expanduser()
# suite name -> (distribution, the store test files in its sdist)
SUITES: dict[str, tuple[str, tuple[str, ...]]] = {
    "inmemory": ("langgraph-checkpoint", ("tests/test_store.py",)),
    "postgres": ("langgraph-checkpoint-postgres", ("tests/test_store.py", "tests/test_async_store.py")),
}
INI = "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"


@dataclass
class Outcome:
    suite: str
    backend: str
    ran: int = 0
    passed: int = 0
    failed: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    output: str = ""


def fetch(suite: str) -> Path:
    """``<cache>/<dist>-<version>/tests``, downloaded and extracted once per installed version."""
    dist, _ = SUITES[suite]
    root = CACHE / f"{dist}-{version(dist)}"
    if not (root / "tests").is_dir():
        CACHE.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
            pip = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--no-binary",
                    ":all:",
                    "--no-deps",
                    "--disable-pip-version-check",
                    "-q",
                    f"{dist}=={version(dist)}",
                    "-d",
                    tmp,
                ],
                capture_output=True,
                text=True,
            )
            if pip.returncode != 0:
                raise RuntimeError(
                    f"could not fetch the {dist} {version(dist)} sdist for its store tests "
                    f"(the package index must be reachable):\n{pip.stderr[-2000:]}"
                )
            sdist = next(Path(tmp).glob("*.tar.gz"))
            staged = Path(tmp) / "staged"
            with tarfile.open(sdist) as tar:
                for member in tar.getmembers():
                    top, _, rest = member.name.partition("/")
                    if rest.startswith("tests/") and member.isfile():
                        member.name = rest
                        tar.extract(member, staged, filter="data")
            root.mkdir(parents=True, exist_ok=True)
            shutil.move(str(staged / "tests"), root / "tests")
    _write(root / "pytest.ini", INI)
    _write(root / "conftest.py", (HERE / "conftest.py").read_text())
    _write(root / "memlane_s3vectors_fake.py", (HERE.parent / "s3vectors_fake.py").read_text())
    return root


def _write(path: Path, text: str) -> None:
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def slashless(url: str) -> str:
    """The server URL with its socket directory percent-encoded: the upstream fixtures split URLs on '/'."""
    parts = urlsplit(url)
    return urlunsplit(
        (parts.scheme, parts.netloc, parts.path, urlencode(parse_qsl(parts.query), safe=""), "")
    )


def start(suite: str, backend: str, root: Path, pg_url: str, junit: Path) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "MEMLANE_LG_SUITE": suite,
        "MEMLANE_LG_BACKEND": backend,
        "MEMLANE_LG_PG_URL": pg_url,
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-c",
        str(root / "pytest.ini"),
        "--rootdir",
        str(root),
        "-p",
        "no:cacheprovider",
        "-q",
        "--no-header",
        "-W",
        "ignore::DeprecationWarning",
        f"--junitxml={junit}",
        *SUITES[suite][1],
    ]
    return subprocess.Popen(
        cmd, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def finish(suite: str, backend: str, proc: subprocess.Popen[str], junit: Path, timeout: float) -> Outcome:
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        output, _ = proc.communicate()
        output += f"\n[timed out after {timeout}s]"
    out = Outcome(suite, backend, output=output)
    if not junit.exists():
        out.failed.append(f"no junit report (exit code {proc.returncode})")
        return out
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        skipped = case.find("skipped")
        if skipped is not None:
            out.skipped[name] = skipped.get("message", "")
            continue
        out.ran += 1
        if case.find("failure") is not None or case.find("error") is not None:
            out.failed.append(name)
        else:
            out.passed += 1
    return out
