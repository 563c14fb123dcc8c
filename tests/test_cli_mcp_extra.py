"""``memlane mcp`` (or an embedder) where its extra is not installed: one ``error:`` line with the install
command (as its ``--help`` says), exit 2, no traceback and no database created. The missing SDK is
simulated the way Python itself reports one: ``import mcp`` raises ImportError."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.cli_process import cli_env
from tests.test_cli import cli, ok

WITHOUT_MCP = (
    "import sys; sys.modules['mcp'] = None; from memlane.cli.app import main; sys.argv[0] = 'memlane'; main()"
)
INSTALL = "pip install 'memlane[mcp]'"


def test_mcp_without_the_extra_is_one_error_line(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    for args in (["--user", "maya"], ["--transport", "http"]):
        done = subprocess.run(
            [sys.executable, "-c", WITHOUT_MCP, "mcp", *args, "--db", str(db), "--embedder", "hash"],
            env=cli_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr == f"error: memlane's MCP server needs the MCP SDK: {INSTALL}\n"
    assert not db.exists()


def test_mcp_help_names_the_install_command() -> None:
    assert INSTALL in " ".join(ok(cli("mcp", "--help", embedder=None)).stdout.split())


def test_an_embedder_without_its_extra_is_one_error_line(tmp_path: Path) -> None:
    for embedder, module, install in (
        ("openai", "openai", "pip install 'memlane[openai]'"),
        ("bedrock", "boto3", "pip install 'memlane[aws]'"),
    ):
        db = tmp_path / f"{embedder}.db"
        without = WITHOUT_MCP.replace("'mcp'", repr(module))
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                without,
                "put",
                "User likes tea.",
                "--user",
                "maya",
                "--db",
                str(db),
                "--embedder",
                embedder,
            ],
            env=cli_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 2 and done.stdout == "", done.stderr
        assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1 and install in done.stderr
        assert not db.exists()
