"""Formation's decisions and the stored totals in ``/metrics`` of a real server (uvicorn on loopback):
the similarity and notability histograms, the decision counter and the replacement and dedup ratios,
memories by state and per user. SQLite, the bundled local embedder and the offline rules judge; facts
that create, merge and supersede, decided by the request that waits and by the background worker."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from memlane import Memory
from memlane.providers.llm.rules import RulesLLM
from tests.formation_helpers import cosine, local_embedder, open_memory, wait_until
from tests.scripted_upstream import running_memlane

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
BEER, TEETOTAL = "User has a cold beer after every shift.", "User is teetotal now."
JAZZ, CELLO = "User likes jazz.", "User plays the cello."
RACE = "User ran a 10k race in the park."


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    m = open_memory(
        str(tmp_path / "m.db"), RulesLLM(), memory_consent_fields=[], memory_consent_benign_fields=[]
    )
    yield m
    m.close()


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of a scrape: (name, labels) -> value."""
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(scraped: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> float:
    return scraped.get((name, frozenset(labels.items())), 0.0)


def add(http: httpx.Client, user: str, at: datetime, *facts: dict[str, Any], wait: bool = True) -> None:
    r = http.post(
        "/v1/memory/facts",
        headers={"X-Memlane-User": user},
        json={"facts": list(facts), "at": at.isoformat(), "wait": wait},
    )
    assert r.status_code == (200 if wait else 202), r.text


def test_decisions_fill_the_histograms_and_the_ratios_and_the_totals_count_users(mem: Memory) -> None:
    emb = local_embedder()
    with running_memlane(mem, metrics_top_users=2) as url, httpx.Client(base_url=url, timeout=60) as http:
        add(http, "maya", T0, {"summary": BEER, "importance": 2})  # create: nothing stored to compare with
        add(http, "maya", T0 + timedelta(hours=1), {"summary": BEER, "importance": 2})  # merge: same text
        add(http, "maya", T0 + timedelta(days=1), {"summary": TEETOTAL, "importance": 4})  # supersede
        add(http, "maya", T0 + timedelta(days=2), {"summary": JAZZ})  # create, next to TEETOTAL
        add(http, "maya", T0 + timedelta(days=2), {"summary": RACE, "type": "episodic", "importance": 5})
        add(http, "lena", T0, {"summary": CELLO})  # create: lena has nothing stored
        add(http, "omar", T0, {"summary": JAZZ})  # create: maya's jazz is not his neighbour
        got = samples(http.get("/metrics").text)

    assert [r.summary for r in mem.list(user_id="maya", filters={"type": "semantic"})] == [JAZZ, TEETOTAL]

    # the decisions, by action and type, and the ratios a dashboard shows
    decisions = "memlane_formation_decisions_total"
    assert value(got, decisions, action="create", type="semantic") == 4
    assert value(got, decisions, action="create", type="episodic") == 1
    assert value(got, decisions, action="merge", type="semantic") == 1
    assert value(got, decisions, action="supersede", type="semantic") == 1
    assert value(got, "memlane_formation_replacement_ratio") == pytest.approx(1 / 7)
    assert value(got, "memlane_formation_dedup_ratio") == pytest.approx(1 / 7)

    # similarity: the merge at 1.0 (the same text), the supersession and the jazz create at the cosine of
    # what they were decided against; the creates with no neighbour observe nothing
    sim = "memlane_formation_similarity_score"
    merge, supersede, create = ({"type": "semantic", "action": a} for a in ("merge", "supersede", "create"))
    assert value(got, f"{sim}_count", **merge) == 1 and value(got, f"{sim}_sum", **merge) == 1.0
    assert value(got, f"{sim}_bucket", **merge, le="0.98") == 0
    assert value(got, f"{sim}_bucket", **merge, le="1.0") == 1
    assert value(got, f"{sim}_count", **supersede) == 1
    assert value(got, f"{sim}_sum", **supersede) == pytest.approx(cosine(emb, BEER, TEETOTAL), abs=0.02)
    assert value(got, f"{sim}_count", **create) == 1  # jazz; the beer, cello and omar's jazz had none
    assert value(got, f"{sim}_sum", **create) == pytest.approx(cosine(emb, TEETOTAL, JAZZ), abs=0.02)
    assert value(got, f"{sim}_count", type="episodic", action="create") == 0

    # notability: each decided candidate's importance, by type
    nb = "memlane_formation_notability_score"
    assert value(got, f"{nb}_count", type="semantic") == 6
    assert value(got, f"{nb}_sum", type="semantic") == 2 + 2 + 4 + 3 + 3 + 3
    assert [value(got, f"{nb}_bucket", type="semantic", le=le) for le in ("1.0", "2.0", "3.0", "4.0")] == [
        0,
        2,
        5,
        6,
    ]
    assert value(got, f"{nb}_bucket", type="episodic", le="4.0") == 0
    assert value(got, f"{nb}_bucket", type="episodic", le="5.0") == 1

    # how long each decision took, by type and action: every decided candidate observed once
    dur = "memlane_formation_decision_duration_seconds"
    assert value(got, f"{dur}_count", **create) == 4 and value(got, f"{dur}_count", **merge) == 1
    assert value(got, f"{dur}_count", **supersede) == 1
    assert value(got, f"{dur}_count", type="episodic", action="create") == 1
    assert value(got, f"{dur}_sum", **create) > 0 and value(got, f"{dur}_sum", **supersede) > 0

    # the totals: by state, per user without a label, and the two users with the most
    assert value(got, "memlane_memories", state="active") == 5  # maya 3, lena 1, omar 1
    assert value(got, "memlane_memories", state="superseded") == 1  # the beer
    assert value(got, "memlane_memories", state="soft_deleted") == 0
    per_user = "memlane_user_active_memories"
    assert value(got, f"{per_user}_bucket", le="1.0") == 2  # lena and omar
    assert value(got, f"{per_user}_bucket", le="10.0") == 3
    assert value(got, f"{per_user}_gcount") == 3 and value(got, f"{per_user}_gsum") == 5
    top = {
        dict(labels)["user_id"]: v
        for (name, labels), v in got.items()
        if name == "memlane_top_user_active_memories"
    }
    assert top == {"maya": 3, "lena": 1}  # omar ties with lena and is not named: the first two by id


def test_the_worker_feeds_them_and_no_user_id_is_shown_by_default(mem: Memory) -> None:
    """Facts accepted without waiting are decided by the server's background worker; the metrics count
    them all the same. Without MEMLANE_METRICS_TOP_USERS no label names a user."""
    with running_memlane(mem) as url, httpx.Client(base_url=url, timeout=60) as http:
        add(http, "maya", T0, {"summary": CELLO}, wait=False)
        add(http, "maya", T0 + timedelta(hours=1), {"summary": CELLO}, wait=False)

        def decided() -> float:
            got = samples(http.get("/metrics").text)
            return sum(v for (n, _), v in got.items() if n == "memlane_formation_decisions_total")

        wait_until(lambda: decided() == 2, timeout=30, what="the worker's two decisions")
        text = http.get("/metrics").text
    got = samples(text)
    assert value(got, "memlane_formation_dedup_ratio") == pytest.approx(0.5)
    assert value(got, "memlane_formation_replacement_ratio") == 0
    assert value(got, "memlane_user_active_memories_gcount") == 1
    assert "memlane_top_user_active_memories" not in text and "maya" not in text
