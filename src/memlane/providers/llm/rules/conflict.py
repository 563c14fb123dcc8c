"""Conflict classification as heuristics: contradiction, refinement, redundancy or new.

Order of checks: identical text -> different subjects (new) -> same slot (redundant value, more
specific value, or a different value) -> cross-slot knowledge (diets vs foods, "switched from X",
hypernyms such as TypeScript -> JavaScript) -> word overlap, numbers and polarity.
"""

from __future__ import annotations

import re

from memlane.model.candidate import ConflictVerdict, Relation
from memlane.providers.llm.rules import chronotype, frames, roles, slot_sense
from memlane.providers.llm.rules.acronyms import spell_out
from memlane.providers.llm.rules.answer_aspects import aspects, same_leaning
from memlane.providers.llm.rules.compare import (
    Reading,
    content_words,
    jaccard,
    names,
    negated,
    number_set,
    read,
    same_slot,
    same_subject,
    same_value,
    similarity,
    statement,
)
from memlane.providers.llm.rules.frame_data import LISTED_VALUE
from memlane.providers.llm.rules.lexicon_world import (
    COUNTRIES,
    DIET_EXCLUDES,
    FOOD_GROUPS,
    GENERAL_FOODS,
    HYPERNYMS,
)
from memlane.providers.llm.rules.same_fact import answer_style, liked_less

SAME = 0.7
NUMBER_CONFLICT = 0.5
POLARITY_FLIP = 0.75
_SWITCH = re.compile(
    # "moved all their notes from Evernote to Obsidian": a short object between the verb and "from"
    r"\b(?:switched|moved|migrated|changed|went|converted|transferred|ported) (?:over )?(?:[\w'-]+ ){0,4}?"
    r"from (?P<old>.+?) (?:to|for)\b",
    re.I,
)
_GRAMS = re.compile(r"[a-z][a-z'-]*")
_CHANGED = re.compile(r"\b(?:now|anymore|no longer|switched|changed|moved|instead|new)\b", re.IGNORECASE)
_PREFER = re.compile(r"\bprefer", re.IGNORECASE)  # a preference ranks one value over the others
# an amount of a habit: "10 a day", "half a pack a day", "twice a week"
_AMOUNT = re.compile(
    r"\b(?:\d+|half|a couple|a few|once|twice|\w+ times)\b[\w ]{0,20}?\b(?:a|an|per|every|each) "
    r"(?:day|week|month|night|morning|evening)\b",
    re.IGNORECASE,
)


def _kind_of_thing(candidate: str, added: frozenset[str], old_words: frozenset[str]) -> bool:
    """An added word stands right before the candidate's last word, which the stored one has: it names a kind of
    that thing ("reads fantasy" / "reads grimdark fantasy"), not a manner ("really", "now")."""
    said = [
        next(iter(content_words(w)), None) for w in _words(candidate)
    ]  # None for a word that says nothing
    while said and said[-1] is None:
        said.pop()
    return len(said) >= 2 and said[-2] in added and said[-1] in old_words


def _verdict(relation: Relation, reason: str) -> ConflictVerdict:
    return ConflictVerdict(relation=relation, reason=reason)


def _words(text: str) -> list[str]:
    return _GRAMS.findall(text.lower())


def _grams(text: str) -> set[str]:
    w = _words(text)
    return {" ".join(w[i : i + n]) for n in (1, 2, 3) for i in range(len(w) - n + 1)}


def _groups(text: str) -> set[str]:
    """Food groups a text mentions (``steak`` -> meat) and those a diet in it excludes."""
    grams = _grams(text)
    found = {g for g, foods in FOOD_GROUPS.items() if grams & foods}
    for diet, excluded in DIET_EXCLUDES.items():
        if diet in grams:
            found |= set(excluded)
    return found


_EATS = re.compile(r"\b(?:eat|eats|eating|ate|orders|ordering|cooks|cooking)\b", re.IGNORECASE)


def _diet_clash(old: Reading, new: Reading) -> bool:
    """One eats/likes a food the other says is not eaten (``loves steak`` vs ``does not eat meat``)."""

    def avoids(r: Reading) -> set[str]:
        grams = _grams(r.text)
        diets = {g for d, ex in DIET_EXCLUDES.items() if d in grams and r.positive for g in ex}
        negative_food = (
            _groups(r.text)
            if not r.positive and (r.key or "").startswith(("profile:diet", "pref:"))
            else set()
        )
        return diets | negative_food

    def enjoys(r: Reading) -> set[str]:  # a liking, or eating told as it is ("started eating fish again")
        if not r.positive or not (
            (r.key or "").startswith(("profile:diet:", "pref:")) or _EATS.search(r.text)
        ):
            return set()
        return {g for g, foods in FOOD_GROUPS.items() if _grams(r.text) & foods}

    return bool(avoids(old) & enjoys(new) or avoids(new) & enjoys(old))


def _exception(old: Reading, new: Reading) -> str | None:
    """``loves seafood`` / ``dislikes oysters``: a dislike of one food under a group the other likes
    as a whole is an exception, and both hold (a diet, "does not eat fish", is no dislike of one food)."""
    pos, neg = (old, new) if old.positive and not new.positive else (new, old)
    if not pos.positive or neg.positive or _grams(neg.text) & set(DIET_EXCLUDES):
        return None
    broad, narrow = (frames.frame(r.text).words - frames.STANCE for r in (pos, neg))
    gives_up = (
        frames.frame(neg.text).left or frames.frame(neg.text).markers
    )  # "gave up Japanese": no exception
    if broad and broad < narrow and not gives_up:  # "a big fan of cheese" / "cannot stand blue cheese"
        return ", ".join(sorted(narrow - broad))
    liked, disliked = _grams(pos.text), _grams(neg.text)
    for foods in FOOD_GROUPS.values():
        general, specific = liked & foods, disliked & foods
        if general and general <= GENERAL_FOODS and specific and not specific & GENERAL_FOODS:
            return ", ".join(sorted(specific))
    return None


def _more_specific(specific: str, general: str) -> bool:
    """``golden retriever`` under ``dog``, ``TypeScript`` under ``JavaScript``, ``steak`` under ``meat``."""
    general_grams = _grams(general)
    for gram in _grams(specific):
        if HYPERNYMS.get(gram) in general_grams:
            return True
        if any(
            gram in foods and gram != group and group in general_grams for group, foods in FOOD_GROUPS.items()
        ):
            return True
    return False


def _family(r: Reading) -> str:
    """Slots that can refine one another: tastes (likes and diet), pets, tech, or the key itself."""
    key = r.key or r.slot or ""
    if key.startswith(("pref:", "profile:diet")) or ":pref:" in key:
        return "taste"
    if key.startswith(("profile:pet", "tech:")):
        return key.split(":")[1] if key.startswith("tech:") else "pet"
    return key


def _is_country(value: str) -> bool:
    v = value.lower().strip()
    return v in COUNTRIES or v.removeprefix("the ") in COUNTRIES


def _one_listed_value(a: str, b: str) -> bool:
    return (
        a != b
        and LISTED_VALUE.get(a.lower()) is not None
        and LISTED_VALUE.get(a.lower()) == LISTED_VALUE.get(b.lower())
    )


def _same_slot(old: Reading, new: Reading) -> ConflictVerdict:
    slot = old.key or old.slot
    if old.positive != new.positive:
        return _verdict("contradiction", f"same slot {slot}, opposite polarity")
    if same_value(old, new) or _one_listed_value(old.value, new.value):  # "remotely" / "from home"
        if (by_frame := frames.compare(old.text, new.text)) and by_frame.relation == "contradiction":
            return by_frame  # "works as a nurse at St. Mary's" -> "now works as a nurse at the Royal Free"
        extra = new.words - old.words - frames.UNINFORMATIVE
        detail = names(new.text) - names(old.text) or number_set(new.text) - number_set(old.text)
        if extra and old.words <= new.words and (detail or len(extra) >= 2):
            return _verdict("refinement", f"same slot {slot} and value, adds {', '.join(sorted(extra))}")
        swapped_out, swapped_in = old.words - new.words, new.words - old.words
        if len(swapped_out) == len(swapped_in) == 1 and _PREFER.search(old.text) and _PREFER.search(new.text):
            # the slot's value read too coarsely ("working"): one word swapped in a preference is the value changed
            return _verdict("contradiction", f"same slot {slot}, {min(swapped_out)} -> {min(swapped_in)}")
        if names(old.text) and names(new.text) and not names(old.text) & names(new.text):
            # ... or other names in it: "walking in the Cotswolds" / "walking in the Chilterns" both hold
            return _verdict("new", f"same slot {slot}, other names ({', '.join(sorted(names(new.text)))})")
        if (
            extra and _AMOUNT.search(new.text) and not _AMOUNT.search(old.text)
        ):  # "smokes" -> "half a pack a day"
            return _verdict("refinement", f"same slot {slot} and value, told with an amount")
        return _verdict("redundancy", f"same slot {slot} and value {new.value!r}")
    if (style := answer_style(old.words)) and style == answer_style(new.words):  # "in" / "written in Spanish"
        return _verdict("redundancy", f"both ask for {', '.join(sorted(style))} answers")
    if (
        slot
        and slot.startswith("pref:answer")
        and (was := aspects(old.value))
        and (now := aspects(new.value))
        and not was & now
    ):
        return _verdict(
            "new", f"another aspect of answers ({', '.join(sorted(now))}, not {', '.join(sorted(was))})"
        )
    if _is_country(old.value) and not _is_country(new.value):
        return _verdict("refinement", f"{new.value!r} is more precise than the country {old.value!r}")
    old_words, new_words = set(old.value.replace(",", " ").split()), set(new.value.replace(",", " ").split())
    if new_words and new_words < old_words:
        return _verdict("redundancy", f"{new.value!r} restates the more precise {old.value!r}")
    if old_words and old_words < new_words or _more_specific(new.value, old.value):
        return _verdict("refinement", f"{new.value!r} is a more specific {old.value!r}")
    if (by_frame := frames.compare(old.text, new.text)) and by_frame.relation == "refinement":
        return by_frame  # "owns a car" / "drives a Toyota Corolla": a kind of the general value
    return _verdict("contradiction", f"same slot {slot}, value changed from {old.value!r} to {new.value!r}")


def _said_again(existing: str, candidate: str) -> bool:
    """Neither negated, and the candidate says no change and no addition: it may only say the other again."""
    return not (
        negated(existing)
        or negated(candidate)
        or frames.adds(existing, candidate)
        or _CHANGED.search(candidate)
    )


def _same_named_thing(
    existing: str, candidate: str, old_words: frozenset[str], new_words: frozenset[str]
) -> str | None:
    """A name of two or more words both give, and another word they share ("got the PADI Open Water
    certification" / "became a certified Open Water diver"): one thing told twice. Not a name alone ("works
    at Blue Bottle Coffee" / "is a barista at Blue Bottle Coffee" are two facts)."""
    if not _said_again(existing, candidate):
        return None
    pairs = [(a, b) if len(a) <= len(b) else (b, a) for a in names(existing) for b in names(candidate)]
    shared = {short for short, long in pairs if " " in short and re.search(rf"\b{re.escape(short)}\b", long)}
    if not shared:
        return None
    name_words = {w for n in shared for w in content_words(n)}
    # "certification" / "certified": the same word however it ends
    common = {
        a for a in old_words - name_words for b in new_words - name_words if len(a) >= 5 and a[:5] == b[:5]
    }
    return min(shared) if common else None


# a thing of two words or more the user has or uses: "works at a standing desk", "has got a standing desk in ..."
_USED = re.compile(
    r"\b(?:has|have|had|got|uses|use|using|owns|own|works? (?:at|on|with)|sits? (?:at|on))\s+"
    r"(?:got\s+)?(?:an?|the|their|his|her|my)\s+(?P<thing>[a-z][\w-]*(?:\s+[a-z][\w-]*){1,2}?)"
    r"(?=\s+(?:in|at|on|for|that|which|when|while|every|all|to|from)\b|[.,]?$)"
)


def _same_thing_used(existing: str, candidate: str) -> str | None:
    """The same thing of two words or more had or used in both, and no change, negation or addition."""
    if not _said_again(existing, candidate):
        return None
    if frames.frame(candidate).when or re.search(r"\b(?:every|each|daily|weekly)\b", candidate):
        return None  # "uses the home gym every morning" tells a habit the other does not
    a, b = _USED.search(existing), _USED.search(candidate)
    if a is None or b is None or a.group("thing") != b.group("thing"):
        return None
    return a.group("thing")


_WHO_IS = re.compile(
    r"\b(?:called|named) (?P<name>[A-Z][\w'-]*),? (?:who|which|that) (?P<rest>(?:is|has|was|weighs)\b.+)$"
)


def _said_of(text: str, other: Reading) -> str | None:
    """What ``text`` says, in a relative clause, of the one the other statement is about: "User has a tortoise
    called Biscuit who is 11 years old" says "Biscuit is 11 years old"."""
    m = _WHO_IS.search(text)
    if m is None or not other.who.name or m.group("name").lower() != other.who.name.lower():
        return None
    return f"{m.group('name')} {m.group('rest')}"


def _mentions(text: str, other: Reading) -> bool:
    """The text names the other statement's subject: its name, or a word of its noun's stem
    ("manages" for a manager, "grandma" for a grandmother)."""
    low = text.lower()
    if other.who.kind == "user" or not (other.who.name or other.who.noun):
        return False
    if other.who.name:
        return other.who.name in low
    return re.search(rf"\b{re.escape(other.who.noun[:5])}", low) is not None


def _same_names(existing: str, candidate: str) -> bool:
    return bool(names(existing) & names(candidate))


# how a preference against something is put: "wants answers without emojis", "prefers replies with no emoji",
# "dislikes emojis in the assistant's replies" say one thing
_AVERSION_FRAME = frames.STANCE | content_words(
    "want wants prefer prefers without contain contains include includes assistant use uses avoid avoids that"
)


_WITHOUT = re.compile(r"\bwithout\b", re.IGNORECASE)


def _against(text: str) -> bool:
    return negated(text) or _WITHOUT.search(text) is not None


def _same_aversion(existing: str, candidate: str, old: frozenset[str], new: frozenset[str]) -> frozenset[str]:
    """What two statements against something are both against, when that is all either says (the way it is put
    aside): "drinks black tea without milk" says more than what it is against, so it is no aversion."""
    if not (_against(existing) and _against(candidate)):
        return frozenset()
    a, b = old - _AVERSION_FRAME, new - _AVERSION_FRAME
    return a if a and a == b else frozenset()


_NAMES_KIND = re.compile(r"\b(?:is|'s) an? [\w -]+|\b(?:called|named)\b", re.IGNORECASE)


def _pet_told(old: Reading, new: Reading) -> ConflictVerdict | None:
    """ "has a pet snake" / "User's snake is a ball python called Noodle": the pet the user has, told with its
    kind or name (a refinement; said the other way round, nothing new)."""
    told: tuple[tuple[Reading, Reading, Relation], ...] = ((old, new, "refinement"), (new, old, "redundancy"))
    for owner, pet, relation in told:
        noun = (owner.key or "").removeprefix("profile:pets:")
        if (
            owner.who.kind == "user"
            and noun != (owner.key or "")
            and pet.who.kind == "pet"
            and pet.who.noun == noun
            and (pet.positive and _NAMES_KIND.search(pet.text.split(noun, 1)[-1]))
        ):
            return _verdict(relation, f"the user's {noun}, told with its kind or name")
    return None


def classify(existing: str, candidate: str) -> ConflictVerdict:
    existing, candidate = statement(existing), statement(candidate)
    candidate, existing = (
        spell_out(existing, candidate),
        spell_out(candidate, existing),
    )  # "wow" / "World of Warcraft"
    if " ".join(existing.lower().split()).strip(". ") == " ".join(candidate.lower().split()).strip(". "):
        return _verdict("redundancy", "identical text")
    old, new = read(existing), read(candidate)
    if (told := _pet_told(old, new)) is not None:
        return told
    if not same_subject(old, new):
        if (
            said := _said_of(existing, new)
        ) is not None:  # "has a tortoise called Biscuit who is 11" / "Biscuit is 12"
            return classify(said, candidate)
        if (said := _said_of(candidate, old)) is not None:
            return classify(existing, said)
        if _mentions(existing, new) or _mentions(candidate, old) or _same_names(existing, candidate):
            return _verdict("unsure", f"subjects read differently ({old.who} vs {new.who})")
        return _verdict("new", f"about different subjects ({old.who} vs {new.who})")
    if frames.adds(existing, candidate):
        return _verdict("new", "the new statement adds to what is known (also, another, too)")
    if others := roles.other_people(existing, candidate):  # "hiked with Sam" / "hiked with Ana": two events
        return _verdict("new", f"the same kind of event with other people ({', '.join(sorted(others))})")
    if (leans := same_leaning(existing, candidate)) is not None:  # "brief answers" / "no long walls of text"
        return _verdict(
            "redundancy" if leans else "contradiction",
            "the same style of answers asked for" if leans else "the opposite style of answers asked for",
        )
    if (
        timing := chronotype.compare(existing, candidate)
    ) is not None:  # "a night owl" / "bed at 2am is normal"
        return _verdict(*timing)
    if same_slot(old, new):
        return _same_slot(old, new)
    if negated(existing) != negated(candidate) and (less := liked_less(existing, candidate)) is not None:
        return _verdict("unsure", f"both like {less} less (a comparative preference)")  # no retirement
    if (exception := _exception(old, new)) is not None:
        return _verdict("new", f"an exception both hold: {exception}")
    if _diet_clash(old, new):
        return _verdict("contradiction", "a diet or food statement contradicts the other")
    switch = _SWITCH.search(candidate)
    if switch and content_words(switch.group("old")) & old.words:
        return _verdict("contradiction", f"candidate switched away from {switch.group('old')!r}")
    old_words, new_words = old.words, new.words
    if (
        old.positive == new.positive
        and _family(old) == _family(new) != ""
        and _more_specific(candidate, existing)
        and not _more_specific(existing, candidate)
    ):
        return _verdict("refinement", "candidate names a more specific kind of the same thing")
    if against := _same_aversion(existing, candidate, old.words, new.words):
        return _verdict("redundancy", f"the same thing not wanted, said again ({', '.join(sorted(against))})")
    if (by_frame := frames.compare(existing, candidate)) is not None:
        return by_frame
    if frames.names_differ(existing, candidate):
        return _verdict("new", "different names or places, no shared slot")
    score = similarity(old_words, new_words)
    if negated(existing) != negated(candidate):
        if jaccard(old_words, new_words) >= POLARITY_FLIP:
            return _verdict("contradiction", f"opposite polarity over the same content ({score:.0%} overlap)")
        return _verdict("unsure", "opposite polarity over different content")
    old_numbers, new_numbers = number_set(existing), number_set(candidate)
    if old_numbers and new_numbers and old_numbers != new_numbers and score >= NUMBER_CONFLICT:
        return _verdict(
            "contradiction", f"same content ({score:.0%} overlap) with different numbers or dates"
        )
    if (style := answer_style(old_words)) and style == answer_style(new_words):
        return _verdict("redundancy", f"both ask for {', '.join(sorted(style))} answers")
    if score >= SAME:
        added = new_words - old_words - frames.UNINFORMATIVE
        detail = names(candidate) - names(existing) or number_set(candidate) - number_set(existing)
        if (
            number_set(candidate) - number_set(existing) and new_words < old_words
        ):  # "rents a flat in Croydon" /
            return _verdict(
                "unsure", "a value the stored statement does not hold"
            )  # "rent is £1,450 a month"
        # one more word is a restatement, unless it names a kind of the thing ("grimdark fantasy", "fly fishing")
        if (
            old_words < new_words
            and added
            and (detail or len(added) >= 2 or _kind_of_thing(candidate, added, old_words))
        ):
            return _verdict("refinement", f"adds {', '.join(sorted(added))} to the same fact")
        return _verdict("redundancy", f"content-word overlap {score:.0%}")
    if not score and bool(old_numbers) != bool(new_numbers):  # "Ava is 5" / "Ava just started kindergarten"
        return _verdict("new", "no word in common, and only one states a number")
    if (named := _same_named_thing(existing, candidate, old_words, new_words)) is not None:
        return _verdict("redundancy", f"the same {named}, said another way")
    if (thing := _same_thing_used(existing, candidate)) is not None:
        return _verdict("redundancy", f"the same {thing}, had or used (said another way)")
    return slot_sense.same_slot(existing, candidate) or _verdict(
        "unsure", f"content-word overlap {score:.0%}, no shared slot"
    )
