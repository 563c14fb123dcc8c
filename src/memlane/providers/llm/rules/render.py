"""First person <-> third person: ``"I especially love TypeScript"`` -> ``"User especially loves TypeScript."``.

Rendering conjugates the first verb for the subject and swaps the remaining first-person pronouns;
the reverse (:func:`summary_to_first_person`) lets the same rules parse stored summaries.
"""

from __future__ import annotations

import re

from memlane.providers.llm.rules.facts import Subject
from memlane.providers.llm.rules.lexicon import words
from memlane.providers.llm.rules.text import tidy

MAX_CHARS = 280

ADVERBS = words("""also still now currently really especially absolutely always usually often sometimes never just
    recently finally mostly totally actually definitely even only seriously truly generally normally
    typically barely rarely occasionally mainly primarily officially severely mildly very so quite
    already no longer kind sort of slightly strongly deeply honestly literally basically particularly
    regularly happily proudly secretly openly fully partly""")
MODALS = words("can cannot could will would should must may might shall used")
_IRREGULAR_PAST = words("""was were had did went got made took bought sold ran won lost met left quit found gave came became
    began broke chose drove ate drank flew grew knew paid put said saw sent spent told thought wrote
    fell felt kept led meant rode sat slept spoke stood swam taught threw understood woke wore brought caught fought
    built sang forgot froze hid held hit hurt lent lit rang rose shot shut spun stole stuck struck swore bent
    dealt dug fed fled hung laid lay shook sold sought sped split spread sprang stung swung tore wept wound""")
_PREFIX = re.compile(r"^(?:re|over|under|out|mis|with|fore|up)(?=[a-z]{3})")  # rewrote, overslept, upheld
_THIRD = {"am": "is", "are": "is", "have": "has", "do": "does", "go": "goes", "be": "is", "'m": "is"}
_PLURAL = {"am": "are", "is": "are", "has": "have", "does": "do", "was": "were"}
_FIRST = {
    "is": "am",
    "are": "am",
    "'s": "am",
    "has": "have",
    "does": "do",
    "were": "was",
    "goes": "go",
    "doesn't": "don't",
    "isn't": "am not",
    "aren't": "am not",
    "hasn't": "haven't",
    "weren't": "wasn't",
}
_USER_PRONOUNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p), r)
    for p, r in (
        (r"\bI am\b", "they are"),
        (r"\bI was\b", "they were"),
        (r"\bI\b", "they"),
        (r"\b[Mm]yself\b", "themselves"),
        (r"\b[Mm]ine\b", "theirs"),
        (r"\b[Mm]y\b", "their"),
        (r"\b[Mm]e\b", "them"),
        (r"\b[Oo]urselves\b", "themselves"),
        (r"\b[Oo]urs\b", "theirs"),
        (r"\b[Oo]ur\b", "their"),
        (r"\b[Ww]e are\b", "they are"),
        (r"\b[Ww]e\b", "they"),
        (r"\b[Uu]s\b", "them"),
    )
)
_OTHER_PRONOUNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p), r)
    for p, r in (
        (r"\bI am\b", "User is"),
        (r"\bI\b", "User"),
        (r"\b[Mm]y\b", "User's"),
        (r"\b[Mm]e\b", "User"),
        (r"\b[Mm]yself\b", "User"),
        (r"\b[Oo]ur\b", "User's"),
        (r"\b[Uu]s\b", "User"),
    )
)


def is_past(word: str) -> bool:
    w = word.lower()
    return (
        w in _IRREGULAR_PAST
        or _PREFIX.sub("", w) in _IRREGULAR_PAST
        or (w.endswith("ed") and not w.endswith("eed"))
    )


def _third_singular(verb: str) -> str:
    low = verb.lower()
    if low in _THIRD:
        return _THIRD[low]
    if low in MODALS or is_past(low) or low in ("is", "has", "does", "was"):
        return verb
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(low) > 2 and low.endswith("y") and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _first_verb_index(tokens: list[str]) -> int:
    i = 0
    while i < len(tokens) - 1 and tokens[i].lower() in ADVERBS:
        i += 1
    return i


def conjugate(pred: str, plural: bool = False) -> str:
    """Third-person form of a first-person predicate (``"do not eat meat"`` -> ``"does not eat meat"``)."""
    tokens = pred.split()
    if not tokens:
        return pred
    i = _first_verb_index(tokens)
    verb = tokens[i]
    if plural:
        tokens[i] = _PLURAL.get(verb.lower(), verb)
    else:
        tokens[i] = _third_singular(verb)
    return " ".join(tokens)


def deconjugate(pred: str) -> str:
    """First-person form of a third-person predicate (``"lives in Paris"`` -> ``"live in Paris"``)."""
    tokens = pred.split()
    if not tokens:
        return pred
    i = _first_verb_index(tokens)
    low = tokens[i].lower()
    if low in _FIRST:
        tokens[i] = _FIRST[low]
    elif low.endswith("ies") and len(low) > 4:
        tokens[i] = tokens[i][:-3] + "y"
    elif low.endswith(("ches", "shes", "xes", "zes", "sses", "oes")):
        tokens[i] = tokens[i][:-2]
    elif low.endswith("s") and not low.endswith(("ss", "us", "is")) and low not in MODALS:
        tokens[i] = tokens[i][:-1]
    return " ".join(tokens)


def swap_pronouns(text: str, subject: Subject) -> str:
    table = _USER_PRONOUNS if subject.kind in ("user", "group") else _OTHER_PRONOUNS
    for pattern, repl in table:
        text = pattern.sub(repl, text)
    return text


def render(text: str, subject: Subject) -> str:
    """Third-person summary sentence for a first-person clause about ``subject``."""
    text = tidy(text)
    if re.match(r"(?:I|we)\b", text, re.IGNORECASE):
        pred = text.split(" ", 1)[1] if " " in text else ""
        plural = subject.plural or subject.kind == "group"
        body = f"{subject.nominative} {conjugate(pred, plural)}"
    elif re.match(r"(?:my|our)\b", text, re.IGNORECASE):
        body = f"{subject.possessive} {text.split(' ', 1)[1] if ' ' in text else ''}"
    else:
        body = f"{subject.nominative}: {text}"
    head, _, rest = body.partition(" ")
    rest = re.sub(r"\balso\s+", "", rest)  # "also" leans on the previous turn; a memory stands alone
    return finish(f"{head} {swap_pronouns(rest, subject)}")


def finish(summary: str, max_chars: int = MAX_CHARS) -> str:
    """Tidy, capitalise, end with a full stop, and fit ``max_chars`` at a word boundary."""
    summary = tidy(summary).replace(" ,", ",")
    if not summary:
        return summary
    summary = summary[0].upper() + summary[1:]
    if len(summary) + 1 > max_chars:
        summary = summary[: max_chars - 1].rsplit(" ", 1)[0].rstrip(",;:-")
    return summary if summary.endswith((".", "!")) else summary + "."


def summary_to_first_person(summary: str) -> str:
    """``"User's dog Luna is 4."`` -> ``"my dog Luna is 4"``; ``"User lives in Oslo."`` -> ``"I live in Oslo"``."""
    text = tidy(summary.strip().rstrip("."))
    if m := re.match(r"user mentioned that (?=[A-Z])", text, re.IGNORECASE):
        return text[m.end() :]
    text = re.sub(r"\btheir\b", "my", text)
    text = re.sub(r"\bthemselves\b", "myself", text)
    text = re.sub(r"\btheirs\b", "mine", text)
    text = re.sub(r"\bthem\b", "me", text)
    if re.match(r"(?:the )?user's\b", text, re.IGNORECASE):
        return "my " + text.split(" ", 2 if text.lower().startswith("the ") else 1)[-1]
    match = re.match(r"(?:the )?user\s+(.*)$", text, re.IGNORECASE)
    if match:
        return "I " + deconjugate(match.group(1))
    return text
