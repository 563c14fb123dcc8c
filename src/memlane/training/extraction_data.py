"""Labelled user messages for the extraction model: what each clause of a message is worth keeping as.

One JSON object per line (the data card in ``data/extraction/README.md``): the assistant's message before,
the user's message, and the memories it holds, each with the exact span that states it, its kind, memory
type, category, importance and the third-person summary. A message with no memory keeps nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic import ValidationError as PydanticError

from memlane.model.errors import ValidationError

Kind = Literal["fact", "event", "answer_style", "other_person"]
CATEGORIES = (
    "personal",
    "preferences",
    "health",
    "relationships",
    "work",
    "education",
    "finance",
    "goals",
    "tasks",
    "projects",
    "travel",
    "interests",
    "other",
)
# the memory type each kind is stored as (someone else's fact may be an event of theirs)
_TYPES: dict[str, set[str]] = {
    "fact": {"semantic"},
    "event": {"episodic"},
    "answer_style": {"procedural"},
    "other_person": {"semantic", "episodic"},
}


class LabelledMemory(BaseModel):
    model_config = ConfigDict(extra="forbid")

    span: str = Field(min_length=1)
    kind: Kind
    type: Literal["semantic", "episodic", "procedural"]
    category: Literal[CATEGORIES]  # type: ignore[valid-type]
    importance: int = Field(ge=1, le=5)
    summary: str = Field(min_length=6, max_length=280)

    @model_validator(mode="after")
    def _consistent(self) -> LabelledMemory:
        if self.type not in _TYPES[self.kind]:
            raise ValueError(
                f"a {self.kind} is stored as {' or '.join(sorted(_TYPES[self.kind]))}, not {self.type}"
            )
        if not self.summary.startswith("User"):
            raise ValueError(f"a summary starts with 'User': {self.summary!r}")
        return self


class LabelledMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    voice: str = Field(min_length=1)
    domain: str = Field(min_length=1)
    assistant: str = ""
    message: str = Field(min_length=1)
    memories: list[LabelledMemory] = Field(default_factory=list)

    @model_validator(mode="after")
    def _spans_in_message(self) -> LabelledMessage:
        for memory in self.memories:
            if memory.span not in self.message:
                raise ValueError(f"span {memory.span!r} is not in the message")
        return self


def load_messages(path: Path) -> list[LabelledMessage]:
    """The rows of one file; a bad row is named by file and line."""
    rows: list[LabelledMessage] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(LabelledMessage.model_validate(json.loads(line)))
        except (json.JSONDecodeError, PydanticError) as error:
            raise ValidationError(f"{path}:{number}: {error}") from error
    return rows


def read_messages(paths: Sequence[Path]) -> list[LabelledMessage]:
    """Every row of the files (a folder stands for its ``*.jsonl`` files), in a stable order."""
    files: list[Path] = []
    for path in paths:
        files += sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    if not files:
        raise ValidationError(f"no message files in {', '.join(map(str, paths))}")
    return [row for f in files for row in load_messages(f)]
