"""Text normalisation for exact-match redundancy checks."""

from __future__ import annotations

import re

_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)


def normalise(text: str) -> str:
    """Lower case, punctuation and extra spaces removed: "User likes  tea!" == "user likes tea"."""
    return " ".join(_NON_WORD.sub(" ", text.lower()).split())
