"""Decision bands per category (seed 002: semantic thresholds by type/category): a category's own
auto / low / floor decide its candidates; a bad entry stops the settings load, naming it.

Real parts: SQLite files, the bundled all-MiniLM-L6-v2 embedder, the offline rules LLM. The fixture pair's
similarity and the rules' verdicts are asserted first, so a changed model fails loudly here."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memlane import Memory
from memlane.formation.bands import bands_for
from memlane.model.config import Settings
from memlane.model.enums import MemoryType
from memlane.providers.embed import get_embedder
from memlane.providers.llm.rules import RulesLLM

U = "maya"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
STORED, CAND = "User is learning Spanish.", "User takes Spanish lessons twice a week."


@pytest.fixture(autouse=True)
def no_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config.toml"
    monkeypatch.setenv("MEMLANE_CONFIG", str(path))
    return path


def summaries_after_both(tmp_path: Path, category: str, **settings: Any) -> list[str]:
    db = str(tmp_path / f"{category}-{len(settings)}.db")
    with Memory(
        db, embedder=get_embedder("local"), llm=RulesLLM(), settings=Settings(db=db, **settings)
    ) as m:
        m.add_facts([{"summary": STORED, "category": category}], user_id=U, at=T0, wait=True)
        m.add_facts(
            [{"summary": CAND, "category": category}], user_id=U, at=T0 + timedelta(days=1), wait=True
        )
        return sorted(r.summary for r in m.list(user_id=U))


def test_a_category_override_changes_a_real_decision(tmp_path: Path) -> None:
    default = bands_for("local", MemoryType.SEMANTIC, Settings())
    a, b = get_embedder("local").embed([STORED, CAND])
    score = sum(x * y for x, y in zip(a, b, strict=True))
    assert default.auto <= score < 0.85, score  # precondition: in the default auto band, under the override
    rules = RulesLLM()
    assert rules.judge(CAND, [STORED])[0].relation == "unsure"  # the band decides, not the judge
    assert not rules.same_fact(STORED, CAND, "Education").same_fact

    raised = {"memory_bands_by_category": "Education:0.85,0.70,0.40"}
    assert summaries_after_both(tmp_path, "Education") == [STORED]  # merged by similarity
    assert summaries_after_both(tmp_path, "Education", **raised) == sorted([STORED, CAND])  # check band: kept
    assert summaries_after_both(tmp_path, "Interests", **raised) == [STORED]  # another category: default


def test_the_override_is_per_category_and_type_and_wins_over_the_type_wide_bands() -> None:
    s = Settings(
        semantic_auto_update=0.9,
        memory_bands_by_category="health:0.85,0.70,0.45; Travel.episodic:0.95,0.90,0.60",
    )
    assert s.memory_bands_by_category == {"Health": (0.85, 0.70, 0.45), "Travel.episodic": (0.95, 0.90, 0.60)}
    health = bands_for("local", MemoryType.SEMANTIC, s, "Health")
    assert (health.auto, health.low, health.floor) == (0.85, 0.70, 0.45)
    assert bands_for("local", MemoryType.SEMANTIC, s, "Travel").auto == 0.9  # Travel's own are episodic
    trip = bands_for("local", MemoryType.EPISODIC, s, "Travel")
    assert (trip.auto, trip.low, trip.floor, trip.link) == (0.95, 0.90, 0.60, 0.60)  # link stays
    assert bands_for("local", MemoryType.EPISODIC, s, "Health") == bands_for("local", MemoryType.EPISODIC, s)


def test_json_the_environment_and_the_config_file_load(
    monkeypatch: pytest.MonkeyPatch, no_config_file: Path
) -> None:
    monkeypatch.setenv(
        "MEMORY_BANDS_BY_CATEGORY",
        '{"Finance": [0.9, 0.8, 0.5], "Goals.episodic": {"auto": 0.9, "low": 0.9, "floor": 0.6}}',
    )
    assert Settings().memory_bands_by_category == {
        "Finance": (0.9, 0.8, 0.5),
        "Goals.episodic": (0.9, 0.9, 0.6),
    }
    monkeypatch.delenv("MEMORY_BANDS_BY_CATEGORY")
    no_config_file.write_text("[memory_bands_by_category]\nWork = [0.88, 0.7, 0.4]\n")
    assert Settings().memory_bands_by_category == {"Work": (0.88, 0.7, 0.4)}
    again = Settings(memory_bands_by_category=Settings().memory_bands_by_category)
    assert again.memory_bands_by_category == {"Work": (0.88, 0.7, 0.4)}


def test_a_configured_category_can_have_bands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLANE_CATEGORIES", "Personal,Garden,Other")
    monkeypatch.setenv("MEMORY_BANDS_BY_CATEGORY", "garden:0.9,0.8,0.5")
    assert Settings().memory_bands_by_category == {"Garden": (0.9, 0.8, 0.5)}
    monkeypatch.setenv("MEMORY_BANDS_BY_CATEGORY", "Health:0.9,0.8,0.5")  # not among these categories
    with pytest.raises(
        ValueError, match="entry 'Health': unknown category 'Health'; known: Personal, Garden"
    ):
        Settings()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("Helth:0.9,0.8,0.5", "entry 'Helth': unknown category 'Helth'; known: Personal, "),
        ("Health.semantik:0.9,0.8,0.5", "entry 'Health.semantik': unknown memory type 'semantik'"),
        ("Health:1.2,0.8,0.5", r"entry 'Health': auto must be a number in \[0, 1\], got '1.2'"),
        ("Health:0.9,0.8,-0.1", r"entry 'Health': floor must be a number in \[0, 1\], got '-0.1'"),
        ("Health:0.9,high,0.5", r"entry 'Health': low must be a number in \[0, 1\], got 'high'"),
        (
            "Health:0.7,0.8,0.5",
            "entry 'Health': needs auto >= low >= floor .* got auto 0.7, low 0.8, floor 0.5",
        ),
        ("Health:0.9,0.5,0.6", "entry 'Health': needs auto >= low >= floor .* low 0.5, floor 0.6"),
        ("Health:0.9,0.8", "entry 'Health': needs three numbers auto,low,floor"),
        ("Health 0.9,0.8,0.5", r"entry 'Health 0.9,0.8,0.5': write Category\[.episodic\]:auto,low,floor"),
        ("Health:0.9,0.8,0.5;health:0.9,0.8,0.4", "entry 'health': Health is given twice"),
        ('{"Health": {"auto": 0.9, "low": 0.8}}', "entry 'Health': needs exactly auto, low and floor"),
        ('{"Health": [0.9, 0.8, 0.5]', "MEMORY_BANDS_BY_CATEGORY is not valid JSON"),
    ],
)
def test_a_bad_entry_is_refused_at_load_naming_it(
    monkeypatch: pytest.MonkeyPatch, value: str, message: str
) -> None:
    monkeypatch.setenv("MEMORY_BANDS_BY_CATEGORY", value)
    with pytest.raises(
        ValueError, match=f"MEMORY_BANDS_BY_CATEGORY {message}" if "entry" in message else message
    ):
        Settings()
