"""Who a clause is about, and the clause rewritten in first person for that subject.

``"my sister Marta lives in Paris"`` -> (sister Marta, ``"I live in Paris"``);
``"Luna turned 4"`` with Luna known as a dog -> (dog Luna, ``"I turned 4"``);
``"my dog's name is Rex"`` -> (user, ``"I have a dog named Rex"``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from memlane.providers.llm.rules.facts import Clause, Subject
from memlane.providers.llm.rules.lexicon import (
    CAT_BREEDS,
    DOG_BREEDS,
    NOT_NAMES,
    PET_SPECIES,
    PLURAL_RELATIONS,
    RELATION_ALIASES,
    RELATIONS,
    words,
)
from memlane.providers.llm.rules.render import deconjugate
from memlane.providers.llm.rules.text import singular

_I = re.IGNORECASE
_NAME = r"(?P<name>[A-Z][\w'-]+(?: [A-Z][\w'-]+)?)"
_ADJ = (
    r"(?:(?:little|baby|older|younger|elder|big|old|new|oldest|youngest|eldest|best|twin|two|three|"
    r"senior|rescue|sweet|lovely|beloved|step)\s+)*"
)
_PREDICATE_START = re.compile(
    r"^(?:(?:also|still|now|just|really|currently|recently|finally|already|no longer|never|always|"
    r"usually|absolutely|totally)\s+)*(?:is|are|was|were|has|have|had|turned|turns|lives|live|works|"
    r"work|loves|love|likes|like|hates|hate|does|do|did|speaks|speak|studies|study|plays|play|eats|eat|"
    r"drinks|drink|moved|got|became|started|goes|go|owns|own|enjoys|enjoy|prefers|prefer|takes|take|"
    r"runs|run|teaches|teach|uses|use|wants|want|needs|need|can|cannot|will|is not|are not|hates|"
    r"[a-z]{3,}(?<![su])s)\b",  # any verb in the third person: "my dad coaches a football team"
    _I,
)
_MY = r"(?:[Mm]y|[Oo]ur)"
_NAMING = re.compile(rf"^{_MY} {_ADJ}(?P<noun>[\w -]+?)(?:'s name is| is called| is named| goes by) {_NAME}$")
# "oh and a tortoise called Gerald": a pet or relative named with no verb, after others just listed
_FRAGMENT_NAMED = re.compile(
    rf"^(?:also |plus )?(?:a|an) {_ADJ}(?P<noun>[\w -]+?) (?:called|named) {_NAME}"
    r"(?=$|,? (?:who|which|that)\b)"
)  # "... called Rex who is the boss of the house"
_NAME_IS_MY = re.compile(rf"^{_NAME} is {_MY} {_ADJ}(?P<noun>[\w -]+)$")
_GROUP = re.compile(rf"^{_MY} {_ADJ}(?P<noun>[a-z][\w-]*(?: [a-z][\w-]*)?) and I (?P<rest>.+)$")
_HAVE_WHO = re.compile(
    rf"^I (?:also )?have (?:a|an|one) {_ADJ}(?P<noun>[a-z][\w-]*(?: [a-z][\w-]*)?)(?:,? (?:named|called) "
    rf"{_NAME},?)? who (?P<rest>.+)$"
)
_VERB_START = re.compile(
    r"^(?:(?:just|recently|finally|also|still|now|currently|really|absolutely|totally|officially)\s+)*"
    r"(?:moved|relocated|live|work|started|got|adopted|love|hate|speak|study|have|had|became|decided|quit|"
    r"joined|passed|finished|graduated|switched|eat|drink|prefer|use|enjoy|turned|bought|booked|"
    r"signed up|learning|living|working|studying|training|been|put down|paid|sold|went|made|took|left|ran|tried|"
    r"gave|got rid of|cut out|broke up with|"
    r"[a-z]{3,}(?<!need)(?<!feed)(?<!seed)(?<!speed)(?<!embed)ed)\b",
    _I,
)
# a frequency adverb opening a sentence before a verb: the user's habit, "I" dropped (not a request to the
# assistant: "always use metric units with me", "never answer in French")
_HABIT_START = re.compile(
    r"^(?:usually|always|often|normally|generally|mostly|sometimes|never) "
    r"(?!(?:been|the|a|an|my|our|it|he|she|they|we|you|this|that|there|i|on|in|at|use|answer|reply|respond|give|"
    r"tell|call|write|show|remind|ask|keep|include|format|explain|say|add|check|assume|mention|talk|speak)\b)"
    r"[a-z]{2,}\b",
    _I,
)
_PRONOUN_PET = re.compile(rf"^(?:he|she|it) is (?P<what>an? [\w -]+?) (?:named|called) {_NAME}(?:,.*)?$", _I)
_CALL_ME = re.compile(r"^(?:(?:you can |please |just )?call me|(?:everyone|people|friends) calls? me)\b", _I)
_FAVOURITE_OF = re.compile(  # "aged Gouda, that's my favourite cheese by far"
    rf"^(?P<v>[\w' .-]+?)(?: is|,? (?:that|which|it) is|,? (?:those|these|they) are) {_MY} "
    rf"(?P<adj>(?:all-time |absolute |very )?(?:favou?rites?|faves?|go-to)) ?"
    rf"(?P<thing>[\w -]+?)?(?: by far| of all time| ever| of all)?$"
)
_ADJ_WORDS = words(
    "little baby older younger elder big old new oldest youngest eldest best twin senior rescue sweet "
    "lovely beloved step two three"
)
_NAMED_START = re.compile(rf"^{_NAME} (?P<rest>.+)$")
_PRONOUN_START = re.compile(r"^(?P<pron>he|she|they|it) (?P<rest>.+)$", _I)


def pet_or_relation(noun: str) -> tuple[str, str, bool] | None:
    """``("pet", "dog", plural)`` / ``("relation", "sister", plural)`` for a noun phrase, else None."""
    low = noun.lower().strip()
    low = RELATION_ALIASES.get(low, low)
    if low in RELATIONS:
        return "relation", low, low in PLURAL_RELATIONS
    one = singular(low)
    one = RELATION_ALIASES.get(one, one)
    if one in RELATIONS:
        return "relation", one, one != low
    for species in (low, one):
        if species in PET_SPECIES or species in DOG_BREEDS or species in CAT_BREEDS:
            return "pet", species, species != low
    return None


def _is_name(word: str | None) -> bool:
    return bool(word) and word is not None and word.split()[0].lower() not in NOT_NAMES


def parse(text: str, known: Mapping[str, Subject], last: Subject | None = None) -> Clause | None:
    """The subject and first-person clause of ``text``; None when it is about something else."""
    first = text.split(" ", 1)[0]
    if first.islower() and first in known and known[first].name:  # "biscuit had her 10th bday": a known name
        text = first.capitalize() + text[len(first) :]
    m = _HAVE_WHO.match(text)
    if m and (found := pet_or_relation(m.group("noun"))):
        return Clause("I " + deconjugate(m.group("rest")), _subject(found, m.group("name"), known))
    if re.match(r"I\b", text) or _CALL_ME.match(text):
        return Clause(text)
    if re.match(r"we\b", text, _I):
        return Clause("I " + deconjugate(text[3:]))
    m = _NAMING.match(text)
    if m and _is_name(m.group("name")):
        found = pet_or_relation(m.group("noun"))
        if found and found[0] == "pet":
            return Clause(f"I have a {found[1]} named {m.group('name')}")
        if found:
            return Clause(f"my name is {m.group('name')}", Subject("relation", found[1], None, found[2]))
    m = _FRAGMENT_NAMED.match(text)
    if m and _is_name(m.group("name")) and (pet_or_relation(m.group("noun")) or _a_pet(m.group("noun"))):
        return Clause("I have " + m.group(0).removeprefix("also ").removeprefix("plus "))
    m = _NAME_IS_MY.match(text)
    if m and _is_name(m.group("name")):
        found = pet_or_relation(m.group("noun"))
        if found and found[0] == "relation":
            return Clause(f"my name is {m.group('name')}", Subject("relation", found[1], None, found[2]))
    m = _FAVOURITE_OF.match(text)
    if m and m.group("thing"):
        return Clause(f"my {m.group('adj')} {m.group('thing')} is {m.group('v')}")
    if m:  # "tacos al pastor, those are my absolute favourite": a liking, the kind of thing not said
        return Clause(f"I love {m.group('v')}")
    m = _GROUP.match(text)
    if m and (found := pet_or_relation(m.group("noun"))):
        return Clause("I " + m.group("rest"), Subject("group", found[1], None, True))
    possessed = _possessed(text)
    if possessed is not None:
        found, name, rest = possessed
        if rest.startswith("'s "):
            return Clause("my " + rest[3:], _subject(found, name, known))
        if _PREDICATE_START.match(rest):
            return Clause("I " + deconjugate(rest), _subject(found, name, known))
        return None
    if re.match(r"(?:my|our|one of my)\b", text, _I):
        return Clause(re.sub(r"^our\b", "my", text, flags=_I))
    m = _NAMED_START.match(text)
    if m and m.group("name").lower().endswith("'s") and m.group("name").lower()[:-2] in known:
        return Clause("my " + m.group("rest"), known[m.group("name").lower()[:-2]])  # "Elsie's party is ..."
    if m and _is_name(m.group("name")) and _PREDICATE_START.match(m.group("rest")):
        subject = known.get(m.group("name").lower()) or Subject("entity", None, m.group("name"))
        return Clause("I " + deconjugate(m.group("rest")), subject)
    m = _PRONOUN_PET.match(text)  # "He's a beagle named Rex."
    if m and (found := pet_or_relation(m.group("what").split(" ", 1)[1])) and found[0] == "pet":
        return Clause(f"I have {m.group('what')} named {m.group('name')}")
    m = _PRONOUN_START.match(text)  # ("it" is no person: "it's phonics worksheets" is not about the twins)
    if (
        m
        and last is not None
        and _PREDICATE_START.match(m.group("rest"))
        and (m.group("pron").lower() != "it" or last.kind == "pet")
    ):
        return Clause("I " + deconjugate(m.group("rest")), last)
    if re.match(
        r"(?:not|no longer) [a-z]{2,}ing\b|back (?:on|to|in|at) \w|not (?:at|with) .+ any ?more$|no longer (?:at|with) \w|(?:so |totally )?done with \w|"
        r"(?:(?:also|still|now|severely|mildly|super|very) )*(?:allergic|intolerant|sensitive) to \w|"
        r"(?:officially|finally|now) (?:a|an) [a-z-]+\b|(?:a|an) [a-z-]+ now$",
        text,
        _I,
    ):
        # "also allergic to dust mites", "officially a non-smoker now"
        # "not running anymore", "back to studying in the mornings", "done with gaming"
        return Clause("I am " + text[0].lower() + text[1:])
    if _HABIT_START.match(text) and not re.search(r"\b(?:me|you|your)\b", text, _I):
        return Clause("I " + text[0].lower() + text[1:])  # "usually grab a flat white on the way to work"
    if m := _VERB_START.match(text):  # "Just moved to Denver!", "... and became a chef"
        gerund = m.group(0).split()[-1].lower().endswith("ing")
        return Clause(("I am " if gerund else "I ") + text[0].lower() + text[1:])
    return None


def _a_pet(noun: str) -> bool:
    """An animal the pet lexicon does not list, by the embedding model ("bearded dragon")."""
    from memlane.providers.llm.rules.kind_of import kind_of  # here: kind_of -> compare -> extract -> subject

    return kind_of(noun) == "pet"


def _possessed(text: str) -> tuple[tuple[str, str, bool], str | None, str] | None:
    """``"my best friend Jonas is vegan"`` -> (("relation", "friend", False), "Jonas", "is vegan")."""
    tokens = text.replace(",", " ").split()
    if len(tokens) < 3 or tokens[0].lower() not in ("my", "our"):
        return None
    i = 1
    while i < len(tokens) - 1 and tokens[i].lower() in _ADJ_WORDS:
        i += 1
    for size in (3, 2, 1):
        noun = " ".join(tokens[i : i + size])
        tail = noun.endswith("'s")
        found = pet_or_relation(noun[:-2] if tail else noun)
        if found is None:
            continue
        j = i + size
        if tail:
            return found, None, "'s " + " ".join(tokens[j:])
        names: list[str] = []
        while j < len(tokens) and (
            (tokens[j][0].isupper() and tokens[j].strip(",").lower() not in NOT_NAMES)
            or (tokens[j] == "and" and names and j + 1 < len(tokens) and tokens[j + 1][0].isupper())
        ):
            names.append(tokens[j].strip(","))
            j += 1
            if names[-1].endswith("'s"):  # "my sister Aoife's wedding is ...": what is hers
                names[-1] = names[-1][:-2]
                return found, " ".join(names), "'s " + " ".join(tokens[j:])
        rest = " ".join(tokens[j:])
        return (found, " ".join(names) or None, rest) if rest else None
    return None


def _subject(found: tuple[str, str, bool], name: str | None, known: Mapping[str, Subject]) -> Subject:
    kind, noun, plural = found
    if name and not _is_name(name):
        name = None
    if name is None and kind == "pet":
        # "my dog is 4": the dog's name may be known from earlier turns
        named = [s for s in known.values() if s.kind == "pet" and s.noun == noun]
        if len(named) == 1:
            return named[0]
    return Subject(kind, noun, name, plural or bool(name and " and " in name))
