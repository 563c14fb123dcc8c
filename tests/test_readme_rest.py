"""The README's curl block, run word for word against a real ``memlane serve`` process (the local
embedder, SQLite, the rules extractor; a scripted upstream LLM behind the chat proxy): every call
answers 2xx, the answers say what the README says they do, and every route of the service has a line."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from memlane.model.config import Settings
from memlane.server.app import create_app
from tests.cli_process import SRC, cli_env, run_bash, serving
from tests.scripted_upstream import DEFAULT_REPLY, MODEL, scripted_upstream

README = Path(SRC).parent / "README.md"
BLOCK = re.compile(r"<!-- rest-examples[^>]*-->\s*```bash\n(.*?)```\s*<!-- /rest-examples -->", re.S)
ADDRESS = "http://127.0.0.1:8765"


def rest_block() -> str:
    found = BLOCK.search(README.read_text(encoding="utf-8"))
    assert found, "the README's rest-examples block is missing"
    return found.group(1)


def calls(block: str) -> set[tuple[str, str]]:
    """(method, path) of every curl line, the path as written (``$ID`` and all)."""
    out = set()
    for line in block.splitlines():
        if "curl " not in line:
            continue
        words = shlex.split(line[line.index("curl ") :].split("|")[0].rstrip(")"))
        url = next(w for w in words if w.startswith("$MEMLANE"))
        method = words[words.index("-X") + 1] if "-X" in words else ("POST" if "-d" in words else "GET")
        out.add((method, url.removeprefix("$MEMLANE").split("?")[0]))
    return out


def test_every_route_has_a_curl_line(tmp_path: Path) -> None:
    app = create_app(settings=Settings(db=str(tmp_path / "routes.db"), embedder="hash"))
    written = calls(rest_block())
    missing = []
    for path, item in app.openapi()["paths"].items():
        pattern = re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", path) + "$")
        for method in item:
            if not any(m == method.upper() and pattern.match(p) for m, p in written):
                missing.append(f"{method.upper()} {path}")
    assert not missing, f"routes without a curl example in the README: {missing}"


def test_the_readme_curl_block_runs_against_memlane_serve(tmp_path: Path) -> None:
    with scripted_upstream() as (upstream, upstream_url):
        env = cli_env(
            tmp_path,
            MEMLANE_DB=str(tmp_path / "memlane.db"),
            MEMLANE_UPSTREAM_BASE_URL=upstream_url,
            MEMLANE_UPSTREAM_MODEL=MODEL,
        )
        with serving(env) as served:
            done = run_bash(rest_block().replace(ADDRESS, served.url), env)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert '"status":"ok"' in out and '"embedder":"local:all-MiniLM-L6-v2:384"' in out
    assert '"action":"create"' in out and '"action":"supersede"' in out  # Luna's age replaced, not piled up
    assert '"action":"running"' not in out  # "wait" waited for the server's own worker too
    assert "User's cat Luna is 4 years old." in out and '"action":"propose"' in out  # the move waits
    assert '"status":"accepted"' in out and "User prefers aisle seats." in out
    assert '"state":"purged"' in out and "event: memory.created" in out
    assert DEFAULT_REPLY in out and "memlane_http_request_duration_seconds" in out
    forwarded = upstream.requests[-1]["messages"]
    assert forwarded[0]["role"] == "system" and "vegetarian" in forwarded[0]["content"]  # memories injected
    exported = [json.loads(line) for line in out.splitlines() if line.startswith('{"kind"')]
    assert {r["kind"] for r in exported} >= {"memory", "history"}
