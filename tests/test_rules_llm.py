"""The offline ``rules`` LLM: extraction, same-fact and conflict heuristics.

Table-driven; names, places and phrasings are deliberately different from the scenario files, so the
tests pin the behaviour (families of statements), not particular sentences.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from memlane.model.candidate import Candidate, ChatMessage, Extraction
from memlane.model.category import DEFAULT_CATEGORIES
from memlane.model.enums import MemoryType
from memlane.providers.llm.base import MemoryLLM
from memlane.providers.llm.rules import RulesLLM

LLM = RulesLLM()
DEV_SCENARIOS = Path(__file__).resolve().parents[1] / ".." / "shared" / "scenarios" / "dev.jsonl"
SEM, EPI = MemoryType.SEMANTIC, MemoryType.EPISODIC


def run(*turns: str, existing: tuple[str, ...] = ()) -> Extraction:
    """Extract from the last turn; earlier turns are the user's context."""
    return LLM.extract([ChatMessage(role="user", content=t) for t in turns], existing)


def assert_writing_constraints(summary: str) -> None:
    assert summary.startswith("User"), summary
    assert len(summary) <= 280, summary
    padded = f" {summary} "
    for pronoun in (" I ", " my ", " My ", " me ", " I'm ", " mine "):
        assert pronoun not in padded, f"first-person {pronoun.strip()!r} left in {summary!r}"
    assert summary.endswith((".", "!")), summary


def find(ex: Extraction, pattern: str) -> Candidate:
    hits = [c for c in ex.candidates if re.search(pattern, c.summary, re.IGNORECASE)]
    assert hits, f"no candidate matches {pattern!r}: {[c.summary for c in ex.candidates]} ({ex.reason})"
    return hits[0]


# --- extraction: one family of statements per row ------------------------------------------------
# (turns, summary regex, expected fields)
POSITIVE: list[tuple[tuple[str, ...], str, dict[str, Any]]] = [
    # identity and preferred name
    (("I'm Keiko.",), r"^User's name is Keiko\.$", {"key": "profile:name", "category": "Personal"}),
    (("my name is Oskar Lind",), r"name is Oskar Lind", {"key": "profile:name"}),
    (("Please call me Tove.",), r"prefers to be called Tove", {"key": "profile:preferred_name"}),
    (("I go by Xavi.",), r"called Xavi", {"key": "profile:preferred_name"}),
    (("I'm 41 years old.",), r"User is 41 years old", {"key": "profile:age"}),
    (("I just turned 29!",), r"User is 29", {"key": "profile:age"}),
    # residence and moves
    (
        ("I live in Tallinn.",),
        r"^User lives in Tallinn\.$",
        {"key": "profile:residence:city", "category": "Personal"},
    ),
    (("i live in quito",), r"lives in Quito", {"key": "profile:residence:city"}),
    (("We're based in Cape Town.",), r"lives in Cape Town", {"key": "profile:residence:city"}),
    (("I relocated to Bilbao last spring.",), r"^User lives in Bilbao\.$", {"key": "profile:residence:city"}),
    (
        ("I moved from Ghent to Nairobi.",),
        r"lives in Nairobi, having moved there from Ghent",
        {"key": "profile:residence:city"},
    ),
    (("To be precise, I live in Aarhus.",), r"lives in Aarhus", {"key": "profile:residence:city"}),
    (("I'm originally from Chile.",), r"User is from Chile", {"key": "profile:origin"}),
    # job and employer
    (("I work as a plumber.",), r"works as a plumber", {"key": "profile:occupation", "category": "Work"}),
    (("I'm an architect.",), r"works as an architect", {"key": "profile:occupation"}),
    (("I work at Novartis.",), r"works at Novartis", {"key": "profile:employer", "category": "Work"}),
    (("I'm a data scientist at Zalando.",), r"data scientist at Zalando", {"key": "profile:occupation"}),
    (
        ("I switched careers and now I'm a carpenter.",),
        r"carpenter.*career change",
        {"key": "profile:occupation"},
    ),
    (("I work weekends as a barista.",), r"works weekends as a barista", {"key": "profile:occupation"}),
    (
        ("I work as a nurse at a children's hospital.",),
        r"nurse at a children's hospital",
        {"key": "profile:occupation"},
    ),
    # pets and their ages
    (("my cat Tofu is 6",), r"^User's cat Tofu is 6 years old\.$", {"key": "profile:pet:tofu:age"}),
    (("I have a parrot named Mango.",), r"has a parrot named Mango", {"key": "profile:pet:mango:species"}),
    (
        ("My dog Waffles is 2.", "Waffles turned 3 today!"),
        r"dog Waffles is 3",
        {"key": "profile:pet:waffles:age"},
    ),
    (("I've got two rabbits, Olive and Pumpkin.",), r"Olive and Pumpkin", {"category": "Personal"}),
    (("My dog's name is Ziggy.",), r"has a dog named Ziggy", {"key": "profile:pet:ziggy:species"}),
    # family, always attributed to the relative
    (
        ("My brother lives in Lyon.",),
        r"^User's brother lives in Lyon\.$",
        {"key": "family:brother:residence"},
    ),
    (("My wife is a pilot.",), r"^User's wife works as a pilot", {"key": "family:wife:occupation"}),
    (("My son Emre is 7.",), r"^User's son Emre is 7 years old", {"key": "family:son:emre:age"}),
    (
        ("My cat Olive is 2 and runs the house.",),
        r"^User's cat Olive is 2 years old\.$",
        {"key": "profile:pet:olive:age"},
    ),
    (
        ("My parents live in Porto Alegre.",),
        r"^User's parents live in Porto Alegre",
        {"category": "Relationships"},
    ),
    (
        ("I have a sister who lives in Seville.",),
        r"^User's sister lives in Seville",
        {"key": "family:sister:residence"},
    ),
    (("I have three kids.",), r"has three kids", {"key": "family:children:count"}),
    (
        ("My husband and I live in Malmö.",),
        r"User and their husband live in Malmö",
        {"key": "profile:residence:city"},
    ),
    # diet, allergies, health (negation kept)
    (("I'm vegan.",), r"^User is vegan\.$", {"key": "profile:diet"}),
    (("I do not eat pork.",), r"does not eat pork", {"key": "profile:diet:pork"}),
    (("I don't drink alcohol anymore.",), r"does not drink alcohol anymore", {"key": "profile:diet:alcohol"}),
    (
        ("I'm allergic to shellfish.",),
        r"allergic to shellfish",
        {"key": "health:allergy:shellfish", "importance": 5},
    ),
    (
        ("I have a severe sesame allergy.",),
        r"sesame allergy",
        {"key": "health:allergy:sesame", "category": "Health"},
    ),
    (
        ("I take 5 mg of amlodipine daily.",),
        r"amlodipine",
        {"key": "health:medication:amlodipine", "importance": 5},
    ),
    (("I have asthma.",), r"has asthma", {"key": "health:condition:asthma", "category": "Health"}),
    # likes, dislikes, preferences
    (("I love bouldering.",), r"loves bouldering", {"key": "pref:bouldering", "category": "Preferences"}),
    (("I can't stand olives.",), r"cannot stand olives", {"key": "pref:olive"}),
    (("I hate tea.",), r"hates tea", {"key": "pref:tea"}),
    (("I prefer window seats on trains.",), r"prefers window seats", {"key": "pref:seat"}),
    (
        ("I always choose the vegetarian option.",),
        r"always chooses the vegetarian option",
        {"category": "Preferences"},
    ),
    (("My favourite film is Arrival.",), r"favourite film is Arrival", {"key": "pref:favourite:film"}),
    # languages
    (("I speak Swahili and Portuguese.",), r"speaks Swahili and Portuguese", {"category": "Personal"}),
    (("I'm fluent in Polish.",), r"fluent in Polish", {"key": "profile:language:polish"}),
    (
        ("I'm learning Italian.",),
        r"learning Italian",
        {"key": "education:language:italian", "category": "Education"},
    ),
    # birthdays
    (("My birthday is on the 9th of May.",), r"birthday is on the 9th of May", {"key": "profile:birthday"}),
    (("my bday is Feb 14",), r"birthday is on Feb 14", {"key": "profile:birthday"}),
    # goals
    (("I want to learn to sail.",), r"wants to learn to sail", {"category": "Goals"}),
    (("My goal is to save 20k this year.",), r"goal is to save 20k", {"category": "Goals"}),
    (("I'm training for a triathlon.",), r"training for a triathlon", {"category": "Goals"}),
    # plans and decisions -> episodic, past tense
    (("I've decided to sell my motorbike.",), r"^User decided to sell their motorbike\.$", {"type": EPI}),
    (("We decided to adopt a puppy.",), r"^User decided to adopt a puppy", {"type": EPI}),
    (("I'm planning to visit Hanoi in March.",), r"plan to visit Hanoi", {"type": EPI, "category": "Travel"}),
    (("I just got promoted!",), r"got promoted", {"type": EPI, "category": "Work"}),
    # tools and tech
    (("I use Emacs.",), r"uses Emacs", {"key": "tech:editor"}),
    (("I switched from Deno to Bun.",), r"switched from Deno to Bun", {"key": "tech:js_runtime"}),
    (("I mostly code in Elixir.",), r"codes in Elixir", {"key": "tech:programming_language:elixir"}),
    # money
    (
        ("I have about 9,000 dollars in savings.",),
        r"9,000 dollars in savings",
        {"key": "finance:savings", "category": "Finance"},
    ),
    (("My weekly food budget is 80 pounds.",), r"food budget is 80 pounds", {"category": "Budget"}),
    (("I earn 2,500 euros a month.",), r"earns 2,500 euros", {"key": "finance:income"}),
    (("I'm paying off a car loan of 6,000 euros.",), r"car loan", {"key": "finance:loan:car"}),
    # education
    (("I'm doing a PhD in chemistry.",), r"PhD in chemistry", {"category": "Education"}),
    # greeting or question mixed with a fact still yields the fact
    (
        ("Hey! I have a hamster called Nibbles.",),
        r"hamster named Nibbles",
        {"key": "profile:pet:nibbles:species"},
    ),
    (("I live in Graz, should I move to Vienna?",), r"lives in Graz", {"key": "profile:residence:city"}),
    (("Thanks! By the way, I'm a nurse.",), r"works as a nurse", {"key": "profile:occupation"}),
    (("I'm pescatarian, is squid ok?",), r"User is pescatarian", {"key": "profile:diet"}),
    (("I'm vegan, so no dairy in recipes please.",), r"^User is vegan\.$", {"key": "profile:diet"}),
    # subject left out, or shared by two verbs
    (("Morning! Just moved to Denver.",), r"lives in Denver", {"key": "profile:residence:city"}),
    (("I quit my job as a banker and became a baker.",), r"works as a baker", {"key": "profile:occupation"}),
    (("I like rock and love opera.",), r"loves opera", {"key": "pref:opera"}),
    (("My dog, Rex, is 4.",), r"^User's dog Rex is 4 years old", {"key": "profile:pet:rex:age"}),
    (
        ("I got a new kitten, her name is Tilly.",),
        r"kitten named Tilly",
        {"key": "profile:pet:tilly:species"},
    ),
    # notable events are episodic; small talk about the day is not stored (see NEGATIVE)
    (("I bought my first flat!",), r"bought their first flat", {"type": EPI}),
    (("I ran my first half marathon last Sunday.",), r"ran their first half marathon", {"type": EPI}),
    # a name that "turned N" without context: attributed to that name, not to the user
    (("Pip turned 2 last week!",), r"^User mentioned that Pip is 2 years old\.$", {"key": None}),
    (("Quick update: I'm now living in Leipzig.",), r"lives in Leipzig", {"key": "profile:residence:city"}),
    (("Btw my partner's name is Sam.",), r"^User's partner's name is Sam\.$", {"key": "family:partner:name"}),
    (("I'm a stay-at-home dad.",), r"^User is a stay-at-home dad\.$", {"key": "profile:occupation"}),
    (("I teach history at a secondary school.",), r"teaches history", {"key": "profile:occupation"}),
    (("I'm not really into golf.",), r"not really into golf", {"key": "pref:golf"}),
    (("I switched to Firefox.",), r"switched to Firefox", {"key": "tech:browser"}),
    (
        ("I have a dog.", "She's a poodle named Coco."),
        r"has a poodle named Coco",
        {"key": "profile:pet:coco:species"},
    ),
]


@pytest.mark.parametrize(("turns", "pattern", "fields"), POSITIVE, ids=[p[1] for p in POSITIVE])
def test_extracts_fact(turns: tuple[str, ...], pattern: str, fields: dict[str, Any]) -> None:
    ex = run(*turns)
    assert ex.should_create, ex.reason
    cand = find(ex, pattern)
    fields = {"type": SEM} | fields
    for name, want in fields.items():
        assert getattr(cand, name) == want, f"{name}: {getattr(cand, name)!r} != {want!r} in {cand}"
    for c in ex.candidates:
        assert_writing_constraints(c.summary)
        assert c.category in DEFAULT_CATEGORIES
        assert 1 <= c.importance <= 5
        assert c.key is None or re.fullmatch(r"[a-z0-9_+#.:-]+", c.key), c.key


NEGATIVE = [
    "hi!",
    "Good evening :)",
    "thanks for the help!",
    "ok, sounds good",
    "Write me a limerick about otters.",
    "Can you recommend a good sci-fi novel?",
    "Please summarise this article for me.",
    "do you remember where I live?",
    "Should I move to Ljubljana?",
    "is tofu vegan?",
    "What's my sister's name?",
    "I'm testing this.",
    "just testing, ignore",
    "test 1 2 3",
    "If I were rich I would live in Monaco.",
    "I might get a cat someday.",
    "I'm thinking about moving to Riga.",
    "I'm not sure what to cook.",
    "I'm tired today.",
    "lol",
    "I love this answer!",
    "My password is swordfish42.",
    "I went to the gym.",
    "I bought milk yesterday.",
    "I met a friend for lunch.",
    "I'm turning 40 next month, what should I do?",
    "I passed!",
    "",
    "   ",
    "🙂🎉🙃",
    "....???",
    "私は東京に住んでいます",
]


@pytest.mark.parametrize("text", NEGATIVE)
def test_transient_and_questions_are_not_stored(text: str) -> None:
    ex = run(text)
    assert not ex.should_create, [c.summary for c in ex.candidates]
    assert ex.candidates == []
    assert ex.reason


def test_reasons_name_the_kind_of_message() -> None:
    assert "question" in (run("Where do I live?").reason or "")
    assert "request" in (run("Write me a poem about rain.").reason or "")
    assert "test" in (run("I'm just testing this.").reason or "")
    assert "greeting" in (run("hello!").reason or "")
    assert "empty" in (run("").reason or "")
    assert "English" in (run("我住在北京").reason or "")
    assert not LLM.extract([]).should_create


def test_multi_fact_message() -> None:
    ex = run("I work as a welder, I have two dogs named Rocky and Bella, and I'm allergic to latex.")
    assert len(ex.candidates) == 3
    assert find(ex, "welder").key == "profile:occupation"
    assert find(ex, "Rocky and Bella").category == "Personal"
    assert find(ex, "latex").importance == 5
    intro = run("Hi! I'm Dalia, I'm 52 and I live in Tbilisi.")
    assert [c.key for c in intro.candidates] == ["profile:name", "profile:age", "profile:residence:city"]


def test_at_most_five_candidates() -> None:
    ex = run(
        "I'm Silas. I'm 30. I live in Perth. I work as a chef. I'm vegan. I have a cat named Pip. I speak Thai."
    )
    assert len(ex.candidates) == 5


def test_third_party_facts_are_never_the_users() -> None:
    for text, subject in [
        ("My sister lives in Kyoto.", "sister"),
        ("My best friend Rania is vegetarian.", "friend Rania"),
        ("My girlfriend doesn't eat fish.", "girlfriend"),
        ("My dad works as a mechanic.", "father"),
    ]:
        cand = run(text).candidates[0]
        assert cand.summary.startswith(f"User's {subject}"), cand.summary
        assert cand.category == "Relationships"
        assert cand.key is None or cand.key.startswith("family:")


def test_negation_is_kept() -> None:
    assert run("I don't eat red meat.").candidates[0].summary == "User does not eat red meat."
    assert "no longer" in run("I'm not vegetarian anymore.").candidates[0].summary
    assert run("I quit smoking.").candidates[0].key == "health:smoking"


def test_like_and_dislike_share_the_slot() -> None:
    like, dislike = run("I like gin.").candidates[0], run("Actually, I hate gin.").candidates[0]
    assert like.key == dislike.key == "pref:gin"
    seat = run("I always pick a window seat on planes.").candidates[0]
    assert seat.key == run("I prefer aisle seats when I fly.").candidates[0].key == "pref:seat"


CORRECTIONS = [
    (("My birthday is March 3rd.", "sorry, it's March 4th"), r"birthday is on March 4th", "profile:birthday"),
    (("My birthday is the 2nd of June.", "Actually it's the 12th"), r"12th of June", "profile:birthday"),
    (
        ("My rabbit Clover is 3.", "Sorry, I meant 4"),
        r"rabbit Clover is 4 years old",
        "profile:pet:clover:age",
    ),
    (("I live in Braga.", "No, I meant Coimbra"), r"lives in Coimbra", "profile:residence:city"),
    (("I have a dog named Pixel.", "He is 5 now."), r"dog Pixel is 5 years old", "profile:pet:pixel:age"),
    (("I'm 33.", "oops, 34 actually"), r"User is 34 years old", "profile:age"),
]


@pytest.mark.parametrize(("turns", "pattern", "key"), CORRECTIONS, ids=[c[1] for c in CORRECTIONS])
def test_corrections_rebuild_the_whole_fact(turns: tuple[str, ...], pattern: str, key: str) -> None:
    ex = run(*turns)
    cand = find(ex, pattern)
    assert cand.key == key
    assert cand.type == SEM


def test_existing_memories_resolve_names() -> None:
    ex = run("Biscuit turned 9 yesterday.", existing=("User's dog Biscuit is 8 years old.",))
    cand = ex.candidates[0]
    assert cand.summary == "User's dog Biscuit is 9 years old."
    assert cand.key == "profile:pet:biscuit:age"


def test_a_bug_in_a_rule_is_raised_not_reported_as_no_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Formation parks the turn (tests/test_formation_durability.py); "nothing to remember" would lose it."""
    import memlane.providers.llm.rules.llm as module

    def boom(*_: object) -> Extraction:
        raise RuntimeError("bug")

    monkeypatch.setattr(module, "extract", boom)
    with pytest.raises(RuntimeError, match="bug"):
        RulesLLM().extract([ChatMessage(role="user", content="I live in Tallinn.")])


def test_assistant_turns_are_context_only() -> None:
    msgs = [
        ChatMessage(role="user", content="Write me a poem."),
        ChatMessage(role="assistant", content="I live where rivers run, I love the morning sun."),
    ]
    assert not LLM.extract(msgs).should_create


ODD = [
    "",
    " ",
    "\n\n",
    "\x00\x01",
    "a" * 20_000,
    "I " * 5000,
    "my my my",
    "I'm I'm I'm",
    "?!?!",
    "🙂" * 500,
    "Je suis allergique aux arachides.",
    "I live in",
    "My dog",
    "I have",
    "I'm a",
    "call me",
    "My name is",
    "I moved to",
    "I'm allergic to",
    "Sorry, I meant",
    "I decided to",
    "12345",
    "€€€ $$$",
    "I am 999 years old",
]


@pytest.mark.parametrize("text", ODD)
def test_odd_input_never_raises(text: str) -> None:
    ex = run("My cat Pip is 2.", text)
    for c in ex.candidates:
        assert_writing_constraints(c.summary)


def test_extraction_is_deterministic() -> None:
    # its speed is measured by benchmarks/formation_bench.py (hot path p95), not asserted here
    texts = [t for turns, _, _ in POSITIVE for t in turns] + NEGATIVE
    assert [run(t) for t in texts] == [run(t) for t in texts]
    assert run("I live in Tallinn and I'm a vet.") == run("I live in Tallinn and I'm a vet.")


def test_rules_is_a_registered_memory_llm() -> None:
    from memlane.providers.llm.registry import get_llm

    llm = get_llm("rules")
    assert isinstance(llm, MemoryLLM) and isinstance(llm, RulesLLM)
    assert llm.name == "rules"


# --- every user chat message of the dev scenarios ------------------------------------------------


def test_dev_scenario_chat_messages_pass_writing_constraints() -> None:
    if not DEV_SCENARIOS.exists():
        pytest.skip(f"dev scenarios not found at {DEV_SCENARIOS} (the shared folder sits next to the repo)")
    seen = 0
    for line in DEV_SCENARIOS.read_text().splitlines():
        scenario = json.loads(line)
        if scenario.get("mode") != "chat":
            continue
        history: dict[str, list[ChatMessage]] = {}
        for step in scenario["steps"]:
            if "text" not in step:
                continue
            turns = history.setdefault(step.get("user", "u1"), [])
            turns.append(ChatMessage(role=step["role"], content=step["text"]))
            if step["role"] != "user":
                continue
            ex = LLM.extract(turns[-6:])
            seen += 1
            assert ex.should_create == bool(ex.candidates)
            for cand in ex.candidates:
                assert_writing_constraints(cand.summary)
    assert seen > 50
