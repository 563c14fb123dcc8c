"""Procedural memory: a named workflow as numbered imperative steps.

A procedure is stored as one memory of type ``procedural`` in category ``Procedural``: its summary is
"How to {name}: 1. ... 2. ..." (what is embedded and shown), its metadata keeps the name and the steps,
and its key ``procedure:{slug}`` makes saving the same name again replace the steps (with history).
Steps are normalised to instructions ("you should run the tests" -> "Run the tests."); a step that is a
statement about someone ("I run the tests") is refused, since a procedure says what to do.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from memlane.model.errors import ValidationError

CATEGORY = "Procedural"
MAX_STEPS = 20
MAX_STEP_CHARS = 300
MAX_NAME_CHARS = 120

_NUMBERED = re.compile(r"(?:^|\s)(?:step\s*)?\d{1,2}\s*[.):]\s+", re.IGNORECASE)
_MARKER = re.compile(r"^\s*(?:(?:step\s*)?\d{1,2}\s*[.):-]|[-*•])\s*", re.IGNORECASE)
_LEAD = re.compile(
    r"^(?:(?:first(?:ly)?|then|next|after that|afterwards|finally|lastly|and)\s*,?\s+)*"
    r"(?:please\s+|you\s+(?:should|must|need\s+to|have\s+to|can)\s+)?",
    re.IGNORECASE,
)
_SUBJECTS = {"i", "we", "he", "she", "they", "it", "user", "the user", "my", "our"}


def procedure_key(name: str) -> str:
    """``procedure:{slug}``: one memory per procedure name (case and punctuation do not matter)."""
    return "procedure:" + "-".join(re.findall(r"[^\W_]+", name.lower()))


def check_name(name: Any) -> str:
    if not isinstance(name, str) or not re.search(r"[^\W_]", name):
        raise ValidationError("a procedure needs a name saying what it does, e.g. 'deploy the blog'")
    clean = " ".join(name.split()).rstrip(".:")
    if len(clean) > MAX_NAME_CHARS:
        raise ValidationError(f"procedure name is {len(clean)} characters, over {MAX_NAME_CHARS}")
    return clean


def check_steps(steps: Any) -> list[str]:
    """The steps as a list of instructions: a list of strings, or one text of numbered or bulleted lines
    (``"1. Run the tests 2. Build"`` works too)."""
    if isinstance(steps, str):
        lines = [ln for ln in steps.splitlines() if ln.strip()]
        parts = lines if len(lines) > 1 else [p for p in _NUMBERED.split(steps) if p.strip()]
    elif isinstance(steps, Sequence) and all(isinstance(s, str) for s in steps):
        parts = list(steps)
    else:
        raise ValidationError("steps must be a list of strings or a text of numbered lines")
    out = [_instruction(p, i) for i, p in enumerate(parts, 1) if _MARKER.sub("", p).strip()]
    if not out:
        raise ValidationError("a procedure needs at least one step, e.g. ['Run the tests', 'Push to main']")
    if len(out) > MAX_STEPS:
        raise ValidationError(f"a procedure has at most {MAX_STEPS} steps, got {len(out)}; split it in two")
    return out


def _instruction(raw: str, number: int) -> str:
    text = _LEAD.sub("", " ".join(_MARKER.sub("", raw).split()))
    if not text:
        raise ValidationError(f"step {number} is empty once its numbering is removed: {raw!r}")
    words = text.lower().split()
    if words[0] in _SUBJECTS or " ".join(words[:2]) in _SUBJECTS:
        raise ValidationError(
            f"step {number} is a statement, not an instruction: {raw.strip()!r}; "
            "write it as what to do ('Run the tests.')"
        )
    if len(text) > MAX_STEP_CHARS:
        raise ValidationError(f"step {number} is {len(text)} characters, over {MAX_STEP_CHARS}")
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def procedure_summary(name: str, steps: Sequence[str]) -> str:
    return f"How to {name}: " + " ".join(f"{i}. {s}" for i, s in enumerate(steps, 1))
