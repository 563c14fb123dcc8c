"""Hybrid search: keyword adds candidates, filters and tenancy in the database, breakdowns, pins, time
phrases, recall intent, relation boost, threshold and the single-channel baselines."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memlane.engine.memory import Memory
from memlane.model.config import Settings
from memlane.model.record import MemoryRecord, Relation
from memlane.providers.embed.base import Embedder
from memlane.retrieval.rerank import composite, same_aspect
from memlane.retrieval.search import SearchRequest, search
from memlane.storage.base import WriteBatch
from tests.formation_helpers import local_embedder

DIMS = 8
NOW = datetime(2026, 4, 15, 10, 0, tzinfo=UTC)


def unit(*pairs: tuple[int, float]) -> list[float]:
    vec = [0.0] * DIMS
    for i, x in pairs:
        vec[i] = x
    norm = math.sqrt(sum(x * x for x in vec))
    return [x / norm for x in vec]


class StubEmbedder(Embedder):
    """Vectors chosen by the test; any other text points along axis 7 (unrelated to everything)."""

    name, model, dims = "stub", "stub-v1", DIMS

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.table.get(t, unit((7, 1.0))) for t in texts]


def settings(**changes: object) -> Settings:
    return Settings(**{"timezone": "UTC", **changes})  # type: ignore[arg-type]


@pytest.fixture
def make(tmp_path: Path) -> Iterator[object]:
    opened: list[Memory] = []

    def _make(table: dict[str, list[float]], **changes: object) -> Memory:
        mem = Memory(
            str(tmp_path / f"m{len(opened)}.db"), embedder=StubEmbedder(table), settings=settings(**changes)
        )
        opened.append(mem)
        return mem

    yield _make
    for m in opened:
        m.close()


def test_keyword_adds_candidates_the_vector_search_missed(make) -> None:  # type: ignore[no-untyped-def]
    # the notes are the nearest vectors (cosine 0.05); the zebra memory is orthogonal (cosine 0)
    table = {f"Note number {i} about gardening.": unit((0, 0.05), (1, 1.0), (3, 0.01 * i)) for i in range(6)}
    table["The zebra crossing was repainted."] = unit((2, 1.0))
    table["zebra"] = unit((0, 1.0))
    mem = make(table, memory_context_topk=2)
    for text in table:
        if text != "zebra":
            mem.put(text, user_id="u", at=NOW - timedelta(days=1))
    hits = mem.search("zebra", user_id="u", limit=2, at=NOW)
    assert hits[0].memory.summary.startswith("The zebra")
    assert hits[0].breakdown.keyword > 0
    cosine = hits[0].breakdown.similarity - hits[0].breakdown.keyword
    assert cosine == pytest.approx(0.0, abs=1e-6)  # from its stored vector
    dense = search(
        mem.backend,
        mem.embedder,
        mem.settings,
        SearchRequest(user_id="u", query="zebra", conditions=[], now=NOW, limit=2, mode="dense"),
    )
    assert all("zebra" not in h.memory.summary for h in dense)


def test_isolation_filters_and_inactive_in_the_database(make) -> None:  # type: ignore[no-untyped-def]
    mem = make({})
    a = mem.put("User lives in Lisbon.", user_id="ana", category="Personal")
    mem.put("User lives in Lisbon.", user_id="ben", category="Personal")
    mem.put("User's budget is 150 euros.", user_id="ana", category="Finance")
    for query in ("Lisbon", "where does the user live"):
        hits = mem.search(query, user_id="ben", limit=10)
        assert {h.memory.user_id for h in hits} == {"ben"}
    assert {
        h.memory.category for h in mem.search("Lisbon budget", user_id="ana", filters={"category": "Finance"})
    } == {"Finance"}
    mem.delete(a.id, user_id="ana")
    assert a.id not in {h.memory.id for h in mem.search("Lisbon", user_id="ana")}
    assert a.id in {h.memory.id for h in mem.search("Lisbon", user_id="ana", include_inactive=True)}


def test_every_hit_carries_its_breakdown(make) -> None:  # type: ignore[no-untyped-def]
    mem = make(
        {
            "jazz": unit((0, 1.0)),
            "User likes jazz.": unit((0, 0.9), (1, 0.44)),
            "User likes techno.": unit((0, 0.95), (2, 0.31)),
        }
    )
    jazz = mem.put("User likes jazz.", user_id="u", importance=4, at=NOW - timedelta(days=30))
    mem.put("User likes techno.", user_id="u", at=NOW)
    mem.update(jazz.id, user_id="u", pinned=True)
    hits = mem.search("jazz", user_id="u", at=NOW)
    assert hits[0].memory.id == jazz.id
    for h in hits:
        b = h.breakdown
        assert h.score == b.final
        w = mem.settings.memory_rerank_weights
        expected = (
            w["similarity"] * b.similarity
            + w["importance"] * b.importance
            + w["recency"] * b.recency
            + w["pinned"] * b.pinned
            + b.relations
        )
        assert b.final == pytest.approx(expected)
    assert hits[0].breakdown.pinned == 1.0 and hits[0].breakdown.importance == 0.75


def test_a_relevant_pin_outranks_a_closer_newer_match(tmp_path: Path) -> None:
    """A pin is the user saying "this matters": a pinned memory that answers the question (its relevance
    within MEMORY_PIN_MARGIN of the best) ranks first, ahead of a closer and newer unpinned memory
    (the bundled local embedder, a SQLite file)."""
    mem = Memory(str(tmp_path / "pins.db"), embedder=local_embedder(), settings=settings())
    try:
        pinned = mem.put(
            "User wants to adopt a greyhound.", user_id="u", pinned=True, at=NOW - timedelta(days=40)
        )
        mem.put("User thinks cats make great pets.", user_id="u", at=NOW - timedelta(days=1))
        mem.put("User has been looking at kittens at the shelter.", user_id="u", at=NOW - timedelta(days=2))
        hits = mem.search("What pet does the user want?", user_id="u", at=NOW)
        closest = max(hits, key=lambda h: h.breakdown.similarity)
        pin = next(h for h in hits if h.memory.id == pinned.id)
        assert closest.memory.summary == "User thinks cats make great pets."  # closer, newer, not pinned
        assert closest.breakdown.similarity > pin.breakdown.similarity
        assert closest.breakdown.recency > pin.breakdown.recency
        assert hits[0].memory.id == pinned.id and hits[0].breakdown.pinned == 1.0
        assert closest.breakdown.similarity - pin.breakdown.similarity <= mem.settings.memory_pin_margin
    finally:
        mem.close()


@pytest.mark.parametrize(
    ("query", "summary", "same"),
    [
        ("What kind of films do I like?", "User's favourite director is Agnes Varda.", True),
        ("which podcasts do I enjoy?", "User loves true-crime podcasts.", True),
        ("What is my favourite snack?", "User is a big fan of salted almonds.", True),
        ("Where do I work?", "User's favourite director is Agnes Varda.", False),  # asks no liking
        ("What kind of films do I like?", "User works at a cinema in Hove.", False),  # states none
        (
            "Which club does the user support?",
            "User has a season ticket at Brentford.",
            True,
        ),  # an allegiance
        ("Who do I root for in the NBA?", "User is a die-hard Celtics fan.", True),
        (
            "Which team does the user follow?",
            "User plays in a five-a-side team on Tuesdays.",
            False,
        ),  # states none
        (
            "Who follows me on Instagram?",
            "User likes posting photos of their sourdough.",
            False,
        ),  # asks no allegiance
        (
            "Any dinner ideas for me tonight?",
            "User is allergic to sesame.",
            True,
        ),  # what the user must not eat
        ("What should I cook for my parents?", "User keeps a strictly kosher kitchen.", True),
        ("Any dinner ideas for me tonight?", "User works night shifts at the depot.", False),
        ("Do I have any allergies?", "User is allergic to penicillin.", True),
        # how the assistant should answer, and how the user wants answers
        (
            "Which units should you use for my bike's tyre pressure?",
            "User prefers answers in metric units.",
            True,
        ),
        ("How should you explain the tax return to me?", "User wants answers kept short.", True),
        (
            "How should you explain the tax return to me?",
            "User prefers explanations with worked examples.",
            True,
        ),
        (
            "Which units should you use for my oven?",
            "User's oven dial is in gas marks.",
            False,
        ),  # states no style
        (
            "What units is my oven dial in?",
            "User prefers answers in celsius.",
            False,
        ),  # asks nothing of the assistant
    ],
)
def test_a_liking_asked_and_a_liking_stated_are_the_same_aspect(query: str, summary: str, same: bool) -> None:
    record = MemoryRecord.model_validate(
        {"id": "m", "user_id": "u", "summary": summary, "created_at": NOW, "updated_at": NOW}
    )
    assert same_aspect(query, record) is same


def test_a_pinned_liking_answers_a_liking_question_it_shares_no_word_with(tmp_path: Path) -> None:
    mem = Memory(str(tmp_path / "pins.db"), embedder=local_embedder(), settings=settings())
    try:
        pinned = mem.put(
            "User's favourite composer is Arvo Pärt.", user_id="u", pinned=True, at=NOW - timedelta(days=60)
        )
        mem.put(
            "User has been enjoying listening to synth-pop lately.", user_id="u", at=NOW - timedelta(days=1)
        )
        hits = mem.search("What music do I like to listen to?", user_id="u", at=NOW)
        assert hits[0].memory.id == pinned.id and hits[0].breakdown.pinned == 1.0
    finally:
        mem.close()


def test_a_pinned_allegiance_answers_which_team_the_user_follows(tmp_path: Path) -> None:
    """The model puts "Motherwell" 0.19 further from the question than a memory about watching football:
    beyond the pin margin, within twice it; "supporter" answers "follow" as a shared word would."""
    mem = Memory(str(tmp_path / "pins.db"), embedder=local_embedder(), settings=settings())
    try:
        pinned = mem.put(
            "User is a lifelong Motherwell supporter.", user_id="u", pinned=True, at=NOW - timedelta(days=90)
        )
        mem.put("User loves watching football games with friends.", user_id="u", at=NOW - timedelta(days=2))
        hits = mem.search("Which team does the user follow?", user_id="u", at=NOW)
        assert hits[0].memory.id == pinned.id and hits[0].breakdown.pinned == 1.0
    finally:
        mem.close()


def test_an_unrelated_pin_does_not_outrank_the_answer(tmp_path: Path) -> None:
    """A pinned memory that does not answer the question gets nothing from its pin, however important
    and recent it is (the bundled local embedder, a SQLite file)."""
    mem = Memory(str(tmp_path / "pins.db"), embedder=local_embedder(), settings=settings())
    try:
        cat = mem.put(
            "User's cat is called Miso.", user_id="u", pinned=True, importance=4, at=NOW - timedelta(days=1)
        )
        mem.put("User works as a nurse at the city hospital.", user_id="u", at=NOW - timedelta(days=40))
        hits = mem.search("What does the user do for work?", user_id="u", at=NOW)
        assert hits[0].memory.summary == "User works as a nurse at the city hospital."
        assert [h.breakdown.pinned for h in hits if h.memory.id == cat.id] == [0.0]
    finally:
        mem.close()


def test_a_pin_counts_within_the_margin_of_the_best_match(make) -> None:  # type: ignore[no-untyped-def]
    """The gate on exact cosines: 0.14 below the best match counts (pin 1), 0.16 below does not (pin 0),
    unless MEMORY_PIN_MARGIN is widened; the formula holds either way."""
    table = {
        "qq": unit((0, 1.0)),
        "Best match.": unit((0, 0.9), (1, math.sqrt(1 - 0.9**2))),
        "Pinned near.": unit((0, 0.76), (2, math.sqrt(1 - 0.76**2))),
        "Pinned far.": unit((0, 0.74), (3, math.sqrt(1 - 0.74**2))),
    }

    def order(**changes: object) -> list[tuple[str, float]]:
        mem = make(table, **changes)
        mem.put("Best match.", user_id="u", at=NOW)
        for text in ("Pinned near.", "Pinned far."):
            mem.put(text, user_id="u", pinned=True, at=NOW)
        hits = mem.search("qq", user_id="u", at=NOW)
        w = mem.settings.memory_rerank_weights
        for h in hits:
            b = h.breakdown
            assert b.final == pytest.approx(
                w["similarity"] * b.similarity
                + w["importance"] * b.importance
                + w["recency"] * b.recency
                + w["pinned"] * b.pinned
                + b.relations
            )
        return [(h.memory.summary, h.breakdown.pinned) for h in hits]

    assert order() == [("Pinned near.", 1.0), ("Best match.", 0.0), ("Pinned far.", 0.0)]
    assert order(memory_pin_margin=0.2) == [("Pinned near.", 1.0), ("Pinned far.", 1.0), ("Best match.", 0.0)]


def test_a_shared_word_widens_the_pin_margin_and_only_the_closest_count(make) -> None:  # type: ignore[no-untyped-def]
    """The gate compares cosines: 0.24 below the best counts for a pinned memory that shares a word with the
    question (twice the margin), not for one that shares none; and a pin counts only among the 3 candidates
    closest to the question, however small its gap."""

    def at(cos: float, axis: int) -> list[float]:
        return unit((0, cos), (axis, math.sqrt(1 - cos**2)))

    table = {
        "heron": unit((0, 1.0)),
        "Best match.": at(0.9, 1),
        "Pinned heron note.": at(0.66, 2),
        "Pinned other note.": at(0.66, 3),
    }
    mem = make(table)
    mem.put("Best match.", user_id="u", at=NOW)
    for text in ("Pinned heron note.", "Pinned other note."):
        mem.put(text, user_id="u", pinned=True, at=NOW)
    pins = {h.memory.summary: h.breakdown.pinned for h in mem.search("heron", user_id="u", at=NOW)}
    assert pins == {"Pinned heron note.": 1.0, "Best match.": 0.0, "Pinned other note.": 0.0}

    crowded = {
        "qq": unit((0, 1.0)),
        **{f"Close {n}.": at(0.9 - n / 100, n + 1) for n in range(3)},
        "Pinned fourth.": at(0.86, 5),
    }
    mem = make(crowded)
    for text in crowded:
        if text != "qq":
            mem.put(text, user_id="u", pinned=text.startswith("Pinned"), at=NOW)
    hits = mem.search("qq", user_id="u", at=NOW)
    assert [h.breakdown.pinned for h in hits if h.memory.pinned] == [0.0]  # 0.04 below the best, but 4th
    assert hits[0].memory.summary == "Close 0."


def test_time_phrase_boosts_and_filters(make) -> None:  # type: ignore[no-untyped-def]
    q = "What did I decide yesterday?"
    table = {
        q: unit((0, 1.0)),
        "User decided to sell their car.": unit((0, 0.9), (1, 0.44)),
        "User decided to adopt a cat.": unit((0, 0.7), (2, 0.71)),
    }
    mem = make(table)
    mem.put("User decided to sell their car.", user_id="u", type="episodic", at=NOW - timedelta(days=20))
    mem.put("User decided to adopt a cat.", user_id="u", type="episodic", at=NOW - timedelta(hours=20))
    hits = mem.search(q, user_id="u", at=NOW)
    assert "adopt" in hits[0].memory.summary
    assert hits[0].breakdown.recency == 1.0  # inside the window
    earlier = mem.search(q, user_id="u", at=NOW - timedelta(days=19))
    assert "sell" in earlier[0].memory.summary
    strict = make(table, memory_time_phrase_mode="filter")
    strict.put("User decided to sell their car.", user_id="u", type="episodic", at=NOW - timedelta(days=20))
    strict.put("User decided to adopt a cat.", user_id="u", type="episodic", at=NOW - timedelta(hours=20))
    assert [h.memory.summary for h in strict.search(q, user_id="u", at=NOW)] == [
        "User decided to adopt a cat."
    ]


def test_recall_intent_raises_recency(make) -> None:  # type: ignore[no-untyped-def]
    q = "what did we talk about"
    table = {
        q: unit((0, 1.0)),
        "Old chat on pottery.": unit((0, 0.8), (1, 0.6)),
        "New chat on guitars.": unit((0, 0.55), (2, math.sqrt(1 - 0.55**2))),
    }
    mem = make(table)
    mem.put("Old chat on pottery.", user_id="u", type="episodic", at=NOW - timedelta(days=60))
    mem.put("New chat on guitars.", user_id="u", type="episodic", at=NOW)

    def top(intent: str) -> str:
        req = SearchRequest(user_id="u", query=q, conditions=[], now=NOW, intent=intent)
        return search(mem.backend, mem.embedder, mem.settings, req)[0].memory.summary

    assert top("recall") == "New chat on guitars."
    assert top("plain") == "Old chat on pottery."
    assert top("auto") == "New chat on guitars."


def test_follows_relation_lifts_the_answer(make) -> None:  # type: ignore[no-untyped-def]
    q = "What flavour did Nate make?"
    table = {
        q: unit((0, 1.0)),
        "Joanna: What flavour did you make?": unit((0, 0.9), (1, 0.44)),
        "Nate: Coconut, rich and creamy!": unit((0, 0.2), (2, 0.98)),
        "Nate: I went hiking.": unit((0, 0.3), (3, 0.95)),
    }
    mem = make(table, memory_thread_weight=0.0)
    recs = mem.put_many([{"summary": s, "at": NOW} for s in list(table)[1:]], user_id="u")
    mem.backend.apply(
        WriteBatch(
            relations=[
                Relation(
                    from_id=recs[0].id, to_id=recs[1].id, user_id="u", relation_type="follows", strength=1.0
                )
            ]
        )
    )
    hits = mem.search(q, user_id="u", at=NOW)
    order = [h.memory.summary for h in hits]
    assert order.index("Nate: Coconut, rich and creamy!") < order.index("Nate: I went hiking.")
    assert hits[order.index("Nate: Coconut, rich and creamy!")].breakdown.relations > 0


def test_history_question_keeps_recency_as_a_tie_breaker() -> None:
    from memlane.retrieval.intent import QueryPlan
    from memlane.retrieval.rerank import question_recency_weight

    base = settings()
    assert question_recency_weight(base, QueryPlan()) == pytest.approx(0.15)
    assert question_recency_weight(base, QueryPlan(history=True)) == pytest.approx(0.05)
    assert question_recency_weight(base, QueryPlan(recall=True)) == pytest.approx(0.30)


def test_history_question_prefers_the_better_match_over_the_newer(make) -> None:  # type: ignore[no-untyped-def]
    table = {
        "Where did she sleep outdoors?": unit((0, 1.0)),
        "Where does she sleep outdoors?": unit((0, 1.0)),
        "Mel camped at the beach.": unit((0, 0.9), (1, 0.44)),
        "Mel bought a tent.": unit((0, 0.75), (2, math.sqrt(1 - 0.75**2))),
    }
    mem = make(table)
    mem.put("Mel camped at the beach.", user_id="u", type="episodic", at=NOW - timedelta(days=150))
    mem.put("Mel bought a tent.", user_id="u", type="episodic", at=NOW - timedelta(days=1))
    assert (
        mem.search("Where does she sleep outdoors?", user_id="u", at=NOW)[0].memory.summary
        == "Mel bought a tent."
    )
    assert (
        mem.search("Where did she sleep outdoors?", user_id="u", at=NOW)[0].memory.summary
        == "Mel camped at the beach."
    )


def test_reply_to_a_matching_question_joins_the_pool(make) -> None:  # type: ignore[no-untyped-def]
    q = "What flavour did Nate make?"
    table = {
        q: unit((0, 1.0)),
        "Joanna: What flavour did you make?": unit((0, 0.9), (1, 0.44)),
        "Nate: Coconut, rich and creamy!": unit((2, 1.0)),
        "Nate: I went hiking.": unit((0, 0.3), (3, 0.95)),
        "Nate: Mountains.": unit((0, 0.2), (4, 0.98)),
    }
    mem = make(table, memory_thread_weight=0.0, memory_context_topk=2)
    texts = list(table)[1:]
    recs = mem.put_many(
        [{"summary": s, "at": NOW, "thread_id": "t1" if i == 1 else "t0"} for i, s in enumerate(texts)],
        user_id="u",
    )
    links = [
        Relation(from_id=recs[0].id, to_id=recs[1].id, user_id="u", relation_type="follows", strength=1.0),
        Relation(from_id=recs[2].id, to_id=recs[3].id, user_id="u", relation_type="follows", strength=1.0),
    ]
    mem.backend.apply(WriteBatch(relations=links))
    # the reply matches neither channel (orthogonal vector, no shared word): it comes in as a neighbour
    hits = mem.search(q, user_id="u", limit=2, at=NOW)
    assert [h.memory.summary for h in hits][:2] == [
        "Joanna: What flavour did you make?",
        "Nate: Coconut, rich and creamy!",
    ]
    assert hits[1].breakdown.relations == pytest.approx(2 * 0.22 * hits[0].breakdown.similarity, rel=1e-3)
    # a neighbour must pass the request's filters like any candidate
    filtered = mem.search(q, user_id="u", limit=5, at=NOW, filters={"thread_id": "t0"})
    assert "Nate: Coconut, rich and creamy!" not in [h.memory.summary for h in filtered]


def test_threshold_and_keyword_baseline(make) -> None:  # type: ignore[no-untyped-def]
    table = {
        "cats": unit((0, 1.0)),
        "User has two cats.": unit((0, 0.9), (1, 0.44)),
        "User likes tea.": unit((1, 1.0)),
    }
    mem = make(table)
    mem.put("User has two cats.", user_id="u")
    mem.put("User likes tea.", user_id="u")
    assert [h.memory.summary for h in mem.search("cats", user_id="u", threshold=0.5)] == [
        "User has two cats."
    ]
    kw = search(
        mem.backend,
        mem.embedder,
        mem.settings,
        SearchRequest(user_id="u", query="cats", conditions=[], now=NOW, mode="keyword"),
    )
    assert [h.memory.summary for h in kw] == ["User has two cats."]
    with pytest.raises(ValueError):
        search(
            mem.backend,
            mem.embedder,
            mem.settings,
            SearchRequest(user_id="u", query="cats", conditions=[], now=NOW, mode="fuzzy"),
        )


def test_composite_keeps_the_seed_formula() -> None:
    from memlane.model.record import MemoryRecord

    rec = MemoryRecord(id="m", user_id="u", summary="x", importance=5, pinned=True, updated_at=NOW)
    b = composite(rec, 0.5, NOW, {"similarity": 0.55, "importance": 0.2, "recency": 0.15, "pinned": 0.1})
    assert b.final == pytest.approx(0.55 * 0.5 + 0.2 + 0.15 + 0.1)


def test_hybrid_search_on_every_backend(backend) -> None:  # type: ignore[no-untyped-def]
    """SQLite and PostgreSQL: keyword-only candidates, tenancy, follows relations, time window."""
    q = "zebra crossing last week"
    table = {
        q: unit((0, 1.0)),
        "Note about gardening.": unit((0, 0.05), (1, 1.0)),
        "The zebra crossing was repainted.": unit((2, 1.0)),
        "It took two days.": unit((3, 1.0)),
    }
    backend.set_meta(
        "embedder", StubEmbedder(table).identity
    )  # the fixture's empty store, made for this embedder
    mem = Memory(backend=backend, embedder=StubEmbedder(table), settings=settings(memory_context_topk=1))
    recs = mem.put_many(
        [{"summary": s, "type": "episodic", "at": NOW - timedelta(days=9)} for s in list(table)[1:]],
        user_id="u",
    )
    mem.put("The zebra crossing was repainted.", user_id="other")
    backend.apply(
        WriteBatch(
            relations=[
                Relation(
                    from_id=recs[1].id, to_id=recs[2].id, user_id="u", relation_type="follows", strength=1.0
                )
            ]
        )
    )
    hits = mem.search(q, user_id="u", limit=3, at=NOW)
    assert {h.memory.user_id for h in hits} == {"u"}
    assert hits[0].memory.summary == "The zebra crossing was repainted." and hits[0].breakdown.keyword > 0
    assert hits[0].breakdown.recency == 1.0  # nine days before a Wednesday: inside "last week"
    assert any(h.memory.summary == "It took two days." and h.breakdown.relations > 0 for h in hits)


def test_a_failing_query_embedding_fails_the_search_with_its_error(make) -> None:  # type: ignore[no-untyped-def]
    from memlane.model.errors import ProviderError

    mem = make({"User likes tea.": unit((0, 1.0))})
    mem.put("User likes tea.", user_id="u1")

    class Down(StubEmbedder):
        def embed(self, texts: Sequence[str]) -> list[list[float]]:
            raise ProviderError("embedding service unreachable: check MEMLANE_EMBED_URL")

    req = SearchRequest(user_id="u1", query="tea", conditions=[], now=NOW)
    with pytest.raises(ProviderError, match="unreachable"):
        search(mem.backend, Down({}), mem.settings, req)
    assert [h.memory.summary for h in search(mem.backend, mem.embedder, mem.settings, req)] == [
        "User likes tea."
    ]


@pytest.mark.parametrize(
    ("query", "caution"),
    [
        ("What should you keep in mind when suggesting a restaurant for me?", True),
        ("Anything you should know before planning my trip?", True),
        ("Be careful: what snacks could I bring to the party?", True),
        ("What snacks do I like?", False),
        ("Do you remember what we decided about the party?", False),
    ],
)
def test_a_question_about_what_to_be_careful_of_is_read_as_such(query: str, caution: bool) -> None:
    from memlane.retrieval.intent import plan_query

    assert plan_query(query, NOW).caution is caution


def test_what_to_keep_in_mind_puts_what_matters_most_before_what_is_on_topic(tmp_path: Path) -> None:
    """An important fact (a condition, importance 5) answers "what should you keep in mind when ..." better
    than a trivial one that shares the topic's words; the plain question about the topic is unchanged."""
    mem = Memory(str(tmp_path / "caution.db"), embedder=local_embedder(), settings=settings())
    try:
        for day, (text, importance) in enumerate(
            (
                ("User likes spicy noodle soups.", 1),
                ("User has a severe peanut allergy.", 5),
                ("User goes to a ramen bar on Fridays.", 1),
            ),
            start=1,
        ):
            mem.add_facts(
                [{"summary": text, "type": "semantic", "category": "Personal", "importance": importance}],
                user_id="u",
                at=NOW - timedelta(days=10 - day),
                wait=True,
            )
        careful = mem.search(
            "What should the assistant keep in mind when recommending noodle soups to me?",
            user_id="u",
            at=NOW,
        )
        plain = mem.search("Which noodle soups do I like?", user_id="u", at=NOW)
        assert careful[0].memory.summary == "User has a severe peanut allergy."
        assert plain[0].memory.summary == "User likes spicy noodle soups."
    finally:
        mem.close()
