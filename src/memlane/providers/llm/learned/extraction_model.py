"""The extraction model: a user's message (and the assistant's before it) -> the spans worth remembering.

One encoder fine-tuned from the bundled all-MiniLM-L6-v2 (``memlane train extraction``) with three heads:
a tag per word piece of the message (outside, or the beginning / inside of a fact, an event, a way to
answer, someone else's fact), and for each span found its category and importance. What the span says is
turned into the memory's text by the exact third-person rewrite, not by the model. Like the decision
model, the frozen word embeddings are the bundled model's and are not shipped.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memlane.model.errors import ProviderError
from memlane.providers.llm.learned.clauses import clause_bounds
from memlane.providers.llm.learned.decision_model import (
    FROZEN_PREFIX,
    load_frozen_embeddings,
    load_tokenizer,
    weights_dir,
)

KINDS = ("fact", "event", "answer_style", "other_person")
TAGS = ("O", *(f"{edge}-{kind}" for kind in KINDS for edge in ("B", "I")))
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
MAX_LENGTH = 256
KEEP_ABOVE = 0.7  # a span less sure than this is left out (chosen on the development messages)


@dataclass(frozen=True)
class Span:
    start: int  # character offsets in the message
    end: int
    kind: str
    category: str = "other"
    importance: int = 3
    confidence: float = 1.0  # the mean probability of the span's tags


def encode(tokenizer: Any, assistant: Sequence[str], messages: Sequence[str]) -> Any:
    """The model's input: the assistant's message first (context), the user's message second."""
    return tokenizer(
        list(assistant),
        list(messages),
        padding=True,
        truncation="longest_first",
        max_length=MAX_LENGTH,
        return_offsets_mapping=True,
        return_tensors="pt",
    )


def message_positions(batch: Any, row: int) -> list[tuple[int, int, int]]:
    """(token index, start, end) of each word piece of the user's message in one row of a batch."""
    types, offsets = batch["token_type_ids"][row].tolist(), batch["offset_mapping"][row].tolist()
    return [(i, s, e) for i, (t, (s, e)) in enumerate(zip(types, offsets, strict=True)) if t == 1 and e > s]


def build_network(*, pretrained: bool = True) -> Any:
    """The bundled encoder with the three heads; with ``pretrained`` false, only the frozen embeddings are
    read from the bundled model (the rest comes from the shipped weights)."""
    import torch
    from transformers import AutoConfig, AutoModel
    from transformers.utils import logging as hf_logging

    from memlane.providers.embed.local import bundled_model_dir

    hf_logging.set_verbosity_error()

    class Network(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            directory = str(bundled_model_dir())
            self.bert = (
                AutoModel.from_pretrained(directory, add_pooling_layer=False)
                if pretrained
                else AutoModel.from_config(AutoConfig.from_pretrained(directory), add_pooling_layer=False)
            )
            width = self.bert.config.hidden_size
            self.dropout = torch.nn.Dropout(0.1)
            self.tags = torch.nn.Linear(width, len(TAGS))
            self.category = torch.nn.Linear(width, len(CATEGORIES))
            self.importance = torch.nn.Linear(width, 5)

        def forward(self, batch: Any) -> tuple[Any, Any]:
            inputs = {k: v for k, v in batch.items() if k != "offset_mapping"}
            hidden = self.bert(**inputs).last_hidden_state
            return hidden, self.tags(self.dropout(hidden))

        def span_heads(self, pooled: Any) -> tuple[Any, Any]:
            return self.category(pooled), self.importance(pooled)

    return Network() if pretrained else load_frozen_embeddings(Network())


def decode(
    probs: Any, positions: Sequence[tuple[int, int, int]], message: str, keep_above: float = KEEP_ABOVE
) -> list[Span]:
    """Tag probabilities -> one span per clause at most: from the first to the last word piece of the
    clause more likely inside a memory than outside, its kind the one most probable over those pieces.
    Reading tags by clause keeps a memory whole where single pieces waver."""
    spans: list[Span] = []
    for start, end in clause_bounds(message):
        pieces = [i for i, s, e in positions if s >= start and e <= end]
        inside = [i for i in pieces if 1.0 - float(probs[i][0]) > 0.5]
        # a lone piece inside a longer clause is noise; a one-word answer ("biscuit") is a clause of its own
        if not inside or (len(inside) < 2 and len(inside) * 2 < len(pieces)):
            continue
        run = pieces[pieces.index(inside[0]) : pieces.index(inside[-1]) + 1]
        mass = [
            sum(float(probs[i][1 + 2 * k]) + float(probs[i][2 + 2 * k]) for i in run)
            for k in range(len(KINDS))
        ]
        offsets = {i: (s, e) for i, s, e in positions}
        confidence = sum(1.0 - float(probs[i][0]) for i in run) / len(run)
        if confidence < keep_above:
            continue
        spans.append(
            Span(offsets[run[0]][0], offsets[run[-1]][1], KINDS[mass.index(max(mass))], confidence=confidence)
        )
    return spans


class ExtractionModel:
    """The loaded extraction model; :meth:`spans` reads many messages in one forward pass."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or weights_dir()
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Any] | None = None
        self._keep_above: float | None = None

    def available(self) -> bool:
        return self._loaded is not None or (self.directory / "extraction.safetensors").exists()

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._loaded is None:
                from safetensors.torch import load_file

                path = self.directory / "extraction.safetensors"
                if not path.exists():
                    raise ProviderError(
                        f"no extraction model in {self.directory} (train one: memlane train extraction)"
                    )
                network = build_network(pretrained=False)
                missing, unexpected = network.load_state_dict(
                    {k: v.float() for k, v in load_file(str(path)).items()}, strict=False
                )
                if unexpected or any(not k.startswith(FROZEN_PREFIX) for k in missing):
                    raise ProviderError(
                        f"extraction weights in {self.directory} do not fit the bundled encoder"
                    )
                network.eval()
                card = json.loads((self.directory / "extraction.json").read_text(encoding="utf-8"))
                self._keep_above = float(card.get("keep_above", KEEP_ABOVE))
                self._loaded = (load_tokenizer(), network)
            return self._loaded

    def spans(self, assistant: Sequence[str], messages: Sequence[str]) -> list[list[Span]]:
        """For each message, the spans worth remembering with their kind, category and importance."""
        if not messages:
            return []
        tokenizer, network = self._load()
        return read_spans(network, tokenizer, assistant, messages, self._keep_above or KEEP_ABOVE)


def read_spans(
    network: Any,
    tokenizer: Any,
    assistant: Sequence[str],
    messages: Sequence[str],
    keep_above: float = KEEP_ABOVE,
) -> list[list[Span]]:
    import torch

    batch = encode(tokenizer, assistant, messages)
    with torch.inference_mode():
        hidden, logits = network(batch)
        probs = torch.softmax(logits.float(), dim=-1)
        found: list[list[Span]] = []
        for row in range(len(messages)):
            positions = message_positions(batch, row)
            spans = decode(probs[row].tolist(), positions, messages[row], keep_above)
            labelled = []
            for span in spans:
                rows = [i for i, s, e in positions if s >= span.start and e <= span.end]
                category, importance = network.span_heads(hidden[row, rows].mean(dim=0))
                labelled.append(
                    Span(
                        span.start,
                        span.end,
                        span.kind,
                        CATEGORIES[int(category.argmax())],
                        int(importance.argmax()) + 1,
                        span.confidence,
                    )
                )
            found.append(labelled)
    return found


def write_card(directory: Path, info: dict[str, Any], keep_above: float = KEEP_ABOVE) -> None:
    card = {"tags": list(TAGS), "categories": list(CATEGORIES), "keep_above": keep_above, "info": info}
    (directory / "extraction.json").write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")


_SHARED: dict[Path, ExtractionModel] = {}
_SHARED_LOCK = threading.Lock()


def shared_extractor(directory: Path | None = None) -> ExtractionModel:
    key = (directory or weights_dir()).resolve()
    with _SHARED_LOCK:
        return _SHARED.setdefault(key, ExtractionModel(key))
