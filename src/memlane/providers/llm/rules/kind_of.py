"""Which general word of the ``kinds`` lexicon an unlisted word is a kind of, by the embedding model.

The ``kinds`` rows of ``frames.yaml`` name a few members of each general word ("pet: dog cat parrot
lizard ..."); the world has more ("cockatiel", "axolotl", "bearded dragon"). An unlisted word joins a
kind when its nearest listed members in the bundled all-MiniLM-L6-v2 model all belong to that kind and
the nearest is close enough ("cockatiel" -> cockatoo, bird, parrot: a pet). A whole sentence's cosine
cannot tell "a kind of" from "a sibling of" ("dog" / "cat" 0.66), so only single words are compared,
and only with the members of a general word the other statement names (the caller's job).

Measured on word pairs written apart from every scenario (tests/test_rules_kinds.py, docs/memory-quality.md):
three nearest members of one kind with the best at 0.50 or more, or a best at 0.60 or more.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from memlane.providers.llm.rules.frame_data import DATA

if TYPE_CHECKING:
    import numpy as np

    from memlane.providers.embed.local import LocalEmbedder

NEAREST = 3  # members that must agree
AGREE = 0.50  # the best of NEAREST agreeing members at least this close
ALONE = 0.60  # or the nearest member this close on its own
MEMBERS: dict[str, str] = {
    w.replace("_", " "): kind for kind, row in DATA["kinds"].items() for w in row.split()
}
# rows whose near words are siblings, not kinds ("sister" is near "daughter"): only their listed members count
CLOSED = frozenset(DATA["closed_kinds"].split())
# a kind named after another ("water_sport" of "sport") is of its family: near members of both agree
FAMILY = {k: k.rsplit("_", 1)[-1] if k.rsplit("_", 1)[-1] in DATA["kinds"] else k for k in DATA["kinds"]}


@lru_cache(maxsize=1)
def _table() -> tuple[list[str], np.ndarray]:
    """The listed members and their vectors (embedded once per process)."""
    import numpy as np

    words = sorted(w for w, kind in MEMBERS.items() if kind not in CLOSED)
    return words, np.asarray(_model().embed(words))


@lru_cache(maxsize=1)
def _model() -> LocalEmbedder:
    from memlane.providers.embed.local import LocalEmbedder

    return LocalEmbedder()


@lru_cache(maxsize=8192)
def kind_of(word: str) -> str | None:
    """The general word (a key of ``kinds``) ``word`` is a kind of, or None when the model is not sure.
    A listed member answers from the list, with no model asked."""
    word = word.lower().strip()
    if word in MEMBERS:
        return MEMBERS[word]
    if len(word) < 3:
        return None
    import numpy as np

    words, vectors = _table()
    sims = vectors @ np.asarray(_model().embed([word])[0])
    order = np.argsort(-sims)[:NEAREST]
    kinds = {MEMBERS[words[i]] for i in order}
    families = {FAMILY[k] for k in kinds}
    best = float(sims[order[0]])
    if best >= ALONE or (len(kinds) == 1 and best >= AGREE):
        return MEMBERS[words[order[0]]]
    return families.pop() if len(families) == 1 and best >= AGREE else None
