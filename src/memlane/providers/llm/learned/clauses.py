"""A message cut into clauses, by character offsets: the units the extraction model's tags are read in.

Exact cuts only: sentence ends, semicolons and line breaks, and a comma or "and" / "but" / "so" that a
new subject follows ("im vegan, my sister isnt"). The model decides what each clause holds.
"""

from __future__ import annotations

import re

_SUBJECT = r"(?:i|i'm|im|i've|ive|i'd|id|i'll|my|we|we're|our|he|she|they|it's|its|me|mine)\b"
_CUT = re.compile(
    rf"(?<!\bDr)(?<!\bMr)(?<!\bMrs)(?<!\bMs)(?<!\bSt)(?<!\bvs)[.!?]+(?=\s|$)|[;\n]+|,\s*(?=(?:and |but |so |then )?{_SUBJECT})|\s(?:and|but|so|then)\s+(?={_SUBJECT})",
    re.IGNORECASE,
)


def clause_bounds(message: str) -> list[tuple[int, int]]:
    """(start, end) of each clause with its outer spaces and cut marks left out."""
    bounds, start = [], 0
    for cut in _CUT.finditer(message):
        bounds.append((start, cut.start()))
        start = cut.end()
    bounds.append((start, len(message)))
    out = []
    for a, b in bounds:
        while a < b and message[a].isspace():
            a += 1
        while b > a and message[b - 1].isspace():
            b -= 1
        if b > a:
            out.append((a, b))
    return out
