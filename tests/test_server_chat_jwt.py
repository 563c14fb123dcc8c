"""Open WebUI with FORWARD_USER_INFO_HEADER_JWT_SECRET sends only a signed X-OpenWebUI-User-Jwt: the chat
proxy verifies it with the same secret and acts for its user; a token it cannot verify is refused with a
401 that says why (never a silent fall back to no memory), and nothing is stored."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest

from memlane.model.config import Settings
from tests.chat_proxy_helpers import serve, wait_jobs_done
from tests.scripted_upstream import MODEL, ScriptedUpstream

SECRET = "owui-forward-secret-0123456789abcdef"


def token(secret: str = SECRET, algorithm: str = "HS256", **claims: Any) -> str:
    """The token Open WebUI mints for a turn (utils/headers.py: sub, email, name, role, iss, iat, exp)."""
    now = int(time.time())
    payload = {
        "sub": "owui-42",
        "email": "ana@example.com",
        "name": "Ana",
        "role": "user",
        "iss": "open-webui",
        "iat": now,
        "exp": now + 300,
        **claims,
    }
    return jwt.encode(payload, secret, algorithm=algorithm)


def chat(
    url: str, headers: dict[str, str], text: str = "I live in Porto and I work as a nurse."
) -> httpx.Response:
    return httpx.post(
        f"{url}/v1/chat/completions",
        timeout=30,
        headers={"X-OpenWebUI-Chat-Id": "c1", **headers},
        json={"model": MODEL, "messages": [{"role": "user", "content": text}]},
    )


def test_a_verified_token_acts_for_its_user(tmp_path: Path, upstream: tuple[ScriptedUpstream, str]) -> None:
    _, up_url = upstream
    mem, running = serve(tmp_path, up_url, openwebui_jwt_secret=SECRET)
    with running as url:
        r = chat(url, {"X-OpenWebUI-User-Jwt": token()})
        assert r.status_code == 200 and r.headers["x-memlane-mode"] == "memory"
        wait_jobs_done(url, "owui-42")
        same = chat(url, {"X-OpenWebUI-User-Jwt": token(), "X-OpenWebUI-User-Id": "owui-42"})
        assert same.status_code == 200  # a plain header that agrees is fine
    assert mem.users() == ["owui-42"]
    assert any("Porto" in r.summary for r in mem.list(user_id="owui-42"))
    mem.close()


BAD: dict[str, tuple[Any, str]] = {  # minted when the test runs: a token made at import would expire
    "wrong-secret": (lambda: token("another-secret-0123456789abcdef0123"), "Signature verification failed"),
    "expired": (lambda: token(exp=int(time.time()) - 3600), "has expired"),
    "issuer": (lambda: token(iss="someone-else"), "Invalid issuer"),
    "alg-none": (
        lambda: jwt.encode(
            {"sub": "owui-42", "iss": "open-webui", "exp": int(time.time()) + 300}, "", algorithm="none"
        ),
        "not valid",
    ),
    "bad-user-id": (lambda: token(sub="bad user id!"), "cannot store"),
    "too-long": (lambda: "x" * 5000, "longer than 4096"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_a_token_that_cannot_be_verified_is_refused_and_stores_nothing(
    tmp_path: Path, upstream: tuple[ScriptedUpstream, str], case: str
) -> None:
    mint, why = BAD[case]
    fake, up_url = upstream
    mem, running = serve(tmp_path, up_url, openwebui_jwt_secret=SECRET)
    with running as url:
        sent = mint()
        r = chat(url, {"X-OpenWebUI-User-Jwt": sent})
        assert r.status_code == 401, r.text
        assert r.json()["error"]["type"] == "unauthorized" and why in r.json()["error"]["message"]
        assert fake.requests == []  # nothing went upstream either
    assert mem.users() == []
    mem.close()


def test_a_token_without_a_configured_secret_says_what_to_set(
    tmp_path: Path, upstream: tuple[ScriptedUpstream, str]
) -> None:
    _, up_url = upstream
    mem, running = serve(tmp_path, up_url)
    with running as url:
        r = chat(url, {"X-OpenWebUI-User-Jwt": token()})
        assert r.status_code == 401 and "MEMLANE_OPENWEBUI_JWT_SECRET" in r.json()["error"]["message"]
        clash = serve(tmp_path / "b", up_url, openwebui_jwt_secret=SECRET)
    mem.close()
    mem_b, running_b = clash
    with running_b as url:
        r = chat(url, {"X-OpenWebUI-User-Jwt": token(), "X-OpenWebUI-User-Id": "maya"})
        assert r.status_code == 400 and "name different users" in r.json()["error"]["message"]
    assert mem_b.users() == []
    mem_b.close()


def test_open_webuis_own_variable_sets_the_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORWARD_USER_INFO_HEADER_JWT_SECRET", SECRET)
    assert Settings().openwebui_jwt_secret == SECRET
    monkeypatch.setenv("MEMLANE_OPENWEBUI_JWT_SECRET", "ours-wins")
    assert Settings().openwebui_jwt_secret == "ours-wins"
