"""The same slot told in other words, by the embedding model: "goes to bed around 10 pm" / "usual bedtime is
now around midnight".

The frames (``frames.py``) tie two statements by their content words; "bedtime" and "goes to bed" share
none, so the rules judge is unsure. When both statements hold one value of one kind and the values differ
(a clock time, "midnight" and "noon" included; a number with its unit; a date; a name), what each says
of its slot, values, subject and hedges masked ("goes to bed" / "bedtime is"), is compared in the bundled
all-MiniLM-L6-v2 model (the embedder's own copy, shared process-wide). At or above ``SAME_SLOT`` they say
the same slot with another value: a contradiction.

Not for: a negation on one side only, an addition ("also"), a one-off occasion ("last night", "on
Sunday": another occasion, not a correction), statements with more than one value of the kind (which one
changed is not guessed). Threshold measured on pairs (docs/memory-quality.md, "Round 4").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from memlane.model.candidate import ConflictVerdict
from memlane.providers.llm.rules import frames
from memlane.providers.llm.rules.compare import negated, same_name
from memlane.providers.llm.rules.frame_data import DATA
from memlane.providers.llm.rules.values import read_values

if TYPE_CHECKING:
    from memlane.providers.embed.local import LocalEmbedder

SAME_SLOT = 0.55  # masked cosine at or above which two statements say one slot (measured, see the docs)
THING = 0.40  # "User's <thing> ...": the thing must be this near what the other statement says

_CLOCK = re.compile(
    r"\b(?:(?P<h>\d{1,2})(?:[:.](?P<m>\d{2}))?\s*(?P<ap>[ap])\.?m\b\.?|(?P<hh>[01]?\d|2[0-3]):(?P<mm>[0-5]\d)\b"
    r"|(?P<word>midnight|noon|midday))",
    re.IGNORECASE,
)
# the subject, and words of time or hedging that say nothing of the slot
_NOISE = re.compile(
    r"\b(?:user's|user|now|currently|nowadays|lately|these days|at the moment|usually|usual|"
    r"normally|typically|generally|always|still|" + "|".join(DATA["filler"].split()) + r")\b",
    re.IGNORECASE,
)
_COPULA = frozenset(["is", "are", "was", "were"])
_TITLE = re.compile(r"^(?:dr|mr|mrs|ms|prof)\.? ")
_WORD_TIME = {"midnight": 0, "noon": 12 * 60, "midday": 12 * 60}


@dataclass(frozen=True)
class Slot:
    kind: str  # clock | num:<unit> | date | name
    value: str  # normalised: minutes of the day, the number, the text
    start: int
    end: int


def _clock(m: re.Match[str]) -> str:
    if m.group("word"):
        return str(_WORD_TIME[m.group("word").lower()])
    if m.group("hh"):
        return str(int(m.group("hh")) * 60 + int(m.group("mm")))
    hour = int(m.group("h")) % 12 + (12 if m.group("ap").lower() == "p" else 0)
    return str(hour * 60 + int(m.group("m") or 0))


def slots(text: str) -> list[Slot]:
    """The typed values of ``text``: clock times first, then the numbers with a unit, dates and names
    ``values.read_values`` finds outside them (a bare number has no kind: it fits anything)."""
    found = [Slot("clock", _clock(m), m.start(), m.end()) for m in _CLOCK.finditer(text)]
    for v in read_values(text):
        if any(v.start < s.end and s.start < v.end for s in found):
            continue
        if v.kind == "num" and v.unit:
            found.append(Slot(f"num:{v.unit}", f"{v.number:g}", v.start, v.unit_end or v.end))
        elif v.kind in ("date", "name"):
            found.append(Slot(v.kind, v.text.lower(), v.start, v.end))
    return found


def _same_value(a: Slot, b: Slot) -> bool:
    if a.kind == "name":  # "Delft" / "TU Delft", "Buddhist" / "Buddhism"
        return same_name(_TITLE.sub("", a.value), _TITLE.sub("", b.value))
    if a.kind == "date":  # "March 14" / "14 March"
        return set(re.findall(r"\w+", a.value)) == set(re.findall(r"\w+", b.value))
    return a.value == b.value


def _one_each(old: list[Slot], new: list[Slot], same: bool = False) -> tuple[Slot, Slot] | None:
    """The one value of a kind each statement holds once, when they differ (or, with ``same``, the one clock
    time both hold: "gets up at 5:30" / "is always up at 5:30"; a name or a date said twice may be two things,
    "a flight to Oslo for May" / "a hotel in Oslo for May"); None when no kind fits."""
    for kind in dict.fromkeys(s.kind for s in new):
        if same and kind != "clock":
            continue
        a = [s for s in old if s.kind == kind]
        b = [s for s in new if s.kind == kind]
        if len(a) == len(b) == 1 and _same_value(a[0], b[0]) == same:
            return a[0], b[0]
    return None


@lru_cache(maxsize=1)
def _model() -> LocalEmbedder:
    from memlane.providers.embed.local import LocalEmbedder

    return LocalEmbedder()  # the process-wide copy of the bundled model


def masked(text: str) -> str:
    """What ``text`` says of its slot: its values, its subject ("User", "User's") and the words that
    say when or how sure ("now", "usually", "around") left out ("User's usual bedtime is now around
    midnight." -> "bedtime is")."""
    for s in sorted(slots(text), key=lambda s: -s.start):
        text = text[: s.start] + " " + text[s.end :]
    return " ".join(_NOISE.sub(" ", text).split()).strip(" .,")


def _thing(text: str) -> str | None:
    """What "User's <thing> is ..." speaks of ("usual bedtime", "electricity bill"); None when the statement
    is not about something of the user's."""
    if not text.lstrip().lower().startswith("user's "):
        return None
    words = masked(text).split()
    cut = next((i for i, w in enumerate(words[:4]) if w.lower() in _COPULA), 1)
    return " ".join(words[: max(cut, 1)])


def _cosine(a: str, b: str) -> float:
    va, vb = _model().embed([a, b])
    return float(sum(x * y for x, y in zip(va, vb, strict=True)))


@lru_cache(maxsize=4096)
def masked_cosine(existing: str, candidate: str, same: bool = False) -> float | None:
    """Cosine of the two statements with every value masked (:func:`masked`); None when they hold no
    differing value of one kind (no equal one, with ``same``), or nothing is left of one of them."""
    if _one_each(slots(existing), slots(candidate), same) is None:
        return None
    a, b = masked(existing), masked(candidate)
    if not a or not b:
        return None
    if a == b:
        return 1.0
    # one slot needs one thing: "User weighs 68 kg" / "User's suitcase weighs 23 kg", "User's rent" / "User's
    # electricity bill" read alike once masked, but the thing is not what the other statement speaks of
    for text, other in ((existing, b), (candidate, a)):
        thing = _thing(text)
        if thing and _cosine(thing, other) < THING:
            return None
    return _cosine(a, b)


def same_slot(existing: str, candidate: str) -> ConflictVerdict | None:
    """A contradiction when the two statements say one slot with other values of one kind; None otherwise."""
    if negated(existing) != negated(candidate) or frames.adds(existing, candidate):
        return None
    if frames.frame(existing).once or frames.frame(candidate).once:
        return None
    score = masked_cosine(existing, candidate)
    if score is not None and score >= SAME_SLOT:
        return ConflictVerdict(
            relation="contradiction",
            reason=f"the same slot in other words (masked cosine {score:.2f}), another value",
        )
    # the same value said of the slot in other words: "gets up at 5:30" / "alarm goes off at 5:30 daily"
    score = masked_cosine(existing, candidate, same=True)
    if score is not None and score >= SAME_SLOT:
        return ConflictVerdict(
            relation="redundancy",
            reason=f"the same slot in other words (masked cosine {score:.2f}), the same value",
        )
    return None
