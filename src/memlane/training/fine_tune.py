"""What both fine-tunings share: a seeded CPU run, the bundled encoder's word embeddings frozen, AdamW with
a linear warmup and decay."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from memlane.providers.llm.learned.decision_model import FROZEN_PREFIX


def bf16_native() -> bool:
    """Whether this CPU multiplies bfloat16 in hardware (AMX or AVX-512 BF16); elsewhere torch emulates it,
    slower than float32."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return "amx_bf16" in flags or "avx512_bf16" in flags


@dataclass(frozen=True)
class FineTuneConfig:
    """The settings both trainings take (each subclass sets its own defaults and adds its own)."""

    epochs: int = 3
    batch_size: int = 16
    learning_rate: float = 4e-5
    weight_decay: float = 0.01
    warmup_share: float = 0.1
    seed: int = 13
    threads: int = 2
    # bfloat16 matrix products in the forward pass (the weights and optimiser stay float32): on a CPU with
    # AMX or AVX-512 BF16 a step takes about half the time, which buys an epoch within 30 minutes
    bf16: bool = field(default_factory=bf16_native)


def epoch_record(
    epoch: int, losses: list[float], started: float, figures: Mapping[str, Any], log: Callable[[str], None]
) -> dict[str, Any]:
    """One epoch's loss, elapsed minutes and development figures (dataclasses with ``line()``), logged on
    one line."""
    record = {
        "epoch": epoch,
        "loss": float(np.mean(losses)),
        "minutes": round((time.monotonic() - started) / 60, 1),
        **{name: asdict(f) for name, f in figures.items()},
    }
    log(
        f"epoch {epoch}: loss {record['loss']:.3f}, {record['minutes']} min; "
        + "; ".join(f"{name} {f.line()}" for name, f in figures.items())
    )
    return record


def mixed_precision(enabled: bool) -> Any:
    """The forward pass's autocast context: bfloat16 where ``enabled``, float32 otherwise."""
    import torch

    return torch.autocast("cpu", dtype=torch.bfloat16, enabled=enabled)


def seed_everything(seed: int, threads: int) -> None:
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.set_grad_enabled(True)  # whatever an earlier caller in this process set


def optimiser_for(
    network: Any, *, learning_rate: float, weight_decay: float, warmup_share: float, steps: int
) -> tuple[list[Any], Any, Any]:
    """(trained parameters, AdamW, linear schedule): every weight but the frozen word embeddings."""
    import torch
    from transformers import get_linear_schedule_with_warmup

    for name, param in network.named_parameters():
        param.requires_grad = not name.startswith(FROZEN_PREFIX)
    params = [p for p in network.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(params, lr=learning_rate, weight_decay=weight_decay)
    return params, optimiser, get_linear_schedule_with_warmup(optimiser, int(warmup_share * steps), steps)


def length_batches(lengths: Sequence[int], size: int, rng: random.Random) -> list[list[int]]:
    """Shuffled batches of indices of examples of similar length (``lengths``), so little of a batch is
    padding: the examples are shuffled, sorted by length within pools of 20 batches, and the batches shuffled."""
    order = list(range(len(lengths)))
    rng.shuffle(order)
    pool = size * 20
    out: list[list[int]] = []
    for start in range(0, len(order), pool):
        group = sorted(order[start : start + pool], key=lambda i: lengths[i])
        out += [group[i : i + size] for i in range(0, len(group), size)]
    rng.shuffle(out)
    return out
