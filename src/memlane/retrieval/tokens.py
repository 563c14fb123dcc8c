"""A cheap token estimate for budgets (no tokenizer download) and the budget checks around it.

English text averages about 4 characters per token with the common BPE tokenizers; characters outside
ASCII (accents, CJK, emoji) cost more, so each counts as 3/4 of a token. The estimate errs high, so a
block built to a budget stays within it on a real tokenizer in the usual case.
"""

from __future__ import annotations

from typing import Any

from memlane.model.errors import ValidationError

MAX_BUDGET_TOKENS = 100_000


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: ceil((chars + 2 * non-ASCII chars) / 4); 0 for ``""``."""
    if not text:
        return 0
    wide = 0 if text.isascii() else sum(1 for ch in text if ord(ch) > 127)
    return -(-(len(text) + 2 * wide) // 4)


def truncate(text: str, max_chars: int | None) -> str:
    """``text`` cut to at most ``max_chars`` characters, at a word boundary when one is near, with "…"."""
    if max_chars is None or len(text) <= max_chars:
        return text
    if max_chars <= 1:
        return text[:max_chars]
    cut = text[: max_chars - 1]
    space = cut.rfind(" ")
    if space >= max_chars // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


def check_budget(value: Any, default: int | None) -> int | None:
    """A budget in estimated tokens: ``None`` takes ``default``; otherwise an integer from 1 up."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_BUDGET_TOKENS:
        raise ValidationError(
            f"budget_tokens must be an integer from 1 to {MAX_BUDGET_TOKENS} (estimated tokens, about 4 "
            f"characters each), got {value!r}; omit it for the default"
        )
    return value


class Budget:
    """Running total of estimated tokens; :meth:`fits` says whether ``text`` can still be added."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.used = 0

    def fits(self, text: str) -> bool:
        return self.limit is None or self.used + estimate_tokens(text) <= self.limit

    def take(self, text: str) -> bool:
        """Add ``text`` if it fits; False (nothing added) when it would exceed the budget."""
        if not self.fits(text):
            return False
        self.used += estimate_tokens(text)
        return True
