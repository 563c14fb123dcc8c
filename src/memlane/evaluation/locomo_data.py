"""LoCoMo in its original schema (Maharana et al., ACL 2024): conversations, turns and questions.

A file is a list of samples with ``sample_id``, ``conversation`` (``speaker_a``, ``speaker_b``,
``session_N`` turn lists and ``session_N_date_time``) and ``qa`` (``question``, ``evidence`` as
``dia_id`` strings, ``category``). Only the turns and the questions are read: the file's
``observation``, ``session_summary`` and ``event_summary`` (written by an LLM) are not used, and
neither answers nor evidence are ever shown to the store.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_DIA = re.compile(r"^D:?(\d+):0*(\d+)$")
_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%H:%M on %d %B, %Y")


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    session: int
    at: datetime
    image: str | None = None  # what a shared photo shows (the file's image query and caption)

    @property
    def summary(self) -> str:
        """The memory written for the turn: who said what, and the photo they shared."""
        return f"{self.speaker}: {self.text}" + (f" [shares {self.image}]" if self.image else "")


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    evidence: tuple[str, ...]  # cleaned dia_ids that name a turn of the conversation

    @property
    def category_name(self) -> str:
        return CATEGORIES.get(self.category, f"category-{self.category}")


@dataclass
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    @property
    def last_at(self) -> datetime:
        return max(t.at for t in self.turns)


def parse_date(text: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` as a UTC datetime."""
    clean = " ".join(str(text).split())
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(clean, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise ValueError(f"unrecognised LoCoMo session date {text!r}")


def clean_evidence(raw: Any, known: set[str]) -> tuple[str, ...]:
    """``["D8:6; D9:17", "D:11:26", "D30:05"]`` -> ``("D8:6", "D9:17", "D11:26", "D30:5")``, keeping
    only ids of turns that exist, in order, without repeats."""
    items = raw if isinstance(raw, list) else [raw]
    out: list[str] = []
    for item in items:
        for part in re.split(r"[;,\s]+", str(item or "")):
            m = _DIA.match(part.strip())
            if m:
                dia = f"D{int(m.group(1))}:{int(m.group(2))}"
                if dia in known and dia not in out:
                    out.append(dia)
    return tuple(out)


def _image(turn: dict[str, Any]) -> str | None:
    bits = [str(turn[k]).strip() for k in ("query", "blip_caption") if turn.get(k)]
    return "; ".join(b for b in bits if b) or None


def parse_sample(sample: dict[str, Any]) -> Conversation:
    conv = sample["conversation"]
    out = Conversation(sample_id=str(sample["sample_id"]), speakers=(conv["speaker_a"], conv["speaker_b"]))
    n = 1
    while f"session_{n}" in conv:
        at = parse_date(conv[f"session_{n}_date_time"])
        for t in conv[f"session_{n}"]:
            out.turns.append(
                Turn(
                    dia_id=str(t["dia_id"]),
                    speaker=str(t["speaker"]),
                    text=str(t.get("text", "")),
                    session=n,
                    at=at,
                    image=_image(t),
                )
            )
        n += 1
    known = {t.dia_id for t in out.turns}
    for qa in sample.get("qa", []):
        out.questions.append(
            Question(
                text=str(qa["question"]),
                category=int(qa.get("category", 0)),
                evidence=clean_evidence(qa.get("evidence", []), known),
            )
        )
    return out


def load(path: str | Path) -> list[Conversation]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read LoCoMo file {path}: {exc}") from None
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a list of LoCoMo samples")
    try:
        return [parse_sample(s) for s in data]
    except (KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not in LoCoMo's schema (missing {exc})") from None
