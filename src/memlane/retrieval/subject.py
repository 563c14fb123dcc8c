"""Whose fact: the subject a question asks about against the subject of each memory.

"Where do I work?" asks about the user, so "User's husband works at Lufthansa." answers someone else's
question however close its words are; "What did my dad do for a living?" asks about the user's father,
so "User lives in Manchester." is not about him. A question names its subject with a possessive ("my
dad", "our son", "the user's husband"; a pet too: "my dog") or speaks of the user ("I", "me", "my job",
"the user"), whichever it names first: "What should I cook for my wife?" asks about the user, and names
the wife too, whose memories then keep their score. A question that names neither (a third person by
name, "What is popular?"), a question asking for a person ("Who ...?") and a message of several
sentences (a chat turn read for the context block) have no subject here.

A memory's subject is read from its third-person summary: "User ..." is the user, "User's wife ..." /
"Ivy, the user's daughter, ..." a relation, and so is someone named after the words saying who they are
("User's climbing partner Theo ...", "User's best mate Kwame ..."). A memory that mentions the asked relation anywhere ("User's
emergency contact is their brother Rafael") is about it too. A summary in another form (a conversation
turn, an episode) has no subject and is never penalised.

A memory about someone other than the question's subject loses ``MEMORY_SUBJECT_PENALTY`` (0.25) of
its score (:func:`subject_penalty`): more than the whole recency spread (0.15), so a newer fact about
someone else does not outrank the user's own on recency; a memory that mentions a name the question
names is never penalised ("What do I know about Noor?"). Relation words are the extractor's lexicon (``rules/lexicon.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memlane.providers.llm.rules.lexicon import PET_SPECIES, RELATION_ALIASES, RELATIONS

# a friend by the words people use for one (the extractor's aliases have "best friend", "bff")
_FRIEND_WORDS = {
    w: "friend" for w in ("mate", "best mate", "pal", "buddy", "bestie", "best pal", "best buddy")
}
_NOUNS = {**{w: w for w in (*RELATIONS, *PET_SPECIES)}, **RELATION_ALIASES, **_FRIEND_WORDS}
_NOUN = "|".join(sorted((re.escape(w) for w in _NOUNS), key=len, reverse=True))
_OWNED = re.compile(
    rf"\b(?:my|our|(?:the )?user's|their)\s+(?:[a-z-]+\s+)?(?P<noun>{_NOUN})(?:'s|s)?\b", re.I
)
_NAME = re.compile(r"(?<!^)(?<![.?!] )\b(?!I\b)[A-Z][\w'-]+")
_USER = re.compile(
    r"\b(?:I|my|myself|(?:the )?user(?:'s)?)\b", re.I
)  # "me" is an object: "tell me about ..."
_SENTENCES = re.compile(r"[.!?]+\s+\S")
_WHO = re.compile(r"^\s*(?:who|whom|whose)\b", re.I)
_MEMORY_USER = re.compile(r"^\s*(?:the )?user\b", re.I)
_MEMORY_HEAD = re.compile(rf"^\s*(?:the )?user's\s+(?:(?:[a-z-]+)\s+)?(?P<noun>{_NOUN})(?:'s)?\b", re.I)
# "User's climbing partner Theo lives in Leeds": someone the user knows, named after the words saying who
# (a liking is no person: "User's favourite author Ursula ...")
_NAMED_HEAD = re.compile(
    r"^\s*(?:[Tt]he )?[Uu]ser's\s+(?!favou?rite\b)(?P<who>(?:[a-z-]+\s+){0,2}(?P<noun>[a-z-]+))\s+"
    r"[A-Z][a-z'-]+\b"
)
_NOT_WHO = frozenset(
    {
        "a",
        "an",
        "the",
        "in",
        "at",
        "on",
        "to",
        "for",
        "from",
        "with",
        "of",
        "by",
        "and",
        "or",
        "is",
        "was",
        "are",
        "were",
        "has",
        "had",
        "will",
    }
)
_APPOSITION = re.compile(rf"^\s*[A-Z][\w'-]+,? (?:the )?(?:user's|their) (?:[a-z-]+ )?(?P<noun>{_NOUN})\b")


@dataclass(frozen=True)
class Subject:
    """``"user"``, or a relation or pet noun in its canonical form (``"father"``, ``"dog"``)."""

    noun: str

    @property
    def is_user(self) -> bool:
        return self.noun == "user"


USER = Subject("user")


def canonical(noun: str) -> str:
    return _NOUNS.get(noun.lower(), noun.lower())


@lru_cache(maxsize=1024)
def asked_about(query: str) -> Subject | None:
    """Whom ``query`` asks about: whoever it names first, a relation or pet the user owns ("What did my
    dad do?") or the user ("What should I cook for my wife?"); None for a "Who ...?" question and for a
    message of several sentences (a chat turn read for the context block: whom it is about is unclear)."""
    if _WHO.match(query) or not one_sentence(query):
        return None
    owned = _OWNED.search(query)
    user = _USER.search(query)
    if owned and (user is None or owned.start() <= user.start()):
        return Subject(canonical(owned.group("noun")))
    return USER if user else None


def one_sentence(text: str) -> bool:
    """Whether ``text`` is one sentence (a question), not a chat turn of several."""
    return _SENTENCES.search(text.strip()) is None


def named_relations(query: str) -> frozenset[str]:
    """The relations and pets ``query`` names anywhere ("... for my wife" names the wife)."""
    return frozenset(canonical(m.group("noun")) for m in _OWNED.finditer(query))


@lru_cache(maxsize=8192)
def memory_about(summary: str) -> Subject | None:
    """Whom a third-person summary is about, or None when it is in another form."""
    if m := _MEMORY_HEAD.match(summary) or _APPOSITION.match(summary):
        return Subject(canonical(m.group("noun")))
    if (
        (m := _NAMED_HEAD.match(summary))
        and not _NOT_WHO & set(words := m.group("who").split())
        and (words[-1] in _NOUNS or not words[-1].endswith("s"))
    ):  # "User's passport expires Monday": no one
        return Subject(canonical(m.group("noun")))
    return USER if _MEMORY_USER.match(summary) else None


def mentions(summary: str, subject: Subject) -> bool:
    """Whether ``summary`` names ``subject`` anywhere (the noun or one of its aliases)."""
    words = {canonical(w) for w in re.findall(r"[a-z][a-z-]*", summary.lower())}
    return subject.noun in words


def subject_penalty(query: str, summary: str, weight: float) -> float:
    """``weight`` when the memory is about someone other than whom the question asks about, else 0.
    A question about the user penalises memories about a person in the user's life (a pet's facts are
    the user's too); a question about a relation penalises memories that do not mention it."""
    if weight <= 0:
        return 0.0
    asked = asked_about(query)
    about = memory_about(summary)
    if asked is None or about is None:
        return 0.0
    if any(name in summary for name in _NAME.findall(query)):
        return (
            0.0  # the question names someone or something the memory mentions: "What do I know about Noor?"
        )
    if asked.is_user:
        named = about.is_user or about.noun in PET_SPECIES or about.noun in named_relations(query)
        return 0.0 if named else weight
    return 0.0 if about == asked or mentions(summary, asked) else weight
