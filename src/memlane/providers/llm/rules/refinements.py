"""Refinements: a general statement told again more precisely replaces it ("plays an instrument" ->
"plays the cello", "works in finance" -> "risk analyst at a bank", "likes Asian food" -> "loves Sichuan
cooking", "does some volunteer work" -> "volunteers every Saturday at the food bank"). Each detector reads
two :class:`frames.Frame` s; :func:`refinement` says why the specific one refines the general one, or None.
"""

from __future__ import annotations

import re

from memlane.providers.llm.rules.compare import stem
from memlane.providers.llm.rules.frame_data import DATA as _DATA
from memlane.providers.llm.rules.frame_data import stems as _stems
from memlane.providers.llm.rules.frames import FIELDS, KINDS, STANCE, TOKEN, UNINFORMATIVE, WISHES, Frame
from memlane.providers.llm.rules.kind_of import kind_of
from memlane.providers.llm.rules.lexicon_world import HYPERNYMS

_WHOLE = {
    part.replace("_", " "): whole.replace("_", " ")
    for whole, row in _DATA["part_of"].items()
    for part in row.split()
}
_WORK = _stems("work job career industry field sector")
_NAMING = _stems("named called name")


def refinement(general: Frame, specific: Frame) -> str | None:
    """Why ``specific`` refines ``general`` (a field, a kind, a part of a whole, a detail), or None."""
    if (field := _field_refinement(general, specific)) is not None:
        return f"a specific job in the field of {field}"
    if (kind := _kind_refinement(general, specific) or _breed_refinement(general, specific)) is not None:
        return f"names the kind of {kind}"
    if (part := _part_refinement(general, specific)) is not None:
        return part
    if (detail := _detail_refinement(general, specific)) is not None:
        return f"the same, told with {detail}"
    return None


def _wholes(name: str) -> set[str]:
    """What a named value is part of, transitively: "sichuan" -> {"chinese", "asian"} (frames.yaml part_of)."""
    found: set[str] = set()
    while (name := _WHOLE.get(name, "")) and name not in found:
        found.add(name)
    return found


def _part_refinement(general: Frame, specific: Frame) -> str | None:
    """``likes Asian food`` -> ``loves Sichuan cooking``: the one value the general statement names is a whole
    the specific one's new value is part of."""
    if general.negative or specific.negative or specific.additive or specific.past or specific.once:
        return None  # "had tacos for lunch" is one meal
    gone, added = general.names - specific.names, specific.names - general.names
    dishes = {
        t for t in specific.tokens - general.tokens if t in _WHOLE
    }  # lowercase parts: "tacos al pastor"
    if len(gone) != 1 or not (added or dishes):
        return None
    whole = next(iter(gone))
    parts = {w for n in added | dishes for w in (n, *n.split()) if whole in _wholes(w)}
    return f"{', '.join(sorted(parts))} is part of {whole}" if parts else None


def _kind_refinement(general: Frame, specific: Frame) -> str | None:
    """``plays an instrument`` -> ``plays the cello``, ``has a pet bird`` -> ``has a cockatiel named
    Sunny``: a general word replaced by a kind of it, listed or found by the embedding model
    (``kind_of``). The general statement names no value; its other words are the specific one's or kinds."""
    if general.numbers or general.negative or specific.negative or specific.additive:
        return None
    if general.words & WISHES and not specific.words & WISHES:  # "wants children" is not "has a daughter"
        return None
    for key, (heads, members) in KINDS.items():
        if not heads <= general.words - specific.words:
            continue
        narrowed = _around_head(general, heads)
        if general.names - narrowed:  # a name elsewhere is a value the general statement holds
            continue
        # the general statement's other words are shared ("plays a musical instrument" / "plays the cello"),
        # say the kind too ("team sports", "a Slavic language") or place it ("in a community band")
        rest = (
            general.words - heads - members - STANCE - {stem(w) for w in narrowed}
        )  # "loves winter sports" / "goes snowboarding"
        modifiers = [t for t in general.tokens if stem(t) in rest]
        if (
            rest
            and not rest & specific.words
            and not (modifiers and all(kind_of(t) == key for t in modifiers))
        ):
            continue
        listed = (specific.words | {stem(p) for n in specific.names for p in {n, *n.split()}}) & members
        if not (listed or any(kind_of(t) == key for t in _unlisted(specific, general))):
            continue
        if _names_member(general, specific, key):  # "favourite sport to watch is kabaddi" is no general word
            continue
        return key.replace("_", " ")
    return None


_DETERMINERS = frozenset(["a", "an", "the", "some", "my", "our", "one", "another"])
_PLACING = frozenset(["in", "at", "with", "for", "on", "from"])


def _around_head(general: Frame, heads: frozenset[str]) -> set[str]:
    """The words that narrow the general word where it stands: its modifiers ("a Slavic language", "a wind
    instrument") and a phrase placing it ("an instrument in a community band"). The specific statement names
    a member, so these say which one the user means, not a value beside it."""
    toks = [t.rstrip(".") for t in TOKEN.findall(general.text.lower())]
    at = next((i for i, t in enumerate(toks) if stem(t) in heads), None)
    if at is None:
        return set()
    start = at
    while start > 0 and toks[start - 1] not in _DETERMINERS and start > at - 2:
        start -= 1
    before = set(toks[start:at]) if start > 0 and toks[start - 1] in _DETERMINERS else set()
    after = set(toks[at + 1 :]) if at + 1 < len(toks) and toks[at + 1] in _PLACING else set()
    return before | after


def _breed_refinement(general: Frame, specific: Frame) -> str | None:
    """``has a cat`` -> ``has a Maine Coon named Tofu``: a kind of one or more words (a breed, a variety:
    ``lexicon_world.HYPERNYMS``) under the general statement's only word, the specific one saying nothing else
    but a name."""
    if general.names or general.numbers or general.negative or specific.negative or specific.additive:
        return None
    if general.words & WISHES:  # "wants a dog" is not "has a beagle"
        return None
    toks = [t.rstrip(".") for t in TOKEN.findall(specific.text.lower())]
    grams = {" ".join(toks[i : i + n]) for n in (1, 2, 3) for i in range(len(toks) - n + 1)}
    for gram in sorted(grams, key=len, reverse=True):
        if (word := HYPERNYMS.get(gram)) is None or general.words != {stem(word)}:
            continue
        said = {stem(t) for t in gram.split()}
        if specific.words - said - general.words <= _NAMING:
            return word
    return None


def _names_member(general: Frame, specific: Frame, key: str) -> bool:
    """The general statement already names a member of its general word: a listed or near kind of it after
    the word ("favourite sport to watch is kabaddi", "the pet is a tortoise"), or the value a copula gives the
    word ("her sport is kabaddi"), not a modifier before it ("team sports", "a musical instrument") nor the
    noun of a compound right after it ("a pet bird")."""
    heads, members = KINDS[key]
    toks = [t.rstrip(".") for t in TOKEN.findall(general.text.lower())]
    at = next((i for i, t in enumerate(toks) if stem(t) in heads), None)
    if at is None:
        return False
    # not the word right after it: "a pet bird" is a compound, its kinds (a cockatiel) still refine it
    placing = (
        at + 1 < len(toks) and toks[at + 1] in _PLACING
    )  # "an instrument in a band" places it, names none
    after = (
        [] if placing else [t for t in toks[at + 2 :] if stem(t) in general.words - specific.words - heads]
    )
    if any(stem(t) in members or kind_of(t) == key for t in after):
        return True
    copula = re.search(
        rf"\b{re.escape(toks[at])}\b(?:\s+[\w'-]+){{0,3}}?\s+(?:is|are|was)\s+(?:an?\s+|the\s+)?(?P<v>[\w-]+)",
        general.text.lower(),
    )
    return copula is not None and stem(copula.group("v")) in general.words - specific.words


def _detail_refinement(general: Frame, specific: Frame) -> str | None:
    """``does some volunteer work`` -> ``volunteers every Saturday at the Riverside food bank``: every word of
    a statement that names no value, said again with a place, a name, a time or a number. Not an occasion
    ("went running with Sam on Saturday" is one run, not the habit told precisely)."""
    if general.names or general.numbers or general.when or general.negative or specific.negative:
        return None
    if specific.additive or specific.past or specific.once or specific.people:
        return None
    core = general.words - UNINFORMATIVE
    if core and core <= specific.words and (specific.names or specific.when or specific.numbers):
        return ", ".join(
            sorted(specific.names | specific.when) or [f"{n:g}" for n in sorted(specific.numbers)]
        )
    # or the thing it speaks of, named: "drives an electric car" / "the car is a Kia Niro"
    thing = (
        specific.words - STANCE - UNINFORMATIVE
    )  # the shared noun, not "likes" ("likes jazz" / "likes Miles Davis") or "works"
    if (
        specific.names
        and thing
        and specific.words <= general.words
        and not specific.markers | (general.words & WISHES)
    ):
        return ", ".join(sorted(specific.names))
    return None


def _unlisted(specific: Frame, general: Frame) -> list[str]:
    """The specific statement's own words as written ("jiu-jitsu", "dragon") and its names ("Swahili")."""
    own = specific.words - general.words
    return [t for t in sorted(specific.tokens) if len(t) >= 4 and (stem(t) in own or t in specific.names)]


def _field_refinement(general: Frame, specific: Frame) -> str | None:
    """``works in finance`` -> ``risk analyst at a bank``: the specific job lies inside the general field."""
    if not general.words & _WORK or specific.negative or general.negative:
        return None
    for name, field_words in FIELDS.items():
        if stem(name) in general.words and (specific.words - general.words) & field_words:
            return name
    return None
