"""Open WebUI with a file, a knowledge base or a web search attached: its retrieval template ("### Task:"
... <context>documents</context>) comes with the user's message. The turn is the user's (memories read and
formed from the user's own words); the documents' text is never stored as the user's."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from memlane.server.chat_messages import is_task, last_user_text, own_words
from tests.chat_proxy_helpers import OWUI, serve, wait_jobs_done
from tests.scripted_upstream import MODEL, ScriptedUpstream

# Open WebUI's default retrieval template (abridged: its guidelines are longer), with one web result.
TEMPLATE = """### Task:
Respond to the user query using the provided context, incorporating inline citations in the format [id] \
**only when the <source> tag includes an explicit id attribute** (e.g., <source id="1">).

### Guidelines:
- If you don't know the answer, clearly state that.
- Respond in the same language as the user's query.

### Output:
Provide a clear and direct response to the user's query.

<context>
<source id="1" name="flat-listing.pdf">Two-bedroom flat in Oslo. The owner lives in Bergen and keeps a \
cat named Tom. I work as a dentist, writes the landlord.</source>
</context>
"""
OWN = "I'm a nurse and I moved to Porto last month. Is this flat a good deal for me?"


@pytest.mark.parametrize(
    "text",
    [
        f"{TEMPLATE}\n{OWN}",  # Open WebUI puts the template before the user's message
        f"{OWN}\n{TEMPLATE}",  # older versions put it after
        f"{TEMPLATE}\n<user_query>\n{OWN}\n</user_query>\n",  # a template with the query inside it, nothing else
    ],
    ids=["before", "after", "query-inside"],
)
def test_the_users_own_words_are_taken_from_a_retrieval_turn(text: str) -> None:
    assert own_words(text).strip() == OWN
    messages = [{"role": "user", "content": text}]
    assert not is_task(messages) and last_user_text(messages) == OWN
    parts = [{"role": "user", "content": [{"type": "text", "text": text}]}]  # content parts alike
    assert not is_task(parts) and last_user_text(parts) == OWN


def test_tasks_stay_tasks_and_plain_turns_stay_as_they_are() -> None:
    title = "### Task:\nGenerate a concise title.\n<chat_history>USER: I live in Porto</chat_history>"
    assert is_task([{"role": "user", "content": title}])
    assert is_task([{"role": "system", "content": title}, {"role": "user", "content": "hi"}])
    assert not is_task([{"role": "system", "content": TEMPLATE}, {"role": "user", "content": OWN}])
    plain = "Here is my </context> tag question: what does ### Task: mean?"
    assert own_words(plain) == plain


@pytest.mark.parametrize("in_system", [False, True], ids=["in-user-turn", "in-system-prompt"])
def test_a_turn_with_documents_reads_and_forms_memory_from_the_users_words_only(
    tmp_path: Path, upstream: tuple[ScriptedUpstream, str], in_system: bool
) -> None:
    fake, up_url = upstream
    mem, running = serve(tmp_path, up_url)
    mem.put("User is looking for a two-bedroom flat.", user_id="maya")
    messages = (
        [{"role": "system", "content": TEMPLATE}, {"role": "user", "content": OWN}]
        if in_system
        else [{"role": "user", "content": f"{TEMPLATE}\n{OWN}"}]
    )
    with running as url:
        r = httpx.post(
            f"{url}/v1/chat/completions",
            headers=OWUI,
            timeout=30,
            json={"model": MODEL, "messages": messages},
        )
        assert r.status_code == 200 and r.headers["x-memlane-mode"] == "memory"
        assert int(r.headers["x-memlane-memories"]) >= 1
        system = fake.requests[-1]["messages"][0]
        assert system["role"] == "system" and "two-bedroom flat" in system["content"]
        assert "Oslo" in str(fake.requests[-1]["messages"])  # the documents still reach the upstream
        wait_jobs_done(url, "maya")
    stored = " ".join(r.summary for r in mem.list(user_id="maya"))
    assert "Porto" in stored and "nurse" in stored
    for document_word in ("Oslo", "Bergen", "Tom", "dentist", "### Task"):
        assert document_word not in stored
    (session,) = mem.sessions.list(
        user_id="maya", chat_id="chat-1"
    )  # the recorded conversation: the user's words
    said = [m.text for m in mem.sessions.messages(session.id, user_id="maya") if m.role == "user"]
    assert said == [OWN]
    mem.close()
