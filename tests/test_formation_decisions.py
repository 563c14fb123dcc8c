"""Memory formation, decision by decision (seed 000 bands and merge policy, seed 003 conflict table and
flip-flop rule). The hot path (candidates at once, caps, validation) is in test_formation_hotpath.py.

Real parts: the bundled all-MiniLM-L6-v2 embedder, SQLite files. The LLM is a :class:`ScriptedLLM`
at the provider boundary, so each branch is forced by a declared answer, not by a model's wording.
Band preconditions on the fixture sentences are asserted, so a changed model fails loudly here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memlane import Memory
from memlane.formation.bands import Bands, bands_for
from memlane.formation.decide import BELOW_FLOOR
from memlane.model.config import Settings
from memlane.model.enums import HistoryEvent, MemoryState, MemoryType
from memlane.model.jobs import JobStatus
from memlane.model.record import MemoryRecord
from memlane.providers.embed import Embedder
from tests.formation_helpers import (
    EventLog,
    ScriptedLLM,
    ScriptedTransportLLM,
    cosine,
    local_embedder,
    open_memory,
)

U = "maya"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
T1 = T0 + timedelta(days=1)
SEMANTIC: Bands = bands_for("local", MemoryType.SEMANTIC, Settings())
EPISODIC: Bands = bands_for("local", MemoryType.EPISODIC, Settings())


@pytest.fixture(scope="module")
def emb() -> Embedder:
    return local_embedder()


@pytest.fixture
def llm() -> ScriptedLLM:
    return ScriptedLLM()


@pytest.fixture
def mem(tmp_path: Path, llm: ScriptedLLM, emb: Embedder) -> Iterator[Memory]:
    # the decisions as made; consent, which holds changes of a city or a name for the user, is in test_consent.py
    m = open_memory(str(tmp_path / "m.db"), llm, memory_consent_fields=[], memory_consent_benign_fields=[])
    yield m
    m.close()


def add(mem: Memory, summary: str, at: datetime, **fields: Any) -> None:
    mem.add_facts([{"summary": summary, **fields}], user_id=U, at=at, wait=True)


def active(mem: Memory) -> list[MemoryRecord]:
    return mem.list(user_id=U)


def only(mem: Memory) -> MemoryRecord:
    recs = active(mem)
    assert len(recs) == 1, [r.summary for r in recs]
    return recs[0]


def events(mem: Memory, memory_id: str) -> list[HistoryEvent]:
    return [h.event for h in mem.history(memory_id, user_id=U)]


def edges(mem: Memory) -> list[dict[str, Any]]:
    return [row for row in mem.export_user(U) if row["kind"] == "relation"]


def score_in(emb: Embedder, a: str, b: str, low: float, high: float = 1.01) -> float:
    """Precondition on the fixture sentences: their similarity lies in the band the test is about."""
    s = cosine(emb, a, b)
    assert low <= s < high, f"fixture pair moved out of its band [{low}, {high}): {s:.3f} {a!r} / {b!r}"
    return s


def all_jobs_done(mem: Memory) -> bool:
    return all(j.status is JobStatus.DONE for j in mem.jobs.list(user_id=U))


# --- 1. exact / normalised-text redundancy -------------------------------------------------------


@pytest.mark.parametrize("again", ["User lives in Lisbon.", "user lives in   LISBON!"])
def test_same_text_is_redundant_and_verifies_the_stored_memory(
    mem: Memory, llm: ScriptedLLM, again: str
) -> None:
    log = EventLog(mem)
    add(mem, "User lives in Lisbon.", T0, category="Personal")
    first = only(mem)
    add(mem, again, T1)
    rec = only(mem)
    assert rec.id == first.id and rec.summary == "User lives in Lisbon."
    assert rec.access_count == first.access_count + 1
    assert rec.last_verified_at == T1 and first.last_verified_at == T0
    assert events(mem, rec.id) == [HistoryEvent.ADD, HistoryEvent.MERGE]
    merge = mem.history(rec.id, user_id=U)[1]
    assert merge.reason and "redundancy" in merge.reason
    assert log.kinds() == ["memory.created", "memory.merged"]
    candidate_job = next(j for j in mem.jobs.list(user_id=U) if j.payload.get("action") == "merge")
    assert rec.merged_from == [candidate_job.id]  # seed 000: the merged candidate is named
    assert {k: log.events[1].data[k] for k in ("from", "into")} == {"from": candidate_job.id, "into": rec.id}
    assert llm.calls == []  # an exact match needs no model
    assert all_jobs_done(mem)


# --- 2. same deterministic key -> supersede ------------------------------------------------------


def test_same_key_supersedes_and_the_key_keeps_naming_the_current_fact(mem: Memory) -> None:
    key = "profile:residence:city"
    log = EventLog(mem)
    add(mem, "User lives in Lisbon.", T0, key=key, category="Personal")
    lisbon = only(mem)
    add(mem, "User lives in Porto.", T1, key=key, category="Personal")

    current = only(mem)
    assert current.id == lisbon.id and current.key == key and current.summary == "User lives in Porto."
    assert current.valid_from == T1 and current.state is MemoryState.ACTIVE
    old = mem.list(user_id=U, filters={"state": "superseded"}, include_inactive=True)
    assert [o.summary for o in old] == ["User lives in Lisbon."]
    archived = old[0]
    assert archived.id != current.id and archived.valid_to == T1 and archived.superseded_by == current.id
    assert archived.valid_from == T0
    assert events(mem, current.id) == [HistoryEvent.ADD, HistoryEvent.SUPERSEDE]
    for entry in (mem.history(current.id, user_id=U)[1], mem.history(archived.id, user_id=U)[-1]):
        assert entry.event is HistoryEvent.SUPERSEDE and entry.reason
        assert entry.old_value and entry.old_value["summary"] == "User lives in Lisbon."
    changed = log.of("memory.changed_fact")
    assert len(changed) == 1 and changed[0].memory_id == current.id
    assert (
        changed[0].data["old_id"] == archived.id and changed[0].data["old_summary"] == "User lives in Lisbon."
    )
    hits = mem.search("which city does the user live in", user_id=U)
    assert [h.memory.summary for h in hits] == ["User lives in Porto."]


def test_a_contradicting_neighbour_is_closed_and_points_to_the_new_memory(
    mem: Memory, llm: ScriptedLLM, emb: Embedder
) -> None:
    old_text, new_text = "User likes coffee.", "User hates coffee."
    score_in(emb, old_text, new_text, SEMANTIC.floor)
    llm.relation(old_text, new_text, "contradiction", "the user changed their mind")
    log = EventLog(mem)
    add(mem, old_text, T0)
    old_id = only(mem).id
    add(mem, new_text, T1)

    new = only(mem)
    assert new.summary == new_text and new.id != old_id
    old = mem.get(old_id, user_id=U)
    assert old.state is MemoryState.SUPERSEDED and old.valid_to == T1 and old.superseded_by == new.id
    assert events(mem, old_id) == [HistoryEvent.ADD, HistoryEvent.SUPERSEDE]
    assert "the user changed their mind" in (mem.history(old_id, user_id=U)[1].reason or "")
    assert events(mem, new.id) == [HistoryEvent.ADD]
    assert [e.type for e in log.events][1:] == ["memory.changed_fact"]  # one event per write


def test_a_key_keeps_naming_the_current_fact_after_a_correction_without_a_key(
    mem: Memory, llm: ScriptedLLM, emb: Embedder
) -> None:
    """The extractor does not always give a key: a keyed fact corrected by an unkeyed candidate must hand
    its key on, so the key (``uuid5(user|type::key)``) still names the current fact, and the next keyed
    correction replaces it instead of reviving or overwriting the closed one."""
    key = "profile:residence:city"
    lisbon, porto, madrid = "User lives in Lisbon.", "User now lives in Porto.", "User lives in Madrid."
    score_in(emb, lisbon, porto, SEMANTIC.floor)
    score_in(emb, porto, madrid, SEMANTIC.floor)
    llm.relation(lisbon, porto, "contradiction").relation(porto, madrid, "contradiction")
    add(mem, lisbon, T0, key=key)
    key_id = only(mem).id
    add(mem, porto, T1)  # a correction the extractor gave no key
    add(mem, madrid, T1 + timedelta(days=1), key=key)

    assert [r.summary for r in active(mem)] == [madrid]
    everything = mem.list(user_id=U, include_inactive=True)
    assert sorted(r.summary for r in everything) == sorted([lisbon, porto, madrid])  # nothing overwritten
    current = mem.get(key_id, user_id=U)
    assert (current.summary, current.state) == (madrid, MemoryState.ACTIVE)


# --- 3. flip-flop rule ---------------------------------------------------------------------------


@pytest.mark.parametrize("keyed", [True, False], ids=["same-key", "contradiction"])
@pytest.mark.parametrize("earlier", [timedelta(hours=1), timedelta(0)], ids=["earlier", "same-instant"])
def test_a_statement_observed_before_the_stored_one_is_kept_as_its_earlier_version(
    mem: Memory, llm: ScriptedLLM, emb: Embedder, keyed: bool, earlier: timedelta
) -> None:
    stored, older = "User hates coffee.", "User likes coffee."
    score_in(emb, stored, older, SEMANTIC.floor)
    llm.relation(stored, older, "contradiction")
    fields: dict[str, Any] = {"key": "pref:drink:coffee"} if keyed else {}
    log = EventLog(mem)
    add(mem, stored, T1, **fields)
    add(mem, older, T1 - earlier, **fields)  # said in the same hour, but observed first: processed late

    current = only(mem)  # the later statement stays the current fact, untouched
    assert (current.summary, current.valid_to, current.superseded_by) == (stored, None, None)
    assert current.key == fields.get("key") and events(mem, current.id) == [HistoryEvent.ADD]
    everything = mem.list(user_id=U, include_inactive=True)
    kept = next(r for r in everything if r.id != current.id)  # not dropped: its earlier version
    assert (kept.summary, kept.state, kept.superseded_by) == (older, MemoryState.SUPERSEDED, current.id)
    assert (kept.valid_from, kept.valid_to, kept.key) == (T1 - earlier, T1, None)
    assert events(mem, kept.id) == [HistoryEvent.ADD]
    assert "flip-flop rule" in mem.history(kept.id, user_id=U)[0].reason
    assert log.kinds() == ["memory.created", "memory.superseded"]
    assert [h.memory.id for h in mem.search("coffee", user_id=U)] == [current.id]  # history is not retrieved
    assert all_jobs_done(mem)


# --- 4. bands: auto-update merge, check band, below band ------------------------------------------


def test_auto_band_merges_with_tags_union_and_importance_max(
    mem: Memory, llm: ScriptedLLM, emb: Embedder
) -> None:
    stored, cand = "User resides in Lisbon.", "User lives in Lisbon."
    score_in(emb, stored, cand, SEMANTIC.auto)
    add(mem, stored, T0, category="Personal", importance=2, tags=["home"], entities=["Lisbon"])
    add(mem, cand, T1, category="Personal", importance=4, tags=["city", "home"], entities=["Portugal"])

    rec = only(mem)
    assert rec.summary == stored
    assert rec.tags == ["home", "city"] and rec.entities == ["Lisbon", "Portugal"]
    assert rec.importance == 4 and rec.access_count == 1 and rec.last_verified_at == T1
    assert events(mem, rec.id) == [HistoryEvent.ADD, HistoryEvent.MERGE]
    assert llm.asked("same_fact") == []  # the auto band needs no same-fact check

    add(mem, "User lives in Lisbon, Portugal.", T1 + timedelta(hours=1), importance=1)
    assert only(mem).importance == 4  # max, never lowered


def test_a_new_verdict_keeps_both_facts_even_in_the_auto_band(
    mem: Memory, llm: ScriptedLLM, emb: Embedder
) -> None:
    stored, cand = "User swims 2 km on Mondays.", "User swims 3 km on Thursdays."
    score_in(emb, stored, cand, SEMANTIC.auto)
    llm.relation(stored, cand, "new", "two routines")
    add(mem, stored, T0)
    add(mem, cand, T1)
    assert sorted(r.summary for r in active(mem)) == [stored, cand]
    assert llm.asked("same_fact") == []


def test_all_neighbours_are_judged_in_one_model_call(tmp_path: Path, emb: Embedder) -> None:
    stored = [
        "User's dog Biscuit is 9 years old.",
        "User walks Biscuit every morning.",
        "User lives in Ghent.",
    ]
    cand = "Biscuit turned 10 last week."
    model = ScriptedTransportLLM()
    with open_memory(str(tmp_path / "j.db"), ScriptedLLM(default_relation="new")) as setup:
        for i, text in enumerate(stored):
            setup.add_facts([{"summary": text}], user_id=U, at=T0 + timedelta(minutes=i), wait=True)
    with open_memory(str(tmp_path / "j.db"), model) as m:
        vector = emb.embed_one(cand)
        considered = [text for text in stored if cosine(emb, text, cand) >= SEMANTIC.floor]
        assert len(considered) >= 2, considered  # precondition: more than one neighbour to judge
        # the neighbours at or above the floor, then the nearest few under it (decide.BELOW_FLOOR)
        found = m.backend.memories.vector_search(U, vector, [], limit=10)
        order = [r.record.summary for r in found if r.score >= SEMANTIC.floor] + [
            r.record.summary for r in found if r.score < SEMANTIC.floor
        ][:BELOW_FLOOR]
        replies = [
            {"index": i, "reasoning": "another attribute", "relation": "new"}
            for i in range(1, len(order) + 1)
        ]
        replies[order.index(stored[0])]["relation"] = "contradiction"
        model.script(json.dumps({"judgements": replies}))
        m.add_facts([{"summary": cand}], user_id=U, at=T1, wait=True)
        assert model.count("Judgements") == 1 and model.count("ConflictVerdict") == 0
        assert sorted(r.summary for r in m.list(user_id=U)) == sorted([cand, *stored[1:]])


@pytest.mark.parametrize("same", [True, False], ids=["same-fact", "different-fact"])
def test_check_band_asks_the_same_fact_question(
    mem: Memory, llm: ScriptedLLM, emb: Embedder, same: bool
) -> None:
    stored, cand = "User likes green tea.", "User is fond of matcha and other green teas."
    score = score_in(emb, stored, cand, SEMANTIC.low, SEMANTIC.auto)
    llm.same_fact_answer(stored, cand, same)
    add(mem, stored, T0, tags=["tea"])
    add(mem, cand, T1, tags=["drinks"])

    assert llm.asked("same_fact") == [(stored, cand)]
    recs = active(mem)
    if same:
        assert [r.summary for r in recs] == [stored]
        assert recs[0].tags == ["tea", "drinks"] and recs[0].access_count == 1
        assert events(mem, recs[0].id) == [HistoryEvent.ADD, HistoryEvent.MERGE]
    else:
        assert sorted(r.summary for r in recs) == sorted([stored, cand])
        new = next(r for r in recs if r.summary == cand)
        assert events(mem, new.id) == [HistoryEvent.ADD]
        [edge] = edges(mem)
        old = next(r for r in recs if r.summary == stored)
        assert (edge["from_id"], edge["to_id"]) == (new.id, old.id)
        assert edge["strength"] == pytest.approx(score, abs=2e-3)


def test_below_the_band_creates_and_links_only_neighbours_above_the_link_band(
    mem: Memory, llm: ScriptedLLM, emb: Embedder
) -> None:
    stored = ["User is allergic to peanuts.", "User is allergic to shellfish.", "User lives in Lisbon."]
    cand = "User avoids eating tree nuts."
    score_in(emb, stored[0], cand, SEMANTIC.link, SEMANTIC.low)  # related, but below the check band
    for n, text in enumerate(stored):
        add(mem, text, T0 + timedelta(minutes=n))
    add(mem, cand, T1)

    recs = {r.summary: r for r in active(mem)}
    assert set(recs) == {*stored, cand}
    assert llm.asked("same_fact") == []
    new = recs[cand]
    assert events(mem, new.id) == [HistoryEvent.ADD]
    from_new = {e["to_id"]: e["strength"] for e in edges(mem) if e["from_id"] == new.id}
    expected = {recs[t].id: cosine(emb, t, cand) for t in stored if cosine(emb, t, cand) >= SEMANTIC.link}
    assert recs[stored[0]].id in expected and recs[stored[2]].id not in expected
    assert set(from_new) == set(expected)
    for memory_id, strength in from_new.items():
        assert strength == pytest.approx(expected[memory_id], abs=2e-3)


# --- 5. episodic merge window ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("later", "merges"),
    [(timedelta(hours=2), True), (timedelta(days=5), False)],
    ids=["2h-later-merges", "5d-later-creates"],
)
def test_episodes_merge_only_within_the_merge_window(
    mem: Memory, emb: Embedder, later: timedelta, merges: bool
) -> None:
    first, again = (
        "User went hiking in the Alps with Sam.",
        "User went hiking in the Alps with Sam on Saturday.",
    )
    score_in(emb, first, again, EPISODIC.auto)
    assert timedelta(hours=2) < timedelta(hours=Settings().episodic_merge_window_hours) < timedelta(days=5)
    add(mem, first, T0, type="episodic", category="Personal")
    add(mem, again, T0 + later, type="episodic", category="Personal")

    recs = active(mem)
    if merges:
        # one episode, in the words that say when (the merge keeps the more precise text)
        assert [r.summary for r in recs] == [again] and recs[0].access_count == 1
        assert events(mem, recs[0].id) == [HistoryEvent.ADD, HistoryEvent.MERGE]
    else:
        assert sorted(r.summary for r in recs) == sorted([first, again])
        new = next(r for r in recs if r.summary == again)
        assert new.valid_from == T0 + later and new.date_iso == (T0 + later).date().isoformat()


def test_the_same_episode_text_days_later_is_a_new_episode(mem: Memory) -> None:
    """An exact repeat of an episode outside EPISODIC_MERGE_WINDOW_HOURS happened again: it must not be
    merged into last week's episode (the window applies before the same-text shortcut)."""
    add(mem, "User went to the gym.", T0, type="episodic")
    add(mem, "User went to the gym.", T0 + timedelta(days=5), type="episodic")
    recs = active(mem)
    assert sorted(r.valid_from for r in recs if r.valid_from) == [T0, T0 + timedelta(days=5)]


# --- 6. relations ---------------------------------------------------------------------------------


def test_relations_carry_the_score_and_are_never_duplicated(mem: Memory, emb: Embedder) -> None:
    beach = "User's dog Luna sleeps on the sofa."
    v3, v4 = "User's dog Luna is 3 years old.", "User's dog Luna is 4 years old."
    s3 = score_in(emb, beach, v3, SEMANTIC.link, SEMANTIC.low)
    score_in(emb, beach, v4, SEMANTIC.link, SEMANTIC.low)
    add(mem, beach, T0)
    add(mem, v3, T1, key="profile:pet:luna:age")
    add(mem, v4, T1 + timedelta(days=30), key="profile:pet:luna:age")  # supersedes under the same id

    recs = {r.summary: r for r in active(mem)}
    assert set(recs) == {beach, v4}
    rows = edges(mem)
    pairs = [(e["from_id"], e["to_id"]) for e in rows]
    assert len(pairs) == len(set(pairs)), pairs
    luna_to_beach = [e for e in rows if (e["from_id"], e["to_id"]) == (recs[v4].id, recs[beach].id)]
    assert len(luna_to_beach) == 1 and luna_to_beach[0]["strength"] == pytest.approx(s3, abs=2e-3)


# --- the offline rules judge end to end (no script): events with other people, states that rule out ---


@pytest.fixture
def rules_mem(tmp_path: Path, emb: Embedder) -> Iterator[Memory]:
    from memlane.providers.llm.rules import RulesLLM

    m = open_memory(
        str(tmp_path / "r.db"), RulesLLM(), memory_consent_fields=[], memory_consent_benign_fields=[]
    )
    yield m
    m.close()


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("User went kayaking with Joaquin.", "User went kayaking with Bea."),
        ("User knitted a scarf for their grandfather.", "User knitted a scarf for their niece."),
    ],
)
def test_the_same_event_with_other_people_keeps_both(
    rules_mem: Memory, emb: Embedder, first: str, second: str
) -> None:
    score_in(emb, first, second, SEMANTIC.floor)  # close enough to be judged
    add(rules_mem, first, T0)
    add(rules_mem, second, T1)
    assert sorted(r.summary for r in active(rules_mem)) == sorted([first, second])


def test_a_state_that_rules_a_habit_out_supersedes_it_with_history(rules_mem: Memory, emb: Embedder) -> None:
    habit, state = "User has a cold beer after every shift.", "User is teetotal now."
    add(rules_mem, habit, T0)
    old = only(rules_mem)
    add(rules_mem, state, T1)
    assert [r.summary for r in active(rules_mem)] == [state]
    assert HistoryEvent.SUPERSEDE in events(rules_mem, old.id)


def test_a_memory_far_in_meaning_is_judged_when_the_candidate_names_what_it_retires(
    rules_mem: Memory, emb: Embedder
) -> None:
    """The neighbours miss it (similarity below the floor); the judge's implied terms find it by keyword."""
    habit, state = "User orders a salami sandwich for lunch.", "User went vegetarian."
    assert cosine(emb, habit, state) < SEMANTIC.floor
    add(rules_mem, habit, T0)
    add(rules_mem, "User likes jazz.", T0)
    add(rules_mem, state, T1)
    assert sorted(r.summary for r in active(rules_mem)) == ["User likes jazz.", state]


def test_an_event_that_gives_something_up_retires_the_fact_it_implied(rules_mem: Memory) -> None:
    """An episode ("sold the car") closes a semantic fact it makes false ("drives a Polo to work"), found by
    what it gives up; an unrelated fact stays."""
    fact, event = "User drives a Polo to work.", "User sold their car."
    add(rules_mem, fact, T0)
    add(rules_mem, "User lives near the river.", T0)
    old = next(r for r in active(rules_mem) if r.summary == fact)
    add(rules_mem, event, T1, type="episodic")
    assert sorted(r.summary for r in active(rules_mem)) == ["User lives near the river.", event]
    assert HistoryEvent.SUPERSEDE in events(rules_mem, old.id)


@pytest.mark.parametrize(
    ("first", "second", "closes"),
    [
        # a booking still ahead, moved days later: the new date replaces the old one
        (
            "User's dentist check-up is booked for 2026-03-20.",
            "User's dentist check-up was pushed back to 2026-04-02.",
            True,
        ),
        # a booking whose day has passed: the next one is another occasion
        (
            "User's dentist check-up is booked for 2026-03-03.",
            "User's dentist check-up was pushed back to 2026-04-02.",
            False,
        ),
        # two occasions, no day named: both hold
        ("User swam 20 lengths at the leisure centre.", "User swam 40 lengths at the leisure centre.", False),
    ],
)
def test_an_episode_out_of_the_merge_window_is_corrected_only_while_it_is_ahead(
    rules_mem: Memory, emb: Embedder, first: str, second: str, closes: bool
) -> None:
    score_in(emb, first, second, EPISODIC.floor)
    later = T0 + timedelta(days=6)
    assert timedelta(days=6) > timedelta(hours=Settings().episodic_merge_window_hours)
    add(rules_mem, first, T0, type="episodic")
    add(rules_mem, second, later, type="episodic")
    kept = sorted(r.summary for r in active(rules_mem))
    assert kept == ([second] if closes else sorted([first, second]))
    if closes:
        old = next(
            r
            for r in rules_mem.list(user_id=U, filters={"state": "superseded"}, include_inactive=True)
            if r.summary == first
        )
        assert HistoryEvent.SUPERSEDE in events(rules_mem, old.id)


def test_an_episode_retires_another_one_at_a_time_value_far_in_meaning(
    rules_mem: Memory, emb: Embedder
) -> None:
    """ "got married" (an episode's summary, capture.py's sentence) is far from "is dating someone" in meaning;
    the judge names the other relationship values as implied terms and the keyword search finds it."""
    state = "User is dating someone."
    episode = "On 2026-03-09 (W11, 2026) we discussed the ceremony. Approach: User got married to Noor."
    assert cosine(emb, state, episode) < EPISODIC.floor
    add(rules_mem, state, T0)
    add(rules_mem, "User collects vinyl records.", T0)
    add(rules_mem, episode, T0 + timedelta(days=7), type="episodic")
    assert sorted(r.summary for r in active(rules_mem)) == sorted(["User collects vinyl records.", episode])


# --- the nearest few facts under the floor (decide.BELOW_FLOOR) ----------------------------------------------


@pytest.mark.parametrize(
    ("stored", "cand", "relation"),
    [
        ("User has a season ticket for Hearts.", "User switched allegiance to Hibs.", "contradiction"),
        ("User rents a flat in Aarhus.", "User relocated to Odense.", "contradiction"),
        (
            "User practises at the Lotus dojo.",
            "User signed up with Anytime Fitness instead.",
            "contradiction",
        ),
        # a specific statement may share as little with the general one it refines
        ("User is really into water sports.", "User goes kitesurfing every weekend.", "refinement"),
    ],
)
def test_a_fact_under_the_floor_is_closed_only_by_a_contradiction_or_a_refinement(
    mem: Memory, llm: ScriptedLLM, emb: Embedder, stored: str, cand: str, relation: Any
) -> None:
    """A correction may share little wording with what it corrects: the nearest facts under the floor are judged
    too, and a contradiction (or a refinement) closes them with history."""
    assert cosine(emb, stored, cand) < SEMANTIC.floor  # precondition: no neighbour by the bands
    llm.relation(stored, cand, relation)
    add(mem, stored, T0)
    old = only(mem)
    add(mem, cand, T1)
    assert [r.summary for r in active(mem)] == [cand]
    assert HistoryEvent.SUPERSEDE in events(mem, old.id)


@pytest.mark.parametrize("relation", ["redundancy", "unsure", "new"])
def test_a_fact_under_the_floor_is_never_merged_or_decided_by_a_band(
    mem: Memory, llm: ScriptedLLM, emb: Embedder, relation: Any
) -> None:
    stored, cand = "User keeps bees in the back garden.", "User's allotment is at Hill Lane."
    assert cosine(emb, stored, cand) < SEMANTIC.floor
    llm.relation(stored, cand, relation)
    add(mem, stored, T0)
    add(mem, cand, T1)
    assert sorted(r.summary for r in active(mem)) == sorted([stored, cand])


def test_only_the_nearest_few_under_the_floor_are_judged(
    mem: Memory, llm: ScriptedLLM, emb: Embedder
) -> None:
    cand = "User switched to a standing desk."
    stored = [
        "User collects stamps from Peru.",
        "User's brother is a pilot.",
        "User was born in Gdansk.",
        "User's cat is named Olive.",
        "User bakes sourdough on Saturdays.",
        "User speaks some Swahili.",
    ]
    assert all(cosine(emb, s, cand) < SEMANTIC.floor for s in stored)
    for i, s in enumerate(stored):
        llm.relation(s, cand, "contradiction")  # a judge that would close anything it is shown
        add(mem, s, T0 + timedelta(minutes=i))
    add(mem, cand, T1)
    judged = {args[0] for args in llm.asked("classify_conflict") if args[1] == cand}
    nearest = sorted(stored, key=lambda s: -cosine(emb, s, cand))[:BELOW_FLOOR]
    assert judged == set(nearest)
    # the nearest is replaced; the other two are contradicted but not retired by the candidate's words
    assert sorted(r.summary for r in active(mem)) == sorted([cand] + [s for s in stored if s != nearest[0]])


@pytest.mark.parametrize(
    ("stored", "cand"),
    [
        ("User lives in Aarhus.", "User moved to Odense."),
        ("User calls Porto home.", "User moved to Braga."),
        ("User drives a Skoda to work.", "User cycles to work now."),
    ],
)
def test_the_rules_judge_closes_a_correction_far_in_meaning(
    rules_mem: Memory, emb: Embedder, stored: str, cand: str
) -> None:
    """A correction under the floor ("lives in Aarhus" / "moved to Odense": 0.36) is judged; a fact under the
    floor the judge does not call a contradiction stays."""
    assert cosine(emb, stored, cand) < SEMANTIC.floor
    other = "User is learning to play the banjo."
    add(rules_mem, stored, T0)
    add(rules_mem, other, T0)
    add(rules_mem, cand, T1)
    assert sorted(r.summary for r in active(rules_mem)) == sorted([cand, other])


@pytest.mark.parametrize(
    ("cand", "named", "not_named"),
    [
        ("User quit Deloitte and joined KPMG.", "deloitte", "kpmg"),
        ("User sold the Brompton last week.", "brompton", "week"),
        ("User cancelled the Spotify subscription.", "spotify", "subscription"),
        ("User writes with their left hand.", None, "hand"),  # a hand is no leaving
    ],
)
def test_what_a_candidate_gives_up_is_searched_by_its_name(
    cand: str, named: str | None, not_named: str
) -> None:
    """The keyword search for memories far in meaning looks for the thing given up ("left Arup" finds "works as
    an engineer at Arup" whatever the neighbours are), not for what replaces it."""
    from memlane.providers.llm.rules import RulesLLM

    terms = RulesLLM().implied_terms(cand)
    assert (named is None or named in terms) and not_named not in terms
