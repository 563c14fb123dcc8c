"""An LLM outage behind ``memlane serve``, with the production defaults: how long POST /turns takes while
the model hangs or answers 503, what ``wait`` answers, and how long after the model recovers the turns
said meanwhile become memories.

    python benchmarks/outage_bench.py --src before=/path/to/old/src --src after=src

For each source tree: ``memlane serve`` (hash embedder, SQLite, ``MEMLANE_LLM=openai``) in front of a
scripted OpenAI-compatible server on loopback (tests/scripted_chat_server.py) that (1) hangs for longer
than ``MEMLANE_LLM_TIMEOUT_S``, (2) answers 503 for ``--outage-s`` seconds, (3) recovers. Every other
setting is the default (``MEMLANE_LLM_TIMEOUT_S`` 20, ``MEMLANE_WAIT_TIMEOUT_S`` 30, ...). Prints one
line per measurement.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.formation_helpers import extraction_json  # noqa: E402
from tests.scripted_chat_server import Reply, ScriptedChatServer  # noqa: E402

TURNS = {
    "Zanzibar": "I live in Zanzibar.",
    "theremin": "I play the theremin.",
    "axolotl": "I keep an axolotl.",
    "Ulaanbaatar": "My sister works in Ulaanbaatar.",
}


def recovered(request: dict[str, Any]) -> Reply:
    schema = request.get("response_format", {}).get("json_schema", {}).get("name")
    prompt = request["messages"][-1]["content"]
    if schema == "Judgements":
        stored = re.findall(r"^(\d+)\. ", prompt.split("Stored:", 1)[-1], flags=re.MULTILINE)
        return Reply(
            json.dumps(
                {
                    "judgements": [
                        {"index": int(n), "reasoning": "another fact", "relation": "new"} for n in stored
                    ]
                }
            )
        )
    said = prompt.split("Conversation", 1)[-1]
    found = [f"User said {key}." for key in TURNS if key in said]
    return Reply(
        extraction_json(*found[:1], category="Personal") if schema == "Extraction" else None,
        200 if schema == "Extraction" else 500,
    )


def serve(src: str, llm_url: str, tmp: str) -> tuple[subprocess.Popen[str], str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMLANE_", "MEMORY_"))}
    env.update(
        PYTHONPATH=src,
        MEMLANE_EMBEDDER="hash",
        MEMLANE_CONFIG=os.path.join(tmp, "none.toml"),
        MEMLANE_DB=os.path.join(tmp, "m.db"),
        MEMLANE_LLM="openai",
        MEMLANE_OPENAI_BASE_URL=llm_url,
        MEMLANE_LLM_MODEL="bench-model",
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memlane.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--log-level",
            "warning",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    line, deadline = "", time.monotonic() + 180
    while "listening on" not in line:
        ready, _, _ = select.select([proc.stdout], [], [], 1.0)
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("memlane serve did not start")
        line = proc.stdout.readline() if ready else ""
    found = re.search(r"listening on (http://\S+)", line)
    assert found
    return proc, found.group(1)


def turn(url: str, user: str, text: str, wait: bool) -> tuple[float, int, dict[str, Any]]:
    started = time.monotonic()
    r = httpx.post(
        f"{url}/v1/memory/turns",
        headers={"X-Memlane-User": user},
        timeout=300,
        json={"messages": text, "wait": wait},
    )
    return time.monotonic() - started, r.status_code, r.json()


def said(body: dict[str, Any]) -> str:
    reason = body.get("reason") or {}
    return f"pending={body.get('pending', '(no field)')} reason={reason.get('code', '-')} decisions={len(body['decisions'])}"


def memories(url: str) -> int:
    return sum(
        len(
            httpx.get(f"{url}/v1/memory", headers={"X-Memlane-User": u}, params={"limit": 100}).json()[
                "memories"
            ]
        )
        for u in ("maya", "noor")
    )


def run(name: str, src: str, outage_s: float, observe_s: float) -> None:
    llm = ScriptedChatServer()
    llm.thread.start()
    with tempfile.TemporaryDirectory(prefix="memlane-outage-") as tmp:
        proc, url = serve(src, llm.url, tmp)
        try:
            llm.otherwise = lambda _: Reply(None, 503, delay=120.0)  # hangs past the client's timeout
            took, status, body = turn(url, "maya", TURNS["Zanzibar"], wait=False)
            print(f"{name}: model hangs: POST /turns           {took:6.1f} s  HTTP {status}")
            took, status, body = turn(url, "maya", TURNS["theremin"], wait=True)
            print(f"{name}: model hangs: POST /turns wait=true {took:6.1f} s  HTTP {status} {said(body)}")
            llm.otherwise = lambda _: Reply(None, 503)
            outage_started = time.monotonic()
            took, status, body = turn(url, "noor", TURNS["axolotl"], wait=False)
            print(f"{name}: model 503:   POST /turns           {took:6.1f} s  HTTP {status}")
            took, status, body = turn(url, "noor", TURNS["Ulaanbaatar"], wait=True)
            print(f"{name}: model 503:   POST /turns wait=true {took:6.1f} s  HTTP {status} {said(body)}")
            time.sleep(max(0.0, outage_s - (time.monotonic() - outage_started)))
            llm.otherwise = recovered
            back = time.monotonic()
            while memories(url) < len(TURNS) and time.monotonic() - back < observe_s:
                time.sleep(0.5)
            jobs = [
                j
                for u in ("maya", "noor")
                for j in httpx.get(f"{url}/v1/memory/jobs", headers={"X-Memlane-User": u}).json()["jobs"]
                if j["kind"] == "turn"
            ]
            parked = sum(j["status"] == "parked" for j in jobs)
            healed = memories(url)
            when = (
                f"{time.monotonic() - back:.1f} s after"
                if healed == len(TURNS)
                else f"within {observe_s:g} s of"
            )
            print(
                f"{name}: after a {outage_s:g} s outage: {healed}/{len(TURNS)} turns formed {when} "
                f"the model's recovery, {parked} parked"
            )
        finally:
            proc.terminate()
            proc.wait(30)
            llm.stopping.set()
            llm.httpd.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--src", action="append", required=True, metavar="NAME=PATH", help="a source tree (repeat)"
    )
    parser.add_argument("--outage-s", type=float, default=60.0, help="how long the model answers 503")
    parser.add_argument("--observe-s", type=float, default=330.0, help="how long to watch for recovery")
    args = parser.parse_args()
    for item in args.src:
        name, path = item.split("=", 1)
        run(name, str(Path(path).resolve()), args.outage_s, args.observe_s)


if __name__ == "__main__":
    main()
