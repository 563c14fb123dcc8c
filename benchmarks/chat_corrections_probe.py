"""Do corrections told in chat close what they correct? A probe of our own phrasings (not a scenario set).

    python benchmarks/chat_corrections_probe.py [benchmarks/data/chat_corrections.txt]

Each line is ``old || new``: two user messages a couple of months apart, replayed into a fresh SQLite memory
as a host drives it (the hot path, then the finished turn's episode) with the offline rules and the bundled
embedder. A pair counts when the old statement is no longer active and the new one added something. Prints
the pairs that fail and ``N/M corrections applied`` (docs/memory-quality.md, round 7).
"""

from __future__ import annotations

import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from memlane import Memory
from memlane.model.candidate import ChatMessage
from memlane.model.config import Settings

DEFAULT = Path(__file__).with_name("data") / "chat_corrections.txt"


def applied(workdir: Path, n: int, old: str, new: str) -> tuple[bool, list[str], list[str]]:
    settings = Settings().model_copy(update={"memory_consent_fields": [], "memory_consent_benign_fields": []})
    mem = Memory(str(workdir / f"p{n}.db"), settings=settings)
    try:

        def say(text: str, at: datetime) -> list[str]:
            msgs = [ChatMessage(role="user", content=text)]
            mem.add(msgs, user_id="u", at=at, wait=True)
            mem.capture_turn(msgs, user_id="u", at=at, wait=True)
            return [r.summary for r in mem.list(user_id="u")]

        first = say(old, datetime(2026, 1, 1, tzinfo=UTC))
        after = say(new, datetime(2026, 3, 1, tzinfo=UTC))
    finally:
        mem.close()
    still = [s for s in first if s in after]
    return bool(first) and not still and any(s not in first for s in after), first, after


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    pairs = [
        tuple(x.strip() for x in line.split("||", 1))
        for line in path.read_text().splitlines()
        if "||" in line
    ]
    ok = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, (old, new) in enumerate(pairs):
            good, first, after = applied(Path(tmp), n, old, new)
            ok += good
            if not good:
                print(f"FAIL {old} || {new}\n     before: {first}\n     after:  {after}")
    print(f"{ok}/{len(pairs)} corrections applied")


if __name__ == "__main__":
    main()
