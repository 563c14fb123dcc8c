"""What an answer-style preference is about: one value per aspect ("short" -> "detailed" is a change), while
a new aspect adds ("short answers", then "answers in Spanish": both hold)."""

from __future__ import annotations

import re

from memlane.providers.llm.rules.lexicon import words
from memlane.providers.llm.rules.lexicon_world import LANGUAGES

ASPECTS: dict[str, frozenset[str]] = {
    "length": words("short shorter brief briefer concise long longer lengthy detailed thorough verbose terse succinct "
                    "compact in-depth one-line one-liner sentence sentences paragraph paragraphs word words"),
    "format": words("bullet bullets bulleted list lists numbered table tables markdown prose headings heading code "
                    "snippet snippets step-by-step steps outline"),
    "tone": words("casual informal formal friendly polite blunt direct playful serious warm professional tone jokes "
                  "humour humor sarcasm"),
    "emoji": words("emoji emojis emoticons"),
    "examples": words("example examples analogies analogy"),
    "units": words("metric imperial celsius fahrenheit units"),
    "language": LANGUAGES | {"language"},
}
_WORD = re.compile(r"[a-z][a-z-]*")


def aspects(style: str) -> frozenset[str]:
    """The aspects a style names: "short, in Spanish" -> {length, language}."""
    said = set(_WORD.findall(style.lower()))
    return frozenset(name for name, listed in ASPECTS.items() if said & listed)


def key_suffix(style: str) -> str:
    """The key's tail for a style: ":length", ":format-length" ("short with bullet points"), "" when unknown; one
    aspect is one memory, so a style of another aspect does not replace it."""
    found = aspects(style)
    return ":" + "-".join(sorted(found)) if found else ""
