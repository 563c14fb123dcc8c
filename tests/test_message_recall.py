"""Group-chat recall (seed 004, issue 12): recorded messages found by keyword at once and by meaning once
the sessions task has embedded them, session summaries and messages through one reranker, the context
block's "Relevant earlier messages" section. Real SQLite files and PostgreSQL, real embeddings."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from memlane import Memory
from memlane.model.config import Settings
from memlane.model.enums import MemoryType
from memlane.model.record import MemoryRecord, ScoreBreakdown, SearchHit, utcnow
from memlane.model.session import MessageHit, SessionMessage
from memlane.retrieval.intent import QueryPlan
from memlane.retrieval.session_blend import COVERED, SESSION_BONUS, blend
from tests.formation_helpers import local_embedder

U, OTHER, CHAT = "maya", "omar", "trip-planning"
MIN, HOUR, DAY = timedelta(minutes=1), timedelta(hours=1), timedelta(days=1)
START = utcnow().replace(microsecond=0) - 10 * DAY

TRIP = [  # (sender, text)
    ("ana", "Shall we book the Lakeview cabin near Tahoe for the first week of June?"),
    ("ben", "Yes, it has room for all six of us and a boat dock."),
    ("cy", "My sister adopted a golden retriever puppy last weekend."),
    ("ana", "Let's book the Lakeview cabin for June 6 to June 13 then."),
    ("ben", "The deposit is 300 dollars, I can pay it tomorrow."),
]


def open_mem(location: str, **settings: Any) -> Memory:
    chosen: dict[str, Any] = {"worker": False, "memlane_schedule": {"sessions": 1}, **settings}
    return Memory(location, embedder=local_embedder(), settings=Settings(db=location, **chosen))


def record(mem: Memory, user: str = U, chat: str = CHAT, start: Any = START) -> None:
    mem.sessions.record_messages(
        [
            {"name": who, "content": text, "at": start + n * MIN, "ref": f"m{n}"}
            for n, (who, text) in enumerate(TRIP)
        ],
        user_id=user,
        chat_id=chat,
    )


def run_task(mem: Memory) -> None:
    """The sessions task (scheduled an hour after recording, by the wall clock)."""
    mem.run_tasks(at=utcnow() + 2 * HOUR)


def found(mem: Memory, query: str, user: str = U, chat: str | None = None) -> list[MessageHit]:
    vector = mem.embedder.embed_one(query)
    hits = mem.backend.sessions.search_messages(
        user, text=query, vector=vector, embedder=mem.embedder.identity, chat_id=chat
    )
    return sorted(hits, key=lambda h: -(h.similarity or 0.0) - h.keyword)


def test_a_message_is_found_by_keyword_at_once_and_by_meaning_after_the_task(location: str) -> None:
    with open_mem(location) as mem:
        record(mem)
        before = found(mem, "Who got a new dog?")
        assert all(h.similarity is None for h in before)  # no vector yet
        assert [h.message.ref for h in found(mem, "golden retriever")] == ["m2"]  # keywords work at once
        run_task(mem)
        assert mem.backend.sessions.messages_without_vector(U, mem.embedder.identity) == []
        after = {h.message.ref: h.similarity for h in found(mem, "Who got a new dog?")}  # no word in common
        # the puppy message and the one after it (embedded with it as its context) rank above the rest
        assert sorted(after, key=lambda r: -(after[r] or 0.0))[:2] in (["m2", "m3"], ["m3", "m2"])


def test_message_search_keeps_to_the_user_and_to_the_chat(location: str) -> None:
    with open_mem(location) as mem:
        record(mem)
        record(mem, chat="family")
        record(mem, user=OTHER)
        run_task(mem)
        everyone = found(mem, "Lakeview cabin deposit")
        assert everyone and {h.message.user_id for h in everyone} == {U}
        assert {h.message.chat_id for h in everyone} == {CHAT, "family"}
        assert {h.message.chat_id for h in found(mem, "Lakeview cabin deposit", chat="family")} == {"family"}
        assert found(mem, "Lakeview cabin deposit", user="nobody") == []


def test_deleting_a_user_forgets_their_message_keywords_and_vectors(location: str) -> None:
    with open_mem(location) as mem:
        record(mem)
        record(mem, user=OTHER)
        run_task(mem)
        mem.delete_user(U)
        assert found(mem, "Lakeview cabin golden retriever") == []
        assert found(mem, "Lakeview cabin golden retriever", user=OTHER)  # the other user keeps theirs
        if location.endswith(".db"):
            rows = mem.backend._rows  # type: ignore[attr-defined]
            assert rows("SELECT count(*) FROM message_vectors WHERE user_id = ?", (U,))[0][0] == 0
            assert rows("SELECT count(*) FROM messages_fts")[0][0] == len(TRIP)  # the other user's only


def test_put_message_vectors_skips_another_users_message(location: str) -> None:
    with open_mem(location) as mem:
        record(mem, user=OTHER)
        theirs = mem.backend.sessions.messages_without_vector(OTHER, mem.embedder.identity)
        assert (
            mem.backend.sessions.put_message_vectors(U, mem.embedder.identity, {theirs[0].id: [0.1] * 384})
            == 0
        )
        assert len(mem.backend.sessions.messages_without_vector(OTHER, mem.embedder.identity)) == len(TRIP)


def test_the_session_summary_records_the_messages_it_quotes(location: str) -> None:
    with open_mem(location) as mem:
        record(mem)
        run_task(mem)
        (summary,) = mem.list(user_id=U, filters={"type": "session"})
        quoted = summary.metadata["session"]["quoted"]
        texts = {m.id: m.text for m in mem.sessions.messages(mem.sessions.list(user_id=U)[0].id, user_id=U)}
        assert quoted and set(quoted) <= set(texts)
        assert all(" ".join(texts[i].split())[:60] in summary.summary for i in quoted)


def test_the_context_block_shows_earlier_messages_but_not_the_open_session(location: str) -> None:
    with open_mem(location) as mem:
        record(mem)  # ten days ago: a closed, summarised session
        run_task(mem)
        mem.sessions.record_message(
            "Did anyone ask about the Lakeview cabin's wifi?",
            user_id=U,
            chat_id=CHAT,
            sender="cy",
            at=utcnow() - 2 * MIN,
        )  # the conversation going on (found by its keywords)
        assert any(h.message.text.endswith("wifi?") for h in found(mem, "Lakeview cabin wifi", chat=CHAT))
        block = mem.context("When is the Lakeview cabin booked?", user_id=U, chat_id=CHAT)
        assert "Relevant earlier messages:" in block.text
        assert any(m.text.startswith("Let's book the Lakeview cabin") for m in block.messages)
        assert all("wifi" not in m.text for m in block.messages)  # the open session's: in the caller's prompt
        assert "ana: Let's book the Lakeview cabin" in block.text


def test_an_agent_with_an_allowlist_sees_no_raw_messages(location: str, tmp_path: Any) -> None:
    cats = tmp_path / "categories.yaml"
    cats.write_text("allowlists:\n  planner: [other]\n", encoding="utf-8")  # session summaries are Other
    with open_mem(location, categories_file=str(cats)) as mem:
        record(mem)
        run_task(mem)
        assert mem.context("When is the Lakeview cabin booked?", user_id=U, chat_id=CHAT).messages
        assert (
            mem.context(
                "When is the Lakeview cabin booked?", user_id=U, chat_id=CHAT, agent="planner"
            ).messages
            == []
        )


def _message(n: int, at_offset: timedelta) -> MessageHit:
    msg = SessionMessage(
        id=f"m{n}", user_id=U, chat_id=CHAT, session_id="s", text=f"cabin message {n}", at=START + at_offset
    )
    return MessageHit(message=msg, keyword=0.0, similarity=0.5)


def test_the_reranker_gives_summaries_their_bonus_and_halves_messages_they_cover() -> None:
    session = MemoryRecord(
        id="s1",
        user_id=U,
        chat_id=CHAT,
        type=MemoryType.SESSION,
        summary="Chat about the cabin",
        valid_from=START,
        valid_to=START + 10 * MIN,
    )
    hit = SearchHit(memory=session, score=0.5, breakdown=ScoreBreakdown(similarity=0.5))
    inside, outside = _message(1, 5 * MIN), _message(2, 2 * HOUR)
    settings = Settings()
    items = blend(
        "cabin",
        QueryPlan(),
        START + 3 * HOUR,
        settings,
        [inside, outside],
        [hit],
        max_messages=5,
        max_sessions=3,
    )
    by = {(i.kind, i.message.id if i.message else "s"): i for i in items}
    assert by[("session", "s")].parts["bonus"] == SESSION_BONUS
    assert by[("message", "m1")].parts["coverage"] == COVERED
    assert by[("message", "m2")].parts["coverage"] == 1.0
    assert [i.kind for i in items][0] == "session"  # same relevance: the bonus wins
    assert by[("message", "m2")].score > by[("message", "m1")].score
    # without a retrieved summary nothing is covered
    alone = blend(
        "cabin", QueryPlan(), START + 3 * HOUR, settings, [inside], [hit], max_messages=5, max_sessions=0
    )
    assert [i.parts["coverage"] for i in alone] == [1.0]


@pytest.mark.parametrize("bad", ["", "   ", 7])
def test_a_bad_message_ref_is_refused_and_nothing_recorded(tmp_path: Any, bad: Any) -> None:
    from memlane.model.errors import ValidationError

    with open_mem(str(tmp_path / "m.db")) as mem:
        with pytest.raises(ValidationError, match="ref"):
            mem.sessions.record_messages([{"content": "hello", "ref": bad}], user_id=U, chat_id=CHAT)
        assert mem.sessions.list(user_id=U) == []


def test_backfill_embeds_what_is_missing_once_and_only_for_the_user_asked(location: str) -> None:
    with open_mem(location) as mem:
        record(mem)
        record(mem, user=OTHER)
        seen: list[tuple[int, int, int]] = []
        report = mem.backfill_sessions(user_id=U, batch_size=2, progress=lambda *a: seen.append(a))
        assert (report.users, report.messages) == (1, len(TRIP))
        assert seen[-1] == (1, 1, len(TRIP))
        assert mem.backend.sessions.messages_without_vector(U, mem.embedder.identity) == []
        assert len(mem.backend.sessions.messages_without_vector(OTHER, mem.embedder.identity)) == len(TRIP)
        assert mem.backfill_sessions(user_id=U).messages == 0  # resumable: nothing twice
        everyone = mem.backfill_sessions()  # users found by their scheduled sessions task
        assert everyone.messages == len(TRIP) and everyone.users == 2


@pytest.mark.parametrize(("kwargs", "message"), [({"rate": 0}, "rate"), ({"batch_size": 0}, "batch_size")])
def test_backfill_refuses_bad_arguments(tmp_path: Any, kwargs: dict[str, Any], message: str) -> None:
    with open_mem(str(tmp_path / "m.db")) as mem:
        record(mem)
        with pytest.raises(ValueError, match=message):
            mem.backfill_sessions(**kwargs)
        assert len(mem.backend.sessions.messages_without_vector(U, mem.embedder.identity)) == len(TRIP)
