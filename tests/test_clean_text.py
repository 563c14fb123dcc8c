"""Control characters and look-alike keys (issue 30, item 6c/6d), SQLite and PostgreSQL: ESC, BEL and
the other C0 (but tab and newline) and C1 characters are removed from text on every write path and an
id holding one is refused; ``memlane list`` never prints one raw, even from a store written before;
keys are NFC without zero-width characters, so the same-looking key names one memory."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memlane import Memory
from memlane.cli.app import app
from memlane.model.errors import ValidationError
from memlane.providers.embed.hash import HashEmbedder
from memlane.storage.base import Backend, Upsert, WriteBatch

U = "maya"
NASTY = "\x1b[2J\x1b]0;pwned\x07\x9b31m\x08\r\x0b"  # clear screen, set title, bell, C1 CSI, backspace, CR, VT
CONTROL = [chr(c) for c in (*range(1, 9), *range(11, 32), *range(127, 160))]


@pytest.fixture
def mem(backend: Backend) -> Iterator[Memory]:
    emb = HashEmbedder(int(backend.get_meta("embed_dims") or 8))
    backend.set_meta("embedder", emb.identity)
    yield Memory(backend=backend, embedder=emb, llm="rules")


def clean(text: str) -> bool:
    return not any(c in text for c in CONTROL)


def test_control_characters_are_removed_on_every_write_path(mem: Memory) -> None:
    rec = mem.put(
        f"User likes{NASTY} jazz.\tAnd\nblues.", user_id=U, tags=[f"mu{NASTY}sic"], key=f"pref:{NASTY}genre"
    )
    assert (rec.summary, rec.tags, rec.key) == (
        "User likes[2J]0;pwned31m jazz. And blues.",
        ["mu[2J]0;pwned31msic"],
        "pref:[2J]0;pwned31mgenre",
    )
    edited = mem.update(rec.id, user_id=U, summary="User loves\x1b jazz.", entities=["Jazz\x07"])
    assert (edited.summary, edited.entities) == ("User loves jazz.", ["Jazz"])
    mem.add_facts([{"summary": "User lives in Lis\x1bbon.", "tags": ["home\x9b"]}], user_id=U, wait=True)
    assert "User lives in Lisbon." in [r.summary for r in mem.list(user_id=U)]
    stored = mem.sessions.record_messages(
        [{"content": "See you at\x07 six.\n", "name": "ana"}], user_id=U, chat_id="c1"
    )
    assert stored[0].text == "See you at six.\n"
    named = mem.sessions.record_messages(
        [{"content": "Fine.", "name": "b\x1b[1men"}], user_id=U, chat_id="c1"
    )
    assert named[0].sender == "b[1men"  # a display name: cleaned like text
    for r in mem.list(user_id=U, include_inactive=True):
        assert clean(r.summary) and all(clean(t) for t in [*r.tags, *r.entities, r.key or ""]), r


def test_an_id_with_a_control_character_is_refused_and_nothing_is_stored(mem: Memory) -> None:
    with pytest.raises(ValidationError, match="thread_id contains a control character"):
        mem.put("User likes tea.", user_id=U, thread_id="t\x1b1")
    with pytest.raises(ValidationError, match=r"messages\[0\].ref contains a control character"):
        mem.sessions.record_messages(
            [{"content": "hi", "name": "ana", "ref": "m\x071"}], user_id=U, chat_id="c1"
        )
    assert mem.list(user_id=U, include_inactive=True) == [] and mem.sessions.list(user_id=U) == []


def test_a_key_in_another_normal_form_or_with_a_zero_width_character_is_the_same_memory(mem: Memory) -> None:
    nfc = "profile:city:são_paulo"
    nfd = unicodedata.normalize("NFD", nfc)
    assert nfd != nfc
    first = mem.put("User lives in São Paulo.", user_id=U, key=nfd)
    assert first.key == nfc
    for key in (nfc, "profile:\u200bcity:são_paulo\ufeff", "profile:city:sa\u0303o_paulo\u200d"):
        assert mem.put("User lives in São Paulo.", user_id=U, key=key).id == first.id
    assert [r.key for r in mem.list(user_id=U)] == [nfc]
    with pytest.raises(ValidationError, match="empty once"):
        mem.put("User likes tea.", user_id=U, key="\u200b\x1b")


def test_memlane_list_never_prints_raw_control_characters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMLANE_CONFIG", str(tmp_path / "no-config.toml"))
    db = tmp_path / "cli.db"
    run = CliRunner()
    args = ["--user", U, "--db", str(db), "--embedder", "hash"]
    assert run.invoke(app, ["put", f"User likes{NASTY} jazz.", *args]).exit_code == 0
    with Memory(str(db), embedder="hash") as old:  # a row written before this rule, straight to the store
        rec = old.put("User plays chess.", user_id=U)
        legacy = rec.model_copy(
            update={"summary": f"User plays{NASTY} chess.", "category": "Other\x1b[5m", "tags": ["ga\x07me"]}
        )
        old.backend.apply(WriteBatch(upserts=[Upsert(legacy)]))
        assert old.get(rec.id, user_id=U).summary == legacy.summary
    for command in (["list"], ["get", rec.id], ["search", "chess"], ["history", rec.id]):
        result = run.invoke(app, [*command, *args], env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        assert clean(result.stdout), (command, result.stdout)
    listed = run.invoke(app, ["list", *args], env={"COLUMNS": "200"}).stdout
    assert "User plays\\x1b[2J" in listed and "User likes[2J" in listed  # escaped, and stripped when stored


def test_a_langgraph_store_put_keeps_the_value_and_stores_a_clean_summary(mem: Memory) -> None:
    from memlane.integrations.langgraph import MemlaneStore

    store = MemlaneStore(mem)
    value = {"content": "User likes\x1b[31m red\x07 wine."}
    store.put(("memories", U), "m1", value)
    item = store.get(("memories", U), "m1")
    assert item is not None and item.value == value  # LangGraph's contract: the value as put
    assert [r.summary for r in mem.list(user_id=U)] == ["User likes[31m red wine."]


def test_over_rest_text_is_stored_clean_and_an_id_with_a_control_character_is_a_4xx(tmp_path: Path) -> None:
    import httpx

    from tests.scripted_upstream import running_memlane

    location = str(tmp_path / "rest.db")
    with Memory(location, embedder=HashEmbedder(64)) as mem, running_memlane(mem) as base:
        with httpx.Client(base_url=base, headers={"X-Memlane-User": U}, timeout=30) as http:
            put = http.post(
                "/v1/memory", json={"summary": "User likes\x1b[31m red\x07 wine.", "tags": ["wi\x9bne"]}
            )
            assert put.status_code == 200, put.text
            assert (put.json()["summary"], put.json()["tags"]) == ("User likes[31m red wine.", ["wine"])
            said = http.post(
                "/v1/memory/sessions/messages",
                json={"chat_id": "c1", "messages": [{"content": "Dinner at\x07 eight?", "name": "ana"}]},
            )
            assert said.status_code == 201 and said.json()["messages"][0]["text"] == "Dinner at eight?"
            bad = http.post(
                "/v1/memory/sessions/messages", json={"chat_id": "c\x1b1", "messages": [{"content": "x"}]}
            )
            assert 400 <= bad.status_code < 500 and "error" in bad.json(), bad.text
        assert [r.summary for r in mem.list(user_id=U)] == ["User likes[31m red wine."]
        assert [len(mem.sessions.list(user_id=U))] == [1]
