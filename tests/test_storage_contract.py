"""The storage contract: every behaviour here holds for SQLite and PostgreSQL alike, and for the S3
Vectors vector channel on them (moto and the query emulation of tests/s3vectors_fake.py)."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from memlane.model.enums import HistoryEvent, MemoryState, MemoryType
from memlane.model.errors import BackendError, DimensionMismatchError, FilterError, SchemaVersionError
from memlane.model.filters import parse_filters
from memlane.model.record import HistoryEntry, MemoryRecord, Relation
from memlane.storage.base import Backend, Purge, Upsert, WriteBatch
from tests.conftest import CONTRACT_DIMS

T0 = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def backend(any_backend: Backend) -> Backend:
    """SQLite, PostgreSQL, and the S3 Vectors vector channel (conftest's VECTOR_CHANNELS): every test
    here holds for all of them."""
    return any_backend


def vec(*head: float) -> list[float]:
    """A unit vector whose first components are ``head`` (rest zero)."""
    raw = list(head) + [0.0] * (CONTRACT_DIMS - len(head))
    norm = math.sqrt(sum(x * x for x in raw))
    return [x / norm for x in raw]


def rec(mid: str, user: str = "u1", summary: str = "User likes tea.", **kw: object) -> MemoryRecord:
    kw.setdefault("created_at", T0)
    kw.setdefault("updated_at", T0)
    return MemoryRecord(id=mid, user_id=user, summary=summary, **kw)  # type: ignore[arg-type]


def ids(results: list) -> list[str]:  # type: ignore[type-arg]
    return [getattr(r, "record", r).id for r in results]


def test_roundtrip_keeps_every_field(backend: Backend) -> None:
    r = rec(
        "m1",
        summary="User's dog Luna is 4 years old.",
        type=MemoryType.EPISODIC,
        category="Personal",
        key="profile:pet:luna:age",
        tags=["pet", "dog"],
        entities=["Luna"],
        importance=4,
        pinned=True,
        source_ref="D1:3",
        valid_from=T0,
        last_verified_at=T0 + timedelta(hours=1),
        access_count=2,
        agent_id="a",
        run_id="r",
        actor_id="x",
        thread_id="t",
        chat_id="c",
        merged_from=["m0"],
        date_iso="2026-01-01",
        week=1,
        year=2026,
        metadata={"k": [1, "two"]},
    )
    backend.upsert(r, vec(1))
    assert backend.memories.get("u1", "m1") == r
    assert backend.memories.get_many("u1", ["m1", "nope"]) == [r]


def test_reads_are_scoped_to_the_user(backend: Backend) -> None:
    backend.upsert(rec("a1", "alice", "User lives in Lisbon."), vec(1))
    backend.upsert(rec("b1", "bob", "User lives in Lisbon."), vec(1))
    assert backend.memories.get("bob", "a1") is None
    assert backend.memories.get_many("bob", ["a1"]) == []
    for filters in ({}, {"category": "Other"}, {"state": {"$in": ["active", "superseded"]}}):
        conds = parse_filters(filters)
        assert ids(backend.memories.vector_search("bob", vec(1), conds)) == ["b1"]
        assert ids(backend.memories.keyword_search("bob", "Lisbon", conds)) == ["b1"]
        assert ids(backend.memories.list("bob", conds)) == ["b1"]
    with pytest.raises(FilterError):
        parse_filters({"user_id": "alice"}, user_id="bob")


def test_vector_search_orders_by_cosine_similarity(backend: Backend) -> None:
    backend.upsert(rec("far"), vec(0, 1))
    backend.upsert(rec("near"), vec(1, 0.1))
    backend.upsert(rec("exact"), vec(1))
    hits = backend.memories.vector_search("u1", vec(1), limit=3)
    assert ids(hits) == ["exact", "near", "far"]
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert hits[2].score == pytest.approx(0.0, abs=1e-5)
    assert ids(backend.memories.vector_search("u1", vec(1), limit=1, offset=1)) == ["near"]


def test_selective_filter_still_finds_the_only_match(backend: Backend) -> None:
    backend.apply(
        WriteBatch(upserts=[Upsert(rec(f"n{i}", importance=1), vec(1, i / 300)) for i in range(300)])
    )
    backend.upsert(rec("rare", importance=5), vec(0, 0, 1))
    hits = backend.memories.vector_search("u1", vec(1), parse_filters({"importance": {"$gte": 5}}), limit=5)
    assert ids(hits) == ["rare"]


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"type": "episodic"}, {"e"}),
        ({"type": {"$ne": "episodic"}}, {"s", "p"}),
        ({"category": {"$in": ["Finance", "Goals"]}}, {"e", "p"}),
        ({"category": {"$nin": ["Finance"]}}, {"s", "p"}),
        ({"pinned": True}, {"p"}),
        ({"importance_min": 3, "importance_max": 4}, {"e", "p"}),
        ({"importance": {"$gt": 3}}, {"p"}),
        ({"importance": {"$lt": 3}}, {"s"}),
        ({"agent_id": "planner"}, {"p"}),
        ({"agent_id": {"$ne": "planner"}}, {"s", "e"}),
        ({"thread_id": "t1", "run_id": "r1", "actor_id": "x1"}, {"e"}),
        ({"tags": "money"}, {"e"}),
        ({"tags": {"$in": ["money", "goal"]}}, {"e", "p"}),
        ({"tags": {"$nin": ["money"]}}, {"s", "p"}),
        ({"updated_after": "2026-01-05"}, {"e", "p"}),
        ({"updated_before": "2026-01-05T00:00:00Z"}, {"s"}),
        ({"updated_at": {"$gte": "2026-01-05", "$lt": "2026-01-15"}}, {"e"}),
        ({"state": "superseded"}, set()),
        ({"key": "profile:x"}, {"s"}),
    ],
)
def test_filters_apply_in_every_read(backend: Backend, filters: dict, expected: set[str]) -> None:  # type: ignore[type-arg]
    backend.upsert(rec("s", summary="User saves coins.", importance=2, key="profile:x"), vec(1))
    backend.upsert(
        rec(
            "e",
            summary="User saves money monthly.",
            type=MemoryType.EPISODIC,
            category="Finance",
            importance=3,
            tags=["money"],
            thread_id="t1",
            run_id="r1",
            actor_id="x1",
            updated_at=T0 + timedelta(days=10),
        ),
        vec(1, 0.2),
    )
    backend.upsert(
        rec(
            "p",
            summary="User saves for a goal.",
            category="Goals",
            importance=4,
            pinned=True,
            tags=["goal"],
            agent_id="planner",
            updated_at=T0 + timedelta(days=20),
        ),
        vec(1, 0.4),
    )
    conds = parse_filters(filters)
    assert set(ids(backend.memories.vector_search("u1", vec(1), conds, limit=10))) == expected
    assert set(ids(backend.memories.keyword_search("u1", "saves", conds, limit=10))) == expected
    assert set(ids(backend.memories.list("u1", conds))) == expected
    assert backend.memories.count("u1", conds) == len(expected)


@pytest.mark.parametrize(
    "bad",
    [
        {"colour": "red"},
        {"importance": {"$regex": "x"}},
        {"type": "diary"},
        {"pinned": "maybe"},
        {"tags": {"$gt": "a"}},
        {"category": {"$in": []}},
        {"updated_after": "not a date"},
    ],
)
def test_unknown_filter_fields_and_operators_are_errors(bad: dict) -> None:  # type: ignore[type-arg]
    with pytest.raises(FilterError):
        parse_filters(bad)


def test_state_changes_reach_vector_and_keyword_search(backend: Backend) -> None:
    r = rec("m", summary="User plays the cello.")
    backend.upsert(r, vec(1))
    active = parse_filters({"state": "active"})
    assert ids(backend.memories.vector_search("u1", vec(1), active)) == ["m"]
    backend.upsert(r.model_copy(update={"state": MemoryState.SOFT_DELETED}))  # no new vector: keep the old
    assert backend.memories.vector_search("u1", vec(1), active) == []
    assert backend.memories.keyword_search("u1", "cello", active) == []
    assert ids(backend.memories.vector_search("u1", vec(1), parse_filters({"state": "soft_deleted"}))) == [
        "m"
    ]


def test_reembedding_replaces_the_vector(backend: Backend) -> None:
    r = rec("m")
    backend.upsert(r, vec(1))
    backend.upsert(r.model_copy(update={"summary": "User likes green tea."}), vec(0, 1))
    hits = backend.memories.vector_search("u1", vec(0, 1))
    assert ids(hits) == ["m"] and hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert ids(backend.memories.keyword_search("u1", "green")) == ["m"]
    assert backend.memories.keyword_search("u1", "unrelated words") == []


def test_keyword_search_ranks_matches_and_ignores_non_matches(backend: Backend) -> None:
    backend.upsert(rec("a", summary="User adopted a cat named Miso."), vec(1))
    backend.upsert(rec("b", summary="User's cat Miso loves tuna and Miso sleeps a lot."), vec(1))
    backend.upsert(rec("c", summary="User works as a nurse."), vec(1))
    hits = backend.memories.keyword_search("u1", "what is Miso's favourite food? tuna")
    assert ids(hits)[0] == "b" and set(ids(hits)) == {"a", "b"}
    assert all(h.score > 0 for h in hits)
    assert backend.memories.keyword_search("u1", "   ?! ") == []


def test_list_pages_newest_first(backend: Backend) -> None:
    for i in range(5):
        backend.upsert(rec(f"m{i}", updated_at=T0 + timedelta(minutes=i)), vec(1))
    assert ids(backend.memories.list("u1", limit=2)) == ["m4", "m3"]
    assert ids(backend.memories.list("u1", limit=2, offset=2)) == ["m2", "m1"]
    assert ids(backend.memories.list("u1", limit=10, newest_first=False))[:2] == ["m0", "m1"]
    assert backend.memories.count("u1") == 5


def test_history_and_relations(backend: Backend) -> None:
    r = rec("m")
    h1 = HistoryEntry(
        id="h1",
        memory_id="m",
        user_id="u1",
        event=HistoryEvent.ADD,
        new_value=r.snapshot(),
        reason="put",
        actor="api",
        at=T0,
    )
    h2 = HistoryEntry(
        id="h2",
        memory_id="m",
        user_id="u1",
        event=HistoryEvent.UPDATE,
        old_value=r.snapshot(),
        new_value={"summary": "x"},
        reason="fix",
        actor="cli",
        at=T0 + timedelta(seconds=1),
    )
    backend.apply(WriteBatch(upserts=[Upsert(r, vec(1)), Upsert(rec("n"), vec(1))], history=[h1, h2]))
    assert backend.memories.history("u1", "m") == [h1, h2]
    assert backend.memories.history("u2", "m") == []
    edge = Relation(from_id="m", to_id="n", user_id="u1", strength=0.8, created_at=T0)
    backend.apply(WriteBatch(relations=[edge]))
    backend.apply(WriteBatch(relations=[edge.model_copy(update={"strength": 0.9})]))
    assert backend.memories.relations("u1", ["n"]) == [edge]
    assert backend.memories.relations("u2", ["n"]) == []


def test_a_write_that_fails_midway_leaves_nothing(backend: Backend) -> None:
    backend.upsert(rec("taken", "bob"), vec(1))
    good = rec("good")
    entry = HistoryEntry(id="hx", memory_id="good", user_id="u1", event=HistoryEvent.ADD, at=T0)
    with pytest.raises(BackendError):  # second record's id belongs to another user: the DB refuses
        backend.apply(
            WriteBatch(upserts=[Upsert(good, vec(1)), Upsert(rec("taken", "u1"), vec(1))], history=[entry])
        )
    assert backend.memories.get("u1", "good") is None
    assert backend.memories.vector_search("u1", vec(1)) == []
    assert backend.memories.keyword_search("u1", "tea") == []
    assert backend.memories.history("u1") == []
    assert backend.memories.get("bob", "taken") is not None
    with pytest.raises(DimensionMismatchError):
        backend.apply(WriteBatch(upserts=[Upsert(good, [1.0, 0.0])]))
    assert backend.memories.get("u1", "good") is None


def test_purge_removes_content_and_vector(backend: Backend) -> None:
    backend.upsert(rec("m", summary="User's passport number is X123."), vec(1))
    backend.apply(WriteBatch(purges=[Purge("u1", "m")]))
    gone = backend.memories.get("u1", "m")
    assert gone is not None and gone.state is MemoryState.PURGED and "X123" not in gone.summary
    assert backend.memories.vector_search("u1", vec(1), parse_filters({"state": {"$ne": "active"}})) == []
    assert backend.memories.keyword_search("u1", "passport") == []


def test_export_and_delete_user(backend: Backend) -> None:
    for user in ("alice", "bob"):
        r = rec(f"{user}-1", user)
        backend.apply(
            WriteBatch(
                upserts=[Upsert(r, vec(1)), Upsert(rec(f"{user}-2", user), vec(1))],
                history=[
                    HistoryEntry(id=f"h-{user}", memory_id=r.id, user_id=user, event=HistoryEvent.ADD, at=T0)
                ],
                relations=[
                    Relation(
                        from_id=f"{user}-1", to_id=f"{user}-2", user_id=user, strength=0.7, created_at=T0
                    )
                ],
            )
        )
    rows = list(backend.export_user("alice"))
    kinds = sorted(r["kind"] for r in rows)
    assert kinds == ["history", "memory", "memory", "relation"]
    assert all(r.get("user_id") == "alice" for r in rows)
    assert backend.delete_user("alice") == 2
    assert list(backend.export_user("alice")) == []
    assert backend.memories.vector_search("alice", vec(1)) == []
    assert backend.memories.list_users() == ["bob"]
    assert len(list(backend.export_user("bob"))) == 4


def test_migrations_are_idempotent_and_newer_schemas_refused(backend: Backend) -> None:
    version = backend.schema_version()
    assert backend.migrate() == version
    backend.upsert(rec("m"), vec(1))
    assert backend.migrate() == version and backend.memories.get("u1", "m") is not None
    backend.set_meta("schema_version", str(version + 1))
    with pytest.raises(SchemaVersionError, match=str(version + 1)):
        backend.migrate()


def test_embedder_with_other_dims_is_refused(backend: Backend) -> None:
    backend.bind_embedder(f"test:unit:{CONTRACT_DIMS}", CONTRACT_DIMS)  # same: fine
    with pytest.raises(DimensionMismatchError, match=r"test:unit:8.*other:model:16|16"):
        backend.bind_embedder("other:model:16", 16)


def test_a_filter_matching_little_of_a_large_partition_still_finds_it(backend: Backend) -> None:
    """More candidates than one KNN pass may return (sqlite-vec caps k at 4096): the search stays exact."""
    backend.apply(
        WriteBatch(upserts=[Upsert(rec(f"n{i}", category="Goals"), vec(1, i / 5000)) for i in range(5000)])
    )
    backend.upsert(rec("rare", category="Procedural"), vec(0, 1))
    backend.upsert(rec("rare2", category="Procedural"), vec(0, 1, 0.5))
    hits = backend.memories.vector_search("u1", vec(1), parse_filters({"category": "Procedural"}), limit=5)
    assert ids(hits) == ["rare", "rare2"]


def test_id_searches_match_the_record_searches(backend: Backend) -> None:
    backend.apply(
        WriteBatch(
            upserts=[
                Upsert(rec("a", summary="User likes green tea."), vec(1, 0.2)),
                Upsert(rec("b", summary="User likes black tea.", type=MemoryType.EPISODIC), vec(1, 0.5)),
                Upsert(rec("c", summary="User plays chess."), vec(0, 1)),
                Upsert(rec("d", "u2", summary="User likes tea."), vec(1, 0)),
            ]
        )
    )
    episodic = parse_filters({"type": "episodic"}, user_id="u1")
    for conds in ([], episodic):
        assert backend.memories.vector_ids("u1", vec(1, 0), conds, limit=5) == [
            (h.record.id, h.score) for h in backend.memories.vector_search("u1", vec(1, 0), conds, limit=5)
        ]
        assert backend.memories.keyword_ids("u1", "tea", conds, limit=5) == [
            (h.record.id, h.score) for h in backend.memories.keyword_search("u1", "tea", conds, limit=5)
        ]
    assert [i for i, _ in backend.memories.vector_ids("u1", vec(1, 0))] == ["a", "b", "c"]
    assert {i for i, _ in backend.memories.keyword_ids("u1", "tea")} == {"a", "b"}


def test_totals_count_by_state_and_per_user_and_name_only_the_top_users(backend: Backend) -> None:
    from memlane.model.ids import GLOBAL_USER

    records = [
        *(rec(f"a{i}", "alice") for i in range(3)),
        rec("a-old", "alice", state=MemoryState.SUPERSEDED),
        rec("b1", "bob"),
        rec("b-gone", "bob", state=MemoryState.SOFT_DELETED),
        rec("c1", "carol"),
        rec("g1", GLOBAL_USER),  # a global memory: counted by state, but its owner is not a user
    ]
    backend.apply(WriteBatch(upserts=[Upsert(r, vec(1)) for r in records]))
    totals = backend.memories.totals()
    assert totals.by_state == {"active": 6, "superseded": 1, "soft_deleted": 1}
    assert totals.per_user == {3: 1, 1: 2} and (totals.users, totals.active) == (3, 5)
    assert totals.top == []  # no user named unless asked
    assert backend.memories.totals(top=2).top == [("alice", 3), ("bob", 1)]  # ties by user id
