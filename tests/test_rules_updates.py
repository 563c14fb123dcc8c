"""Chat updates of stored memories (``rules/updates.py``): a terse clause that names a stored memory and
carries a new value of a kind it holds once is proposed as the stored sentence with that value. The
phrasings, people and values here are written apart from every scenario set."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memlane import Memory
from memlane.model.candidate import ChatMessage
from memlane.model.enums import HistoryEvent
from memlane.providers.llm.rules import RulesLLM
from memlane.providers.llm.rules.extract import extract
from memlane.providers.llm.rules.values import read_values
from tests.formation_helpers import open_memory

U = "u_updates"


def proposed(stored: list[str], *turns: str) -> list[str]:
    result = extract([ChatMessage(role="user", content=t) for t in turns], stored)
    return [c.summary for c in result.candidates if "update" in c.tags]


UPDATES = [
    # a number of the same kind, tied by a shared content word
    (
        ["User pays 45 euros a month for the climbing gym."],
        "the climbing gym went up to 52 euros a month",
        "User pays 52 euros a month for the climbing gym.",
    ),
    (
        ["User takes 25 mg of sertraline every day."],
        "my psychiatrist raised the sertraline to 50mg",
        "User takes 50 mg of sertraline every day.",
    ),
    (
        ["User's car insurance costs $1,200 a year."],
        "car insurance renewal came in at $1,350 a year, ouch",
        "User's car insurance costs $1,350 a year.",
    ),
    # tied by the subject: a name, or a family word in another spelling
    (
        ["User's son Idris is 7 years old."],
        "Idris hit eight on Tuesday and thinks he is a teenager",
        "User's son Idris is 8 years old.",
    ),
    (["User's mother is 64 years old."], "mum turned 65 last month", "User's mother is 65 years old."),
    (
        ["User's cat Biscuit weighs 4 kg."],
        "Biscuit is up to 5 kg, the vet wants her on a diet",
        "User's cat Biscuit weighs 5 kg.",
    ),
    # a date, or only its day ("not the 9th")
    (
        ["User's thesis defence is on April 9th."],
        "the thesis defence got pushed to May 2",
        "User's thesis defence is on May 2.",
    ),
    (
        ["User's brother Kenji's graduation is on July 12th in Osaka."],
        "ah wait, the graduation is the 14th, not the 12th",
        "User's brother Kenji's graduation is on July 14th in Osaka.",
    ),
    # an ordinal with the same noun, a name in the same role: with "now" so the judge reads a change
    (
        ["User's office is on the 3rd floor of the building."],
        "correction: 4th floor, not 3rd",
        "User's office is on the 4th floor of the building now.",
    ),
    (
        ["User's newsletter is hosted on Substack."],
        "moved the newsletter over to Buttondown, it's on Buttondown now",
        "User's newsletter is hosted on Buttondown now.",
    ),
    # a habit told in the past tense with a period is no one-off event
    (
        ["User set aside 200 pounds a month for the holiday fund."],
        "bumped the holiday fund to 250 pounds a month",
        "User set aside 250 pounds a month for the holiday fund.",
    ),
    # "from <the stored name> to <a new one>" with a verb of switching names the stored memory
    (
        ["User tracks their budget in YNAB."],
        "switched all my budgeting from YNAB to Actual, no regrets, not at all",
        "User tracks their budget in Actual now.",
    ),
    # a rate told with the same unit and period, and a change word
    (
        ["User cycles about 60 km a week."],
        "pushing it a bit, doing 90 km a week these days",
        "User cycles about 90 km a week.",
    ),
]


@pytest.mark.parametrize(("stored", "message", "expected"), UPDATES)
def test_a_new_value_of_a_stored_memory_is_proposed_as_that_memory_updated(
    stored: list[str], message: str, expected: str
) -> None:
    assert proposed(stored, message) == [expected]


NOT_UPDATES = [
    # someone else's value of the same thing
    (["User's rent is 1,400 a month."], "my brother's rent is 900 a month"),
    (["User's son Idris is 7 years old."], "my niece Lotte is 9 now"),
    # a question, a plan, a condition, a negation
    (["User's rent is 1,400 a month."], "is 1,600 a month normal for a two-bed?"),
    (["User takes 25 mg of sertraline every day."], "the psychiatrist wants to raise the sertraline to 50mg"),
    (["User's rent is 1,400 a month."], "if the landlord puts my rent up to 1,600 we will move"),
    (["User takes 25 mg of sertraline every day."], "my psychiatrist did not raise the sertraline to 50mg"),
    (
        ["User spends about 80 dollars a week on groceries."],
        "I decided to get my groceries down to 60 dollars a week",
    ),
    # a word in common, but a value of another kind or role
    (["User's thesis defence is on April 9th."], "3 people from my lab are coming to the thesis defence"),
    (["User's newsletter is hosted on Substack."], "wrote a newsletter issue about Lisbon"),
    # a value the stored memory holds twice: which one changed is a guess
    (["User swims 2 km on Mondays and 3 km on Fridays."], "I swam 4 km today"),
    # the same value again
    (["User's son Idris is 7 years old."], "Idris is 7 and loves dinosaurs"),
    # a number that says when, not how much; an event told again is another event
    (
        ["User has known their flatmates for 3 years."],
        "my flatmates threw me a party for my 30th, 2 years ago",
    ),
    (["User ran their second half marathon in Cardiff."], "I ran my third half marathon, this time in Bath"),
    # "from X to Y" that is a trip, not a switch; someone else's switch
    (["User lives in Leeds."], "we drove from Leeds to Whitby on Sunday"),
    (["User tracks their budget in YNAB."], "my flatmate switched from YNAB to Actual"),
    # two stored memories fit as well as each other
    (["User's gym costs 30 pounds a month.", "User's gym bag cost 30 pounds."], "the gym is 35 pounds now"),
]


@pytest.mark.parametrize(("stored", "message"), NOT_UPDATES)
def test_no_update_where_the_clause_does_not_name_one_stored_value(stored: list[str], message: str) -> None:
    assert proposed(stored, message) == []


def test_the_values_of_a_sentence_carry_their_kind_unit_and_period() -> None:
    found = read_values(
        "User walks 12 km a week and pays £9 per month for the app, since the 3rd floor move."
    )
    assert [(v.kind, v.unit, v.text, v.period) for v in found] == [
        ("num", "distance", "12", "week"),
        ("num", "money", "9", "month"),
        ("ordinal", "floor", "3rd", ""),
    ]
    assert [(v.kind, v.text) for v in read_values("the recital moved to 14 March, not the 7th")] == [
        ("date", "14 March"),
        ("day", "7th"),
    ]


def test_a_keyed_fact_of_the_clause_is_left_to_the_judge() -> None:
    """A rule that reads the clause with a key wins: the key ties it to the stored memory already."""
    result = extract([ChatMessage(role="user", content="I live in Tampere now")], ["User lives in Oulu."])
    assert [(c.summary, c.tags) for c in result.candidates] == [("User lives in Tampere.", [])]


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    m = open_memory(
        str(tmp_path / "u.db"), RulesLLM(), memory_consent_fields=[], memory_consent_benign_fields=[]
    )
    yield m
    m.close()


def test_a_terse_update_in_chat_supersedes_the_stored_memory_with_history(mem: Memory) -> None:
    mem.add("My grandpa is 81 and still walks to the allotment every day.", user_id=U, wait=True)
    (old,) = mem.list(user_id=U)
    assert "81" in old.summary
    mem.add("granddad turned 82 yesterday, cake for breakfast", user_id=U, wait=True)
    summaries = [r.summary for r in mem.list(user_id=U)]
    assert any("82" in s and "grandfather" in s for s in summaries)
    assert not any("81" in s for s in summaries)
    assert HistoryEvent.SUPERSEDE in [h.event for h in mem.history(old.id, user_id=U)]


def test_a_family_word_is_looked_up_as_summaries_write_it() -> None:
    from memlane.providers.llm.rules.llm import RulesLLM

    assert "grandmother" in RulesLLM().lookup_terms("my nan is 91 now")
    assert RulesLLM().lookup_terms("my friend Sam is 40") == []  # too broad a word to look up
