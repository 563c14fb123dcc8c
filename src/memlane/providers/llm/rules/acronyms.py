"""Initials that stand for a name the other statement spells out ("WoW" / "World of Warcraft").

Users shorten what they have named before ("plays World of Warcraft" ... "don't play wow anymore",
"works at Bank of America" ... "left BofA" is out of reach, "New York City" ... "moved out of NYC" is not).
A short token whose letters are the initials of a run of words in the other statement names the same thing,
so it is written out before the two statements are compared.
"""

from __future__ import annotations

import re

from memlane.providers.llm.rules.compare import stem
from memlane.providers.llm.rules.lexicon_world import CURRENCY_CODES

_RUN = re.compile(r"[A-Z][\w'-]*(?:(?:\s+(?:of|the|and|de|du|van|von|on|in|&))*\s+[A-Z][\w'-]*)+")
_NUMERAL = re.compile(r"[IVXLC]+|\d+")
_SHORT = re.compile(r"\b[A-Za-z]{2,5}\b")


def _initials(run: str) -> set[str]:
    """``World of Warcraft`` -> {"wow", "ww"}: with and without the small words; a hyphen starts a word."""
    words = re.split(r"[\s-]+", run)
    every = "".join(w[0] for w in words if w and w[0].isalpha()).lower()
    capitals = "".join(w[0] for w in words if w[:1].isupper()).lower()
    if len(words) > 2 and _NUMERAL.fullmatch(words[-1]):  # "Final Fantasy XIV" is "FF" too
        return {every, capitals, every[:-1], capitals[:-1]} - {""}
    return {every, capitals} - {""}


def _runs(text: str) -> dict[str, tuple[str, str]]:
    """Initials -> (the name, the word before it)."""
    found: dict[str, tuple[str, str]] = {}
    for m in _RUN.finditer(text):
        run = m.group(0)
        start = 1 if text[: m.start()].strip() == "" or run.split()[0] in ("User", "User's") else 0
        words = run.split()[start:]  # "User" opening a summary is no part of a name
        if len(words) < 2 and "-" not in run:
            continue
        phrase = " ".join(words)
        before = _before(text, m.start())
        for initials in _initials(phrase):
            if len(initials) >= 2:
                found.setdefault(initials, (phrase, before))
    for m in re.finditer(r"\b[A-Z][a-z]+-[A-Z][\w]*\b", text):  # "Counter-Strike" -> "cs"
        found.setdefault(
            "".join(p[0] for p in m.group(0).split("-")).lower(), (m.group(0), _before(text, m.start()))
        )
    return found


def _before(text: str, at: int) -> str:
    words = text[:at].split()
    return stem(words[-1].lower()) if words else ""


def _currency(reference: str, text: str) -> str:
    """``text`` with a currency code written in capitals ("CAD") replaced by the name ``reference`` says it with."""
    said = {stem(w) for w in re.findall(r"[a-z]+", reference.lower())}

    def out(m: re.Match[str]) -> str:
        name = CURRENCY_CODES.get(m.group(0).lower())
        return name if name and stem(name.split()[-1]) in said else m.group(0)

    return re.sub(r"\b[A-Z]{3}\b", out, text)


def spell_out(reference: str, text: str) -> str:
    """``text`` with each short token that is the initials of a name in ``reference`` replaced by the name,
    and each currency code by the currency's name."""
    text = _currency(reference, text)
    runs = _runs(reference)
    if not runs:
        return text

    def out(m: re.Match[str]) -> str:
        token = m.group(0)
        found = runs.get(token.lower())
        if found is None or found[0].lower() == token.lower():
            return token
        # initials written in capitals ("NYC", "WoW") stand for a name; in lowercase they may be a word ("got"),
        # so only after the verb the name followed ("plays World of Warcraft" / "don't play wow")
        if sum(ch.isupper() for ch in token) >= 2 or _before(text, m.start()) == found[1] != "":
            return found[0]
        return token

    return _SHORT.sub(out, text)
