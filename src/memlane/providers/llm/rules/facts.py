"""The rules' internal vocabulary: who a clause is about (Subject), the clause, and a parsed Fact."""

from __future__ import annotations

from dataclasses import dataclass, field

from memlane.model.enums import MemoryType
from memlane.providers.llm.rules.lexicon import RELATIONS
from memlane.providers.llm.rules.text import slug


@dataclass(frozen=True)
class Subject:
    """Who a statement is about: the user, a relative or friend, a pet, or a named someone."""

    kind: str = "user"  # user | relation | pet | entity | group
    noun: str | None = None  # "sister", "dog", "golden retriever"
    name: str | None = None
    plural: bool = False

    @property
    def nominative(self) -> str:
        if self.kind == "user":
            return "User"
        if self.kind == "group":
            return f"User and their {self.noun}"
        if self.kind == "entity":
            return f"User mentioned that {self.name}" if self.name else "User"
        head = f"User's {self.noun or 'pet'}"
        return f"{head} {self.name}" if self.name else head

    @property
    def possessive(self) -> str:
        if self.kind in ("user", "group"):
            return "User's"
        base = self.nominative
        return base + "'" if base.endswith("s") else base + "'s"

    def key_prefix(self) -> str | None:
        """Namespace for this subject's slot keys, or None when keys would be guesses."""
        if self.kind in ("user", "group"):
            return ""
        if self.kind == "relation" and self.noun:
            several = RELATIONS.get(self.noun, True)
            name = f":{slug(self.name)}" if self.name and several else ""
            return f"family:{slug(self.noun)}{name}:"
        if self.kind == "pet":
            return f"profile:pet:{slug(self.name or self.noun or 'pet')}:"
        return None


USER = Subject()


@dataclass(frozen=True)
class Clause:
    """One statement in first-person form: ``"I live in Paris"`` or ``"my birthday is on May 2"``."""

    text: str
    subject: Subject = USER
    career_change: bool = False
    # the clause follows one that ends something in the same sentence ("I don't drive to work anymore, I take
    # the ferry now"): it says what replaced it
    replacing: bool = False


@dataclass
class Fact:
    """What a rule found. ``text`` is first-person and rendered later for the subject."""

    key: str | None
    value: str
    text: str
    category: str
    importance: int = 3
    type: MemoryType = MemoryType.SEMANTIC
    positive: bool = True
    entities: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    subject: Subject | None = None  # set when the rule re-attributes the fact (``"Rex is a beagle"``)
