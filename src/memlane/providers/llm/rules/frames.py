"""Fact frames: two statements about one subject compared with their values masked.

No key and no extraction rule needs to tie the two facts. A statement is read as a subject, its values
(numbers by unit, names, tools, dates), its frame (the content words left once values, markers and
light verbs are masked) and its stance (negated, announcing a change, adding to what is known):

    "User's son Theo is 5 years old."    relation:son:theo  numbers {5: age}  frame {}
    "Theo just had his sixth birthday."  entity:theo        numbers {6: age}  frame {}   (change)

Same subject, frames that differ on at most one side, values of one kind that differ: the newer
statement replaces the older. The word lists are data (``frames.yaml``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memlane.model.candidate import ConflictVerdict
from memlane.providers.llm.rules import everyday, roles
from memlane.providers.llm.rules.compare import (
    DAYS,
    USER,
    Who,
    content_words,
    names,
    negated,
    number_set,
    read,
    same_name,
    same_who,
    stem,
)
from memlane.providers.llm.rules.frame_data import DATA as _DATA
from memlane.providers.llm.rules.frame_data import LISTED_VALUE, plain
from memlane.providers.llm.rules.frame_data import stems as _stems
from memlane.providers.llm.rules.lexicon_world import (
    FOOD_GROUPS,
    MONTHS,
    NUMBER_WORDS,
    TECH_SLOTS,
)
from memlane.providers.llm.rules.table import ORDINALS as _ORDINALS
from memlane.providers.llm.rules.when import times_differ

CHANGE = _stems(_DATA["change"])
ADDITIVE = _stems(_DATA["additive"])
_TOO_MUCH = re.compile(r"\btoo\s+[a-z]", re.IGNORECASE)  # "too much on my plate", "too busy": no addition
LIGHT = _stems(_DATA["light"])
UNITS: dict[str, frozenset[str]] = {k: _stems(v) for k, v in _DATA["units"].items()}
FIELDS: dict[str, frozenset[str]] = {k: _stems(v) for k, v in _DATA["fields"].items()}
_UNIT_WORDS = frozenset().union(*UNITS.values())
HABIT_WORDS: dict[str, frozenset[str]] = {
    k: frozenset(v.replace("_", " ").split()) for k, v in _DATA["habits"].items()
}
HABITS: dict[str, frozenset[str]] = {k: frozenset(stem(w) for w in v) for k, v in HABIT_WORDS.items()}
# foods are matched as written, never by stem ("codes" is no "cod"): "went vegetarian" retires "orders pepperoni pizza"
FOODS = {group: frozenset(f for f in foods if " " not in f) for group, foods in FOOD_GROUPS.items()}
RULES_OUT: dict[str, frozenset[str]] = {stem(k): frozenset(v.split()) for k, v in _DATA["rules_out"].items()}
# a general word (its stems: "martial_art" -> {"martial", "art"}) and the stems of the kinds it lists
KINDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    k: (frozenset(stem(w) for w in k.split("_")), _stems(v)) for k, v in _DATA["kinds"].items()
}
ONE_AT_A_TIME = _stems(_DATA["one_at_a_time"])
# slot names as TECH_SLOTS writes them (notes_app), and the providers and teams of everyday.py
ONE_TOOL = frozenset(_DATA["one_at_a_time_tools"].split()) | everyday.HELD_ONE_AT_A_TIME
WISHES = _stems(_DATA["wishes"])
# a member of two words ("dark_mode") is matched on a pair of tokens; "remote=from_home" is one value in two words
EXCLUSIVE: dict[str, frozenset[str]] = {
    k: frozenset(w.replace("_", " ") for w in v.replace("=", " ").split())
    for k, v in _DATA["exclusive"].items()
}
ONE_WORD = plain("one_at_a_time_words")
TITLE_VERBS: dict[str, frozenset[str]] = {k: frozenset(v.split()) for k, v in _DATA["habit_titles"].items()}
KIND_MEMBERS = frozenset().union(*(members for _, members in KINDS.values()))
OPPOSITES: frozenset[frozenset[str]] = frozenset(
    frozenset(stem(w.replace("_", " ")) for w in pair.split("=")) for pair in _DATA["opposites"].split()
)
UNINFORMATIVE = (
    CHANGE
    | ADDITIVE
    | LIGHT
    | _stems(_DATA["filler"])
    | _stems("work job")
    | _UNIT_WORDS
    | _stems(" ".join(NUMBER_WORDS))
)  # words a restatement may add
_LEAVING = "|".join(sorted(plain("leaving"), key=len, reverse=True))
STANCE_WORDS = "|".join(sorted(plain("stance"), key=len, reverse=True))
_LEFT = re.compile(  # "stopped going to the gym": the object after a light gerund; "can no longer handle
    # spicy food": after a stance verb; "their left hand" is no leaving
    rf"(?<!\btheir )(?<!\bthe )(?<!\bmy )(?<!\bhis )(?<!\bher )(?<!\byour )(?<!\bon )"
    rf"\b(?:{_LEAVING})\s+(?:(?:the|my|his|her|their|a|an|at|with|using|to|in|on|off|out|from|of|going|doing|having|reading|watching|learning|playing|writing|drinking|eating|eats|drinks|plays|uses|does|takes|watches|"
    rf"getting|taking|(?:{STANCE_WORDS})(?:s|es|ing)?)\s+)*(?P<obj>[\w+#-]+(?:\.\w+)*(?:\s+[A-Z][\w.+#-]*)?)",
    re.IGNORECASE,
)
_INSTITUTIONS = plain("institutions")
# the polarity itself and the verbs that give something up, not what they are about ("can no longer
# handle spicy food" / "enjoys spicy food again"; "stopped taking sugar" / "takes sugar again")
STANCE = _stems(_DATA["stance"].replace("_", " ")) | _stems(_DATA["leaving"])
_AMBIGUOUS = plain("ambiguous_tools")  # "opera", "fish": a tool only when capitalised
_PREFIXED = re.compile(r"\b(?:non|ex)-(?=[a-z])", re.IGNORECASE)  # "a non-smoker", "an ex-smoker": no longer
_DAY_STEMS = frozenset(stem(f"{d}{s}") for d in DAYS for s in ("", "s"))
_OCCASION = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|(?:last|this|next) (?:night|morning|afternoon|"
    r"evening|week|weekend|month|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b"
)
_DAY_PART = re.compile(rf"\b({'|'.join(sorted(DAYS))})s? (morning|afternoon|evening|night)s?\b")
# a part of the day said of a habit ("studies best early in the morning", "late at night", "in the evenings"),
# a value like a clock time; not one occasion ("this morning", "last night", "on Friday evening")
_HABIT_PART = re.compile(
    r"(?<!\blast )(?<!\bthis )(?<!\bnext )(?<!\btomorrow )(?<!\byesterday )(?<!day )"
    r"\b(?:(?P<edge>early|late)\s+(?:in\s+the\s+|at\s+)?|first\s+thing\s+in\s+the\s+|in\s+the\s+|at\s+|during\s+the\s+)?"
    r"(?P<part>mornings?|afternoons?|evenings?|nights?|lunch(?:times?| breaks?| hours?))\b"
)
_PARTS = ("morning", "afternoon", "evening", "night")
_HELD_ONE = frozenset({"stage"})  # kinds of number a person has one of at a time, whatever else is said
# a year of study or a grade said as one word: "fourth-year", "second-grader"
_STAGE = re.compile(
    r"\b(" + "|".join(_ORDINALS) + r")[- ](?:year|grade|grader|former)s?\b(?! old)", re.IGNORECASE
)
_SIDE = re.compile(r"\b(?:their|the|my|his|her|your|its|on the) (?:left|right)\b", re.IGNORECASE)
_FORMERLY = re.compile(r"\b(?:used to|formerly|no more)\b", re.IGNORECASE)
_TIME = re.compile(r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm)\b|\b\d{1,2}:\d{2}\b")
TOKEN = re.compile(r"[a-z0-9][a-z0-9.+#-]*", re.IGNORECASE)
_RIGHT_NOW = re.compile(r"\bright now\b", re.IGNORECASE)  # "right" is no content word there
_ONE_OF = re.compile(r"\bone of\b", re.IGNORECASE)
NOT_TITLE = "for|in|at|with|on|to|against|the|a|an"  # "plays for Arsenal", "plays the cello": no title
# a role at a named place: "is now a QA lead at Unity" says where someone works
_ROLE_AT = re.compile(
    r"\b(?:is|are)\s+(?:now\s+|currently\s+)?(?:an?|the)\s+(?:[\w-]+\s+){0,3}?(?:at|for)\s+[A-Z]"
)
_NOT_ROLE = _stems("member regular customer patient guest client visitor")
_WORKS = _stems("work employ")
# the role after "works as": "works as a night nurse at St. Mary's" -> "night nurse"
_WORKS_AS = re.compile(
    r"\b(?:works?|working|worked|employed|job)\s+as\s+(?:an?\s+|the\s+)?"
    r"(?P<role>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)(?=\s+(?:at|for|in|with|on|and|but)\b|\s*[,.;]|\s*$)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Frame:
    text: str
    who: Who
    words: frozenset[str]  # the frame: stemmed content words with values and markers masked
    names: frozenset[str]  # names, tools and months, the subject's own name left out
    numbers: frozenset[float]
    units: frozenset[str]  # kinds of the numbers (age, dose, money...), from the words around them
    when: frozenset[str]  # days of the week, clock times, "yesterday", "last night"
    once: bool  # the time is one occasion ("on Sunday", "last night"), not a habit ("on Sundays")
    negative: bool
    markers: frozenset[str]  # change markers ("now", "moved", "switched")
    additive: bool
    left: frozenset[str]  # words of what the statement gives up ("quit Siemens" -> {"siemens"})
    left_head: frozenset[str]  # what each names: "cancelled the Netflix subscription" -> {"netflix"} (_heads)
    kinds: frozenset[str]  # slots its tools and one-at-a-time values fill (phone, diet, ...)
    people: frozenset[str]  # companions and recipients ("with Sam", "a gift for mom"): roles.py
    past: bool  # led by a past-tense verb: one occasion ("went hiking"), not a standing fact
    tokens: frozenset[str]  # the words as written, lowercase (foods are matched on these, not on stems)


@lru_cache(maxsize=4096)
def frame(text: str) -> Frame:
    who = read(text).who
    prefixed = _PREFIXED.search(text) is not None
    text = _STAGE.sub(r"\1 stage", _PREFIXED.sub("", text))  # "a fourth-year med student": stage 4
    tokens = [t.rstrip(".") for t in TOKEN.findall(_RIGHT_NOW.sub("now", text).lower())]
    raw = frozenset(stem(t) for t in tokens)
    times = _TIME.findall(text.lower())
    found = set(number_set(_TIME.sub(" ", text))) | {float(_ORDINALS[t]) for t in tokens if t in _ORDINALS}
    capitalised = {t.lower().rstrip(".") for t in TOKEN.findall(text) if t[:1].isupper()}
    tools = {
        t for t in tokens if (t in TECH_SLOTS and (t not in _AMBIGUOUS or t in capitalised)) or t in MONTHS
    }
    tools |= {
        g
        for n in (2, 3)
        for g in (" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
        if g in TECH_SLOTS
    }  # "vs code", "visual studio code"
    pairs = {
        f"{a} {b.removesuffix('s') if c else b}"
        for a, b in zip(tokens, tokens[1:], strict=False)
        for c in (False, True)
    }  # "night shifts" is the value "night shift"
    listed = {w for w in {*tokens} | pairs if w in LISTED_VALUE}  # as written: "from home"
    exclusive = {LISTED_VALUE[w] for w in listed}  # the value: "remote"
    named = {
        n for n in names(text) | tools | exclusive | everyday.leading_name(text) if not same_name(n, who.name)
    }
    kinds = frozenset(
        {TECH_SLOTS[t] for t in tools if t in TECH_SLOTS}
        | everyday.held_kinds(named, {*tokens} | pairs)
        | {k for k, members in EXCLUSIVE.items() if members & exclusive}
    )
    days = {t for t in tokens if t.removesuffix("s") in DAYS}
    occasions = set(_OCCASION.findall(text.lower()))
    # "monday evening"; "friday night" is "friday evening"
    parts = {
        f"{m.group(1)} {m.group(2).replace('night', 'evening')}" for m in _DAY_PART.finditer(text.lower())
    }
    habit_parts = (
        []
        if parts or occasions & {f"{w} {p}" for w in ("last", "this", "next") for p in _PARTS}
        else [
            m
            for m in _HABIT_PART.finditer(text.lower())
            if m.group("part") != "night" or m.group(0) != "night"
        ]
    )
    when = frozenset(
        {d.removesuffix("s") for d in days if not any(p.startswith(d.removesuffix("s")) for p in parts)}
        | parts
        | set(times)
        | occasions
        | {m.group("part").removesuffix("s") for m in habit_parts}
    )
    once = bool(occasions or days and not any(d.endswith("s") for d in days)) and "every" not in tokens
    all_words = content_words(_RIGHT_NOW.sub("now", text), who.words)
    units = (
        frozenset(kind for kind, unit_words in UNITS.items() if raw & unit_words) if found else frozenset()
    )
    value_words = {stem(w) for phrase in named | when | listed for w in phrase.split()} | {
        stem(w) for m in habit_parts for w in m.group(0).split()
    }  # "early in the morning": the edge too
    masked = all_words - value_words - CHANGE - ADDITIVE - LIGHT
    masked -= _UNIT_WORDS | {stem(t) for t in _ORDINALS} | _DAY_STEMS
    objects = [m.group("obj").lower().split() for m in _LEFT.finditer(text)]
    left = frozenset(w.strip(".") for obj in objects for w in obj)
    negative = negated(text) or prefixed or _FORMERLY.search(text) is not None  # "used to smoke": no more
    markers = raw & CHANGE - ({"left"} if _SIDE.search(text) else set())  # "their left hand" leaves nothing
    return Frame(
        text,
        who,
        frozenset(masked),
        frozenset(named),
        frozenset(found),
        units,
        when,
        once,
        negative,
        markers,
        bool(raw & ADDITIVE - ({"too"} if _TOO_MUCH.search(text) else set())),
        left,
        _heads(objects),
        kinds,
        roles.people(text),
        roles.past_event(text),
        frozenset(tokens),
    )


def _verdict(relation: str, reason: str) -> ConflictVerdict:
    return ConflictVerdict.model_validate({"relation": relation, "reason": reason})


_CAUSE = re.compile(
    r"\s*,?\s+(?:ever since|since|because|due to|thanks to|after) (?:my|his|her|their|the|a|an|i|we|it)\b.*$",
    re.IGNORECASE,
)
_LIVE = stem("live")
_MOVED_TO = re.compile(
    r"\b(?:moved|relocated|moving|relocating)(?: back| out| over| up| down| house| home| away)? (?:to|into|near|outside)\b",
    re.IGNORECASE,
)
_SWAPPED = frozenset(["switched", "swapped", "replaced", "changed"])
# an event trained or entered for (a plan is another matter: a decision about its subject settles it)
_AIM = re.compile(r"\b(?:training|preparing|practi[sc]ing|signed up|registered|entered) for\b", re.IGNORECASE)
# what a business or a home is: a switch told of a part of it ("migrated the bakery's bookkeeping to Xero") does
# not change "owns a small bakery in Galway"
_HOLDS = frozenset(["own", "owns", "owned", "run", "runs", "live", "lives", "based"])
_CONSUME = _stems(
    "drink drinks drinking eat eats eating"
)  # how a food or drink is had says no slot of its own


def _differ(old: Frame, new: Frame) -> bool:
    """Both hold a name the other lacks (``buddhist`` and ``buddhism`` are one name; a name the other
    text writes in lowercase is not lacking: "a Labrador" / "a labrador")."""

    def lacks(a: Frame, b: Frame) -> bool:  # "O-negative" and "O negative" are one name
        low = b.text.lower().replace("-", " ")
        return any(
            not any(same_name(x, y) for y in b.names) and x.replace("-", " ") not in low for x in a.names
        )

    return lacks(old, new) and lacks(new, old)


# verbs that only say an activity is done: the thing done says which ("playing valorant" is "grinding valorant")
_DOING = frozenset(
    stem(w) for w in ("play", "playing", "do", "doing", "use", "using", "go", "going", "watch", "watching")
)


# how an activity is done, not which: "gave up online chess" gives up chess ("sugary drinks" are some drinks)
_MODES = frozenset(
    [
        "online",
        "offline",
        "casual",
        "competitive",
        "regular",
        "daily",
        "weekly",
        "social",
        "recreational",
        "amateur",
        "weekend",
        "evening",
        "morning",
        "nightly",
        "late-night",
        "ranked",
        "blitz",
    ]
)


def _heads(objects: list[list[str]]) -> frozenset[str]:
    """The words that name what is given up: the first of each object ("cancelled the Netflix subscription"
    gives up Netflix), and its last when only modes come before it ("gave up online chess": chess)."""

    def when(w: str) -> bool:  # "the Wednesday Dutch classes": Dutch classes, given up on Wednesdays
        return w.strip(".").removesuffix("s") in DAYS

    first = {next((w for w in o if not when(w)), o[0]).strip(".") for o in objects}
    last = {o[-1].strip(".") for o in objects if len(o) > 1 and all(w in _MODES or when(w) for w in o[:-1])}
    return frozenset(first | last)


def names_differ(existing: str, candidate: str) -> bool:
    """Each names someone or somewhere the other does not (the subject's own name left out)."""
    old, new = frame(existing), frame(candidate)
    return bool(old.names and new.names) and _differ(old, new)


def adds(existing: str, candidate: str) -> bool:
    """The candidate says it adds ("also", "too") and the stored one did not say so itself."""
    return frame(candidate).additive and not frame(existing).additive


def compare(existing: str, candidate: str) -> ConflictVerdict | None:
    """How ``candidate`` relates to ``existing`` by their frames; None when the frames say nothing.
    (An addition, "also ...", is settled before: :func:`adds`.)"""
    # imported here: refinements and giving_up read Frame and the word lists of this module
    from memlane.providers.llm.rules.giving_up import habit_given_up
    from memlane.providers.llm.rules.refinements import refinement

    old, new = frame(existing), frame(candidate)
    if not same_who(old.who, new.who):
        return None
    change = bool(
        new.markers - old.markers or new.left
    )  # a marker both share ("a new flat") announces nothing
    gone = {w for w in new.left if stem(w) in old.words or any(same_name(w, n) for n in old.names)}
    if gone & new.left_head and not old.negative:  # not "gives up subscription" for another subscription
        return _verdict("contradiction", f"the new statement gives up {', '.join(sorted(gone))}")
    if (habit := habit_given_up(old, new)) is not None:
        return _verdict("contradiction", f"the new statement gives up {habit}, which the stored one implies")
    if (
        role := _new_role(old, new, change)
    ) is not None:  # "left the fire service and now works as a paramedic"
        return _verdict("contradiction", f"works as {role[1]} now (was {role[0]})")
    if _retires(old, new):  # "drives lorries for a living" / "retired on Friday after 38 years on the road"
        return _verdict("contradiction", "retired: the work the stored statement describes has ended")
    if new.left:  # "instead of MongoDB" names what changed; this memory does not hold it
        return _verdict("new", f"the change is about {', '.join(sorted(new.left))}, not this memory")
    if old.negative != new.negative:
        neg, pos = (new, old) if new.negative else (old, new)
        if (
            cause := _CAUSE.search(neg.text)
        ) and cause.start() > 0:  # "... anymore since my knee surgery": why, not what
            neg = frame(neg.text[: cause.start()])
        elif (
            ", " in neg.text and len(neg.text.split(", ")[0].split()) >= 4
        ):  # "..., doctor's orders": a comment
            neg = frame(neg.text.split(", ")[0])
        held, content = neg.words | neg.names, pos.words | pos.names
        if (
            not content & _DOING and held - _DOING
        ):  # "not playing valorant anymore" / "grinding ranked valorant"
            held -= _DOING  # (not "watches football" / "doesn't play football anymore": two ways of doing it)
        thing, said = held - STANCE, content - STANCE  # "hates mushrooms" / "has started to like mushrooms":
        # the stance words aside, the same thing; or the newer positive one says it again with more
        # ("stopped swimming" / "is back to swimming every morning")
        if (
            held
            and held <= content
            or thing
            and (thing == said or thing < said and pos is new and new.markers)
        ):
            return _verdict("contradiction", f"opposite stance on {', '.join(sorted(held))}")
        if pos.words and pos.words < neg.words:  # "likes films" / "does not like horror films": an exception
            return _verdict("new", f"an exception: {', '.join(sorted(neg.words - pos.words))}")
        return None
    if (liked := everyday.turned(old, new)) is not None:
        return _verdict("contradiction", f"opposite feelings about {liked}")
    if (why := refinement(old, new)) is not None:
        return _verdict("refinement", why)
    if old.kinds & new.kinds & ONE_TOOL and everyday.for_work(old) != everyday.for_work(
        new
    ):  # "uses Bitwarden" / "has to use
        return _verdict(
            "new", "one tool is for work, the other is the user's own"
        )  # 1Password on the work laptop"
    if (places := everyday.job_elsewhere(old, new)) is not None:
        return _verdict("contradiction", f"the job is at {places[1]} now (was {places[0]})")
    if (
        way := everyday.other_way(old, new)
    ) is not None:  # "takes the train to work" / "switched to driving to work"
        return _verdict("contradiction", f"goes {way[2]} by {way[1]} now (was {way[0]})")
    if (
        (trip := everyday.trip(old)) is not None
        and trip == everyday.trip(new)
        and not (change or old.negative or new.negative)
    ):
        return _verdict(
            "redundancy", f"goes {trip[1]} by {', '.join(sorted(trip[0]))}, said again"
        )  # "daily commute is by train"
    if _moved_home(old, new):  # "lives on a farm near Ames" / "moved to a smaller farm outside Decorah"
        return _verdict("contradiction", f"moved: now {_values(old, new)[1]} (was {_values(old, new)[0]})")
    if (
        new.tokens & _SWAPPED
        and old.when
        and old.when == new.when
        and not (old.once or new.once)
        and not new.additive
        and not old.negative
    ):  # "drinks matcha every morning" / "switched to yerba mate in the mornings"
        return _verdict(
            "contradiction", f"something else at the same time ({', '.join(sorted(new.when))}) now"
        )
    only_old, only_new = old.words - new.words, new.words - old.words
    if not (
        old.words & new.words
        or old.names & new.names
        or old.kinds & new.kinds
        or old.who != USER
        or old.units & new.units & _HELD_ONE
        # one unit and nothing else ("weighs 82 kg" / "is down to 76 kg")
        or old.units == new.units != frozenset()
        and not old.words | new.words | old.names | new.names
        or _institutions(old) & _institutions(new)
    ):  # "University of Leeds" / "University of York"
        return None  # nothing ties the two statements together
    if (
        old.units & new.units & _HELD_ONE
        and old.numbers != new.numbers
        and old.numbers
        and new.numbers
        and not (new.additive or old.negative or new.negative)
    ):  # "a fourth-year med student" / "a fifth-year now"
        was, now = _values(old, new)
        return _verdict(
            "contradiction", f"same {min(old.units & new.units & _HELD_ONE)}, new value {now} (was {was})"
        )
    # two negatives of opposite words say one thing: "hates jazz" / "does not like jazz"
    if (
        len(only_old) == len(only_new) == 1
        and frozenset(only_old | only_new) in OPPOSITES
        and not (old.negative and new.negative)
    ):
        return _verdict("contradiction", f"opposite outcome: {min(only_old)} -> {min(only_new)}")
    if (
        only_old and only_new
    ):  # each says something the other does not: another slot, unless one word was swapped
        # the old verb may go; not for a date the old one lacks ("holds a Ghanaian passport" / "valid until 2036")
        swapped_new = only_new - _CONSUME or only_new  # "takes tea with milk" / "drinks tea black"
        if (
            change
            and len(swapped_new) == 1
            and len(only_old) <= 2
            and old.words & new.words
            and not (_differ(old, new) and old.tokens & _HOLDS)
            and not (new.numbers and not old.numbers)
            and not (old.tokens & ONE_WORD and not new.tokens & ONE_WORD)
        ):
            # (a favourite is not changed by a statement that names none: "go-to shoe is the Hoka" / "picked up
            # some Nike trail shoes")
            return _verdict("contradiction", f"changed from {min(only_old)} to {min(swapped_new)}")
        if change and _differ(old, new) and _employed(old) and _employed(new):
            return _verdict(
                "contradiction", f"works elsewhere now: {_values(old, new)[1]} (was {_values(old, new)[0]})"
            )
        if _listed_differ(old, new) and not (
            new.additive or old.negative or new.negative or old.past or new.past
        ):
            # another value of a list held one at a time: "works fully remote" / "is back in the office full time"
            return _verdict("contradiction", f"changed from {_values(old, new)[0]} to {_values(old, new)[1]}")
        if (slot := _one_tool(old, new)) is not None:
            return _verdict(
                "contradiction", f"another {slot}: {_values(old, new)[1]} (was {_values(old, new)[0]})"
            )
        if (
            all(any(ch.isdigit() for ch in w) for w in only_old | only_new)
            and not new.additive
            and not (old.past or new.past)
            and old.when == new.when
            and old.units == new.units
        ):
            # nothing but the amount differs: "runs 5k three times a week" / "runs 10k three times a week"
            return _verdict("contradiction", f"changed from {min(only_old)} to {min(only_new)}")
        if any(_typed(old, new)):  # "5 km on weekdays" / "15 km on Sundays": both hold
            return _verdict(
                "new", f"different things ({', '.join(sorted(only_old))} / {', '.join(sorted(only_new))})"
            )
        return None  # other words on both sides: a paraphrase or another fact; the similarity decides
    numbers, named, when = _typed(old, new)
    if not (numbers or named or when):
        return None
    was, now = _values(old, new)
    if (
        when and named and old.past and new.past and not change
    ):  # "a job interview at Siemens on Monday" / "at Bosch on Thursday"
        return _verdict(
            "new", f"two occasions ({', '.join(sorted(old.when))} / {', '.join(sorted(new.when))})"
        )
    # a change marker changes a value of the same kind ("aisle seat" is no date: "train moved to June 3")
    if (
        change
        and _comparable(old, new)
        and _aims(old) == _aims(new)
        or named
        and not old.past
        and (old.kinds & new.kinds or old.words & new.words & ONE_AT_A_TIME or _one_favourite(old, new))
    ):
        return _verdict("contradiction", f"changed from {was} to {now}")
    if (
        named and old.once and old.when == new.when and not numbers
    ):  # one occasion, told again with another place
        return _verdict(
            "contradiction", f"same occasion ({', '.join(sorted(old.when))}), now {now} (was {was})"
        )
    if (
        (numbers or when) and not named and not (numbers and when)
    ):  # one value at a time: an age, a dose, a date
        kind = "/".join(sorted(old.units | new.units)) or "attribute"
        return _verdict("contradiction", f"same {kind}, new value {now} (was {was})")
    return _verdict("new", f"same kind of statement about other values ({was} / {now})")


def _aims(f: Frame) -> bool:
    """The statement is about an event aimed at ("training for the Tour du Mont Blanc in August"), which a
    habit told with a change marker ("has been hiking in the Peak District lately") does not change."""
    return _AIM.search(f.text) is not None


def _role(f: Frame) -> str:
    """The role a statement says someone works as ("works as a night nurse at St. Mary's" -> "night nurse")."""
    m = _WORKS_AS.search(f.text)
    if m is None or negated(" ".join(f.text[: m.end()].split()[-6:])):  # "no longer works as a chef"
        return ""
    return m.group("role").lower()


def _new_role(old: Frame, new: Frame, change: bool) -> tuple[str, str] | None:
    """The same subject works as another role now: a change whoever the subject is, whatever else the new
    statement gives up on the way ("left the fire service and now works as a paramedic")."""
    was, now = _role(old), _role(new)
    if not (change and was and now) or {stem(w) for w in was.split()} & {stem(w) for w in now.split()}:
        return None
    return None if new.additive else (was, now)


def _employed(f: Frame) -> bool:
    """The statement says where someone works: "works as a tester at Ubisoft", "is now a QA lead at Unity"."""
    role = _ROLE_AT.search(f.text) is not None and not f.words & _NOT_ROLE
    return bool(f.names) and not f.negative and (bool(f.words & _WORKS) or role)


RETIRED = re.compile(
    r"^(?:the )?user (?:has |just |finally |officially )*retired\b(?! from (?!work|the job|(?:their|his|her) job))",
    re.IGNORECASE,
)
_FOR_A_LIVING = re.compile(
    r"\b(?:for a living|works?|working|employed|job|career|profession)\b", re.IGNORECASE
)


def _retires(old: Frame, new: Frame) -> bool:
    """The user retired (not "retired from the choir"): what they did for a living has ended."""
    return (
        RETIRED.match(new.text) is not None
        and old.who == new.who
        and not old.negative
        and _FOR_A_LIVING.search(old.text) is not None
        and not RETIRED.match(old.text)
    )


_WORKPLACE = _stems("office team job company firm department desk branch site work")


def _moved_home(old: Frame, new: Frame) -> bool:
    """A home named by place, then a move to another named place: where the user lives now. Not a move at
    work ("moved to the Leeds office") nor anyone else's."""
    return (
        _MOVED_TO.search(new.text) is not None
        and _LIVE in old.words
        and bool(old.names)
        and bool(new.names)
        and not old.names & new.names
        and not (new.words | old.words) & _WORKPLACE
        and not new.negative
    )


def _one_favourite(old: Frame, new: Frame) -> bool:
    """Both name "the favourite" of one frame ("favourite band"), neither "one of" them."""
    return bool(old.tokens & new.tokens & ONE_WORD) and not (
        _ONE_OF.search(old.text) or _ONE_OF.search(new.text)
    )


_WORKS_AT = re.compile(r"\b(?:works?|working|worked|employed|jobs?)\b[^.]*?\b(?:at|for|by)\b", re.IGNORECASE)


def _one_tool(old: Frame, new: Frame) -> str | None:
    """The slot both fill with other tools when it holds one at a time (a phone, a main editor); not
    when the new statement is negated or says it adds."""
    shared = old.kinds & new.kinds & ONE_TOOL
    if (
        not shared
        or new.negative
        or old.negative
        or new.additive
        or any(_WORKS_AT.search(f.text) for f in (old, new))
    ):
        return None  # "works at Vodafone" names an employer, not a carrier
    if not (_listed_differ(old, new) or _differ(old, new)):
        return None
    return min(shared)


def _listed_differ(old: Frame, new: Frame) -> bool:
    """Two members of one list of values held one at a time, though they share a word ("dark mode" / "light mode")."""
    return any(
        old.names & EXCLUSIVE[k] != new.names & EXCLUSIVE[k] for k in old.kinds & new.kinds & EXCLUSIVE.keys()
    )


def _comparable(old: Frame, new: Frame) -> bool:
    """Their values can be one slot's: kinds shared or none on either side, or a tool on one side only
    ("VS Code" the lexicon misses / "Neovim"), or the same statement apart from them ("budgets in a google sheets
    spreadsheet" / "budgets in a YNAB spreadsheet now"); not a one-at-a-time value against none ("aisle" / a date)."""
    if old.kinds & new.kinds or old.kinds == new.kinds or old.words == new.words != frozenset():
        return True
    return not (old.kinds and new.kinds) and not (old.kinds | new.kinds) & EXCLUSIVE.keys()


def _institutions(f: Frame) -> set[str]:
    return {w for n in f.names for w in n.split()} & _INSTITUTIONS


def _typed(old: Frame, new: Frame) -> tuple[bool, bool, bool]:
    """Which kinds of value differ: numbers (of one unit), names, times."""
    numbers = bool(old.numbers and new.numbers and old.numbers != new.numbers) and (
        not (old.units and new.units) or bool(old.units & new.units)
    )
    return numbers, _differ(old, new) or _listed_differ(old, new), times_differ(old.when, new.when)


def _values(old: Frame, new: Frame) -> tuple[str, str]:
    def show(f: Frame, other: Frame) -> str:
        parts = [f"{v:g}" for v in sorted(f.numbers - other.numbers)] + sorted(f.names - other.names)
        return ", ".join(parts + sorted(f.when - other.when)) or "-"

    return show(old, new), show(new, old)
