"""The word lists of ``frames.yaml``, loaded once, as stems (``frames.py``, ``roles.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from memlane.providers.llm.rules.compare import stem

DATA: dict[str, Any] = yaml.safe_load(Path(__file__).with_name("frames.yaml").read_text(encoding="utf-8"))


def stems(text: str) -> frozenset[str]:
    """``"gave_up drinks"`` -> ``{"gave up", "drink"}``: the stem of every listed word."""
    return frozenset(stem(w.replace("_", " ")) for w in text.split())


def plain(name: str) -> frozenset[str]:
    """A list of ``frames.yaml`` as written (lowercase, ``_`` read as a space)."""
    return frozenset(w.replace("_", " ") for w in DATA[name].split())


# the values of ``exclusive`` rows: "remote=from_home" is one value, whichever words say it
LISTED_VALUE: dict[str, str] = {
    alias.replace("_", " "): value.split("=")[0].replace("_", " ")
    for row in DATA["exclusive"].values()
    for value in row.split()
    for alias in value.split("=")
}
