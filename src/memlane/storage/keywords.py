"""Words of a keyword query: lower-cased, alphanumeric, stop words dropped (both backends use it)."""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
STOP_WORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could", "did", "do", "does", "for", "from", "had", "has", "have", "he", "her", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "ours", "she", "so", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "to", "us", "was", "we", "were", "what", "when", "where", "which", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "about", "after", "before", "did", "does", "just", "also", "any", "some", "user", "users",
     "s", "t", "d", "ll", "m", "re", "ve"]  # pieces of contractions and possessives ("user's", "don't")
)


def query_words(query: str, *, limit: int = 32) -> list[str]:
    """Distinct content words of ``query`` in order, at most ``limit``; all words if only stop words."""
    words = [w.lower() for w in _WORD.findall(query)]
    content = [w for w in words if w not in STOP_WORDS] or words
    return list(dict.fromkeys(content))[:limit]
