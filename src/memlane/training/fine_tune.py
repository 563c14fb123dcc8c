"""What both fine-tunings share: a seeded CPU run, the bundled encoder's word embeddings frozen, AdamW with
a linear warmup and decay."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from memlane.providers.llm.learned.decision_model import FROZEN_PREFIX


def seed_everything(seed: int, threads: int) -> None:
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.set_grad_enabled(True)  # whatever an earlier caller in this process set


def optimiser_for(network: Any, *, learning_rate: float, weight_decay: float, warmup_share: float,
                  steps: int) -> tuple[list[Any], Any, Any]:
    """(trained parameters, AdamW, linear schedule): every weight but the frozen word embeddings."""
    import torch
    from transformers import get_linear_schedule_with_warmup

    for name, param in network.named_parameters():
        param.requires_grad = not name.startswith(FROZEN_PREFIX)
    params = [p for p in network.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(params, lr=learning_rate, weight_decay=weight_decay)
    return params, optimiser, get_linear_schedule_with_warmup(optimiser, int(warmup_share * steps), steps)
