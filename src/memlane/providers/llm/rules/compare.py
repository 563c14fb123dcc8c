"""Reading two summaries side by side: slot, value, polarity, subject, content words, numbers.

A summary is read back with the extraction rules themselves (``"User lives in Oslo."`` ->
``"I live in Oslo"`` -> slot ``profile:residence:city``, value ``Oslo``), so the comparison uses the same
notion of a slot as extraction. Texts the rules do not recognise fall back to word overlap.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from memlane.providers.llm.rules.build import subject_key
from memlane.providers.llm.rules.context import Registry
from memlane.providers.llm.rules.extract import facts_in
from memlane.providers.llm.rules.lexicon import words
from memlane.providers.llm.rules.lexicon_world import COUNTRIES, MONTHS, NUMBER_WORDS, TECH_SLOTS
from memlane.providers.llm.rules.render import summary_to_first_person
from memlane.providers.llm.rules.subject import pet_or_relation
from memlane.providers.llm.rules.text import numbers, workout

_WORD = re.compile(r"[a-z0-9][a-z0-9'+#.-]*")
_ORDINAL = re.compile(r"\b(\d{1,4})(?:st|nd|rd|th)\b", re.IGNORECASE)
_NEGATION = re.compile(
    r"\b(?:not|n't|never|no longer|stopped|quit|gave up|hates?|dislikes?|cannot stand|can't stand|detests?|"
    r"loathes?|despises?|avoids?|no)\b",
    re.IGNORECASE,
)
_NAME_PHRASE = re.compile(r"(?<!^)(?<![.!?] )\b[A-Z][\w'.-]*(?:\s+(?:of\s+|de\s+|van\s+)?[A-Z][\w'.-]*)*")
_PROPER = re.compile(r"(?<!^)(?<![.!?] )\b([A-Z][\w'-]+)")
DAYS = words("monday tuesday wednesday thursday friday saturday sunday weekday weekend")
_STOP = words("""user user's users the a an is are am was were be been being has have had does do did their them they
    theirs themselves to of in on at for with and or as by from that this these those it its his her he she
    i my me we our very really especially absolutely also still now just actually so quite more most any
    other than who which what how when where there here about into over after before up out every each per
    all some much many too currently usually always often sometimes definitely totally truly mostly
    anymore longer years year old lot lots diet diets follow follows following music food foods cuisine
    stuff thing things genre not never no euro euros eur dollar dollars usd pound pounds gbp month months
    monthly week weeks day days daily mg ml km k percent hour hours due""")
_SYNONYMS = {
    **dict.fromkeys(
        words(
            "love loves loved like likes liked enjoy enjoys enjoyed adore adores fan favourite favorite "
            "favourites favorites prefer prefers preferred fond keen"
        ),
        "like",
    ),
    **dict.fromkeys(
        words("hate hates hated dislike dislikes disliked detest detests loathe loathes despise"), "dislike"
    ),
    **dict.fromkeys(words("called named name names nicknamed"), "name"),
    **dict.fromkeys(words("live lives living lived reside resides residing based located home"), "live"),
    **dict.fromkeys(words("moved move moves relocated relocate relocates"), "move"),
    **dict.fromkeys(words("work works working worked employed job occupation profession"), "work"),
    **dict.fromkeys(words("kids kid children child"), "child"),
    **dict.fromkeys(words("learn learns learning learned learnt study studies studying studied"), "learn"),
    **dict.fromkeys(words("flight flights fly flying flies plane planes airplane"), "fly"),
    **dict.fromkeys(words("seat seats sit sitting"), "seat"),
    **dict.fromkeys(words("discussed discuss talked talk chatted talked through"), "discuss"),
    **dict.fromkeys(words("mom mum mother dad father parents"), "parent"),
    **dict.fromkeys(words("small little tiny"), "small"),
    **dict.fromkeys(words("big large huge"), "big"),
    **dict.fromkeys(words("wife husband spouse partner"), "spouse"),
    **dict.fromkeys(
        words("expire expires expired expiring expiry valid validity"), "expire"
    ),  # "valid until"
    **dict.fromkeys(words("pay pays paid paying payment payments instalment instalments installment"), "pay"),
    **dict.fromkeys(words("best better"), "best"),  # "studies best in the morning" / "better at night"
    **dict.fromkeys(words("answer answers reply replies response responses"), "answer"),  # to the user
    **dict.fromkeys(words("workout workouts exercise exercises exercising exercised"), "workout"),
    **dict.fromkeys(words("support supports supported supporting allegiance"), "support"),  # a team
    **dict.fromkeys(words("film films movie movies"), "film"),
    **dict.fromkeys(words("example examples analogy analogies"), "example"),  # in answers
    # who plays an instrument is named after it: "a cellist" plays the cello
    "cellist": "cello",
    "pianist": "piano",
    "violinist": "violin",
    "guitarist": "guitar",
    "drummer": "drums",
    "bassist": "bass",
    "flautist": "flute",
    "flutist": "flute",
    "saxophonist": "saxophone",
    "harpist": "harp",
    "trumpeter": "trumpet",
    "organist": "organ",
    "violist": "viola",
    "clarinettist": "clarinet",
    "clarinetist": "clarinet",
    "trombonist": "trombone",
    "percussionist": "percussion",
}
_SUFFIXES = ("ings", "ing", "ments", "ment", "ied", "ies", "ed", "es", "ic", "s", "y")


def _strip(word: str) -> str:
    if word.endswith("ees"):  # "coffees" is "coffee" (not "coff" + "es")
        word = word[:-1]
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word[-1] in "ey":  # bake/bakes/baking, play/plays, save/saving -> one stem
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":  # running -> run
        word = word[:-1]
    return word


def stem(word: str) -> str:
    """One stem for a word's forms and synonyms: "prefers", "preferring" and "loves" -> the stem of "like"."""
    word = _strip(_SYNONYMS.get(word, word))
    canonical = _SYNONYMS.get(word)  # "preferring" -> "prefer" -> "like"
    return _strip(canonical) if canonical else word


_SESSION = (
    re.compile(  # formation/capture.py's sentence, with its date or without (model.time_buckets.undated)
        r"^(?:On \d{4}-\d{2}-\d{2} \(W\d{1,2}, \d{4}\) )?we discussed .*?\. Approach: (?P<what>.+)$",
        re.DOTALL | re.I,
    )
)


def statement(summary: str) -> str:
    """What an episode's summary says was done ("On 2026-04-05 (W14, 2026) we discussed ... Approach: User
    got engaged to Lina." -> "User got engaged to Lina."); any other summary as it is."""
    m = _SESSION.match(summary.strip())
    return _unaccented(m.group("what") if m else summary)


def _unaccented(text: str) -> str:
    """ "café" and "cafe", "Kraków" and "Krakow" are one word to the comparison (its words are ASCII)."""
    if text.isascii():
        return text
    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))


_FIRST_THING = re.compile(r"\bfirst thing (?=in the)")  # "first thing in the morning" is in the morning


def content_words(text: str, drop: frozenset[str] = frozenset()) -> frozenset[str]:
    tokens = (
        w.strip(".'-") for w in _WORD.findall(_FIRST_THING.sub("", workout(text.lower().replace("'s ", " "))))
    )
    return frozenset(
        stem(w)
        for w in tokens
        if w and w not in _STOP and w not in drop and not w.isdigit() and w not in NUMBER_WORDS
    )


# a number that describes a kind, not an amount: "a one-bed flat", "a 4-door car", "a two-seater"
_COMPOUND = re.compile(r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten)-(?=[a-z])", re.IGNORECASE)


def number_set(text: str) -> frozenset[float]:
    text = _COMPOUND.sub(" ", text)
    found = set(numbers(text)) | {float(m.group(1)) for m in _ORDINAL.finditer(text)}
    return frozenset(found)


def negated(text: str) -> bool:
    return bool(_NEGATION.search(text))


def overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """Overlap coefficient: shared words over the smaller set (1 when both are empty, 0 when one is)."""
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Overlap coefficient when one text contains the other's words (a restatement or an added detail),
    Jaccard otherwise, so two texts that each say something the other does not ("booked a flight to
    Rome" / "booked a hotel in Rome") need more shared words to count as the same."""
    return overlap(a, b) if a <= b or b <= a else jaccard(a, b)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def names(text: str) -> frozenset[str]:
    """Names as phrases ("visual studio code", "st. mary"), lowercased, without a possessive; days of
    the week left out (they say when, not who or where)."""
    found = set()
    for m in _NAME_PHRASE.finditer(text.strip()):
        tokens = (w.rstrip(".").removesuffix("'s").removesuffix("'") for w in m.group(0).lower().split())
        phrase = " ".join(w for w in tokens if not w.startswith("user") and w.removesuffix("s") not in DAYS)
        if phrase:
            found.add(phrase)
    return frozenset(found)


# words many names share: "University of Leeds" and "University of York" are two names
_GENERIC_NAME_WORDS = words("""of the de la le van von university college school academy institute hospital clinic
    bank gym club church library hotel cafe restaurant centre center street road avenue lane square park city town
    new old st saint san santa fort port lake mount north south
    east west great""")


def same_name(a: str, b: str) -> bool:
    """One name in other words: ``vs code`` / ``visual studio code``, ``buddhist`` / ``buddhism``."""
    if a == b or (set(a.split()) & set(b.split())) - _GENERIC_NAME_WORDS:
        return True
    return " " not in a + b and min(len(a), len(b)) >= 5 and a[:5] == b[:5]


def proper_nouns(text: str) -> frozenset[str]:
    return frozenset(
        m.group(1).lower() for m in _PROPER.finditer(text.strip()) if not m.group(1).startswith("User")
    )


@dataclass(frozen=True)
class Who:
    """The subject of a summary: the user, a relation or pet (noun, name), or a named someone."""

    kind: str = "user"
    noun: str = ""
    name: str = ""

    def __str__(self) -> str:
        return ":".join(p for p in (self.kind, self.noun, self.name) if p)

    @property
    def words(self) -> frozenset[str]:
        return frozenset(w for w in (*self.noun.split(), self.name) if w)


USER = Who()


@dataclass(frozen=True)
class Reading:
    """One summary as the rules understand it. ``slot`` is the rule's key before the subject's namespace."""

    text: str
    key: str | None = None
    slot: str | None = None
    value: str = ""
    positive: bool = True
    who: Who = USER
    category: str | None = None

    @property
    def words(self) -> frozenset[str]:
        return content_words(self.text, self.who.words)


_SUBJECT_HEAD = re.compile(
    r"^(?:the )?user's\s+((?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*)(?:\s+((?-i:[A-Z])[\w'-]+))?", re.I
)
_MENTIONED = re.compile(r"^User mentioned that ([A-Z][\w'-]+)")
_LEADING_TIME = re.compile(
    r"^(?:(?:last|this|next) \w+|yesterday|today|tonight|on \w+day|in \w+|earlier today|recently),?\s+(?=the user|user)",
    re.I,
)
_LEADING_NAME = re.compile(r"^([A-Z][a-z][\w'-]*)\b(?!')")
# "Ivy, the user's daughter, ..." / "Kiwi the parrot ..." / "Pixel, the user's cat, ..."
_APPOSITION = re.compile(
    r"^([A-Z][a-z][\w'-]*),? (?:the )?(?:user's |their |his |her )?([a-z][\w-]*(?: [a-z][\w-]*)?)\b"
)


def _text_subject(summary: str) -> Who:
    summary = _LEADING_TIME.sub("", summary.strip())  # "Last week the user's grandma ..."
    if m := _MENTIONED.match(summary.strip()):
        return Who("entity", "", m.group(1).lower())
    if (m := _APPOSITION.match(summary.strip())) and _is_name(m.group(1), tools=True):  # "Pixel, the cat"
        for size in (2, 1):
            found = pet_or_relation(" ".join(m.group(2).split()[:size]))
            if found:
                return Who(found[0], found[1], m.group(1).lower())
    if "user" not in summary.lower() and (m := _LEADING_NAME.match(summary.strip())) and _is_name(m.group(1)):
        return Who("entity", "", m.group(1).lower())  # a statement about someone else: "Theo just turned six"
    m = _SUBJECT_HEAD.match(summary.strip())
    if m:
        head = m.group(1).split()
        for start in range(len(head)):  # "User's new manager": the noun after an adjective
            for size in (3, 2, 1):
                found = pet_or_relation(" ".join(head[start : start + size]))
                if found:
                    return Who(found[0], found[1], (m.group(2) or "").lower())
    return USER


@lru_cache(maxsize=4096)
def read(summary: str) -> Reading:
    who = _text_subject(summary)
    found, _ = facts_in(summary_to_first_person(summary), Registry())
    if not found:
        return Reading(summary, positive=not negated(summary), who=_kin(who))
    fact, subject = found[0]
    if subject.kind in ("pet", "relation", "entity"):
        who = Who(subject.kind, subject.noun or "", (subject.name or "").lower())
    elif subject.kind in ("user", "group") and not who.name:  # "User's mother tongue is ..." is the user's
        who = USER
    category = "Relationships" if subject.kind == "relation" else fact.category
    key = subject_key(fact.key, subject)
    return Reading(summary, key, fact.key, fact.value.lower().strip(), fact.positive, _kin(who), category)


def _kin(who: Who) -> Who:
    """Someone named by a family word ("User mentioned that Nan ...") is that relation: the grandmother."""
    found = pet_or_relation(who.name) if who.kind == "entity" and who.name else None
    return Who("relation", found[1], "") if found and found[0] == "relation" else who


def _is_name(word: str, tools: bool = False) -> bool:
    """A capitalised word that names someone; with ``tools``, a tool's name too ("Pixel, the cat")."""
    w = word.lower()
    return not (
        w.startswith("user") or w in _STOP or (w in TECH_SLOTS and not tools) or w in COUNTRIES or w in MONTHS
    )


def same_subject(a: Reading, b: Reading) -> bool:
    return same_who(a.who, b.who)


def same_who(x: Who, y: Who) -> bool:
    if x == y:
        return True
    if "entity" in (x.kind, y.kind):  # "User mentioned that Luna ..." vs "User's dog Luna ..."
        return bool(x.name) and x.name == y.name
    # "User's dog" vs "User's dog Luna": same kind and noun, one name missing
    return x.kind == y.kind != "user" and x.noun == y.noun and not (x.name and y.name)


def _slot_family(key: str | None) -> str | None:
    """Answer styles are one slot whatever their aspect (``pref:answer_style:length``; answer_aspects.py)."""
    return "pref:answer_style" if key and key.startswith("pref:answer_style") else key


def same_slot(a: Reading, b: Reading) -> bool:
    """Same key, or the same rule slot for the same named subject (when one side has no key)."""
    if a.key and _slot_family(a.key) == _slot_family(b.key):
        return True
    return bool(a.slot) and a.slot == b.slot and same_subject(a, b) and "entity" in (a.who.kind, b.who.kind)


def same_value(a: Reading, b: Reading) -> bool:
    """``"peanuts"`` and ``"peanut"``, ``"Lisbon"`` and ``"lisbon"`` are the same value."""
    if a.value == b.value:
        return True
    words, numbers = content_words(a.value), number_set(a.value)
    return (words, numbers) == (content_words(b.value), number_set(b.value)) and bool(words or numbers)
