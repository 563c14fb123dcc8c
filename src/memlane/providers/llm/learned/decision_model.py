"""The decision model: (stored memory, candidate) -> merge / supersede / create, with probabilities.

A cross-encoder fine-tuned from the bundled all-MiniLM-L6-v2 (``memlane train decisions``). Only what
training changed ships with memlane (the transformer layers and the classifier, fp16, in
``weights/decision.safetensors``); the word embeddings are the bundled model's, frozen in training, so the
package stays small. It runs on ONNX Runtime (the shipped graph ``providers/graphs/decision.onnx``, no
torch); training and its figures use torch. Loaded on first use, once per process.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from memlane.model.candidate import Relation
from memlane.model.errors import ProviderError
from memlane.providers.llm.learned.normalise import normalise_values
from memlane.providers.onnx_graph import (
    DECISION_GRAPH,
    GraphSession,
    batches,
    fast_tokenizer,
    graphs_dir,
    read_tensors,
)

LABELS = ("merge", "supersede", "create")
RELATION: dict[str, Relation] = {
    "merge": "redundancy",
    "supersede": "contradiction",
    "create": "new",
}  # label -> verdict
MAX_LENGTH = 128
BATCH = 8  # pairs per forward pass: larger batches were slower per pair on this CPU (docs/benchmarks.md)
FROZEN_PREFIX = "bert.embeddings."  # not trained, not shipped: read from the bundled model


def weights_dir() -> Path:
    return Path(str(resources.files("memlane.providers.llm.learned").joinpath("weights")))


_WORD = re.compile(r"[\w-]+")


def _marked(text: str, other: set[str]) -> str:
    """``text`` with each word the other text lacks between asterisks."""
    return _WORD.sub(lambda m: m.group(0) if m.group(0).lower() in other else f"*{m.group(0)}*", text)


def model_input(stored: str, candidate: str) -> tuple[str, str]:
    """The two texts as the model reads them, in training and in use alike: values in one written form,
    and the words one text has and the other lacks marked, so one changed word ("34" / "35", "likes" /
    "hates") stands out in two otherwise equal sentences."""
    a, b = normalise_values(stored), normalise_values(candidate)
    words_a, words_b = ({w.lower() for w in _WORD.findall(t)} for t in (a, b))
    return _marked(a, words_b), _marked(b, words_a)


@dataclass(frozen=True)
class ModelCard:
    """``decision.json``: what the shipped weights are and the threshold chosen on development pairs."""

    labels: tuple[str, ...]
    unsure_below: float  # a top probability under this is no verdict: the similarity bands decide
    info: dict[str, Any]

    @classmethod
    def read(cls, path: Path) -> ModelCard:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return cls(tuple(raw["labels"]), float(raw["unsure_below"]), raw.get("info", {}))


def build_network(num_labels: int = len(LABELS), *, pretrained: bool = True) -> Any:
    """The bundled encoder with a fresh classification head (training starts here); with ``pretrained``
    false, the bare architecture with only the frozen embeddings read from the bundled model."""
    from transformers import AutoConfig, AutoModelForSequenceClassification
    from transformers.utils import logging as hf_logging

    from memlane.providers.embed.local import bundled_model_dir

    hf_logging.set_verbosity_error()  # no load report of the new head on stderr
    if pretrained:
        return AutoModelForSequenceClassification.from_pretrained(
            str(bundled_model_dir()), num_labels=num_labels
        )
    config = AutoConfig.from_pretrained(str(bundled_model_dir()), num_labels=num_labels)
    return load_frozen_embeddings(AutoModelForSequenceClassification.from_config(config))


def load_frozen_embeddings(network: Any) -> Any:
    """``network`` (its encoder named ``bert``) with the bundled model's word embeddings, which training
    leaves frozen and the shipped weights leave out."""
    from safetensors.torch import load_file

    from memlane.providers.embed.local import bundled_model_dir

    base = load_file(str(bundled_model_dir() / "model.safetensors"))
    network.load_state_dict(
        {f"bert.{k}": v for k, v in base.items() if f"bert.{k}".startswith(FROZEN_PREFIX)}, strict=False
    )
    return network


def load_tokenizer() -> Any:
    from transformers import AutoTokenizer

    from memlane.providers.embed.local import bundled_model_dir

    return AutoTokenizer.from_pretrained(str(bundled_model_dir()))


def trained_state(network: Any) -> dict[str, Any]:
    """What ships: every weight but the frozen word embeddings, in fp16."""
    return {
        k: v.detach().to("cpu").half().contiguous()
        for k, v in network.state_dict().items()
        if not k.startswith(FROZEN_PREFIX)
    }


class DecisionModel:
    """The loaded cross-encoder; :meth:`probabilities` scores many pairs in one forward pass."""

    def __init__(self, directory: Path | None = None, threads: int | None = None) -> None:
        self.directory = directory or weights_dir()
        self.threads = threads  # None: the embedder's default (OMP_NUM_THREADS, else half the cores)
        self._lock = threading.Lock()
        self._loaded: tuple[Any, GraphSession] | None = None
        self._card: ModelCard | None = None

    @property
    def card(self) -> ModelCard:
        if self._card is None:
            path = self.directory / "decision.json"
            if not path.exists():
                raise ProviderError(
                    f"no decision model in {self.directory} (train one: memlane train decisions)"
                )
            self._card = ModelCard.read(path)
        return self._card

    def _load(self) -> tuple[Any, GraphSession]:
        with self._lock:
            if self._loaded is None:
                from memlane.providers.embed.local import bundled_model_dir, default_threads

                _ = self.card  # no card, no model: says how to train one
                base = bundled_model_dir()
                tensors = read_tensors(base / "model.safetensors", "bert.", only=FROZEN_PREFIX)
                tensors |= read_tensors(self.directory / "decision.safetensors")
                threads = self.threads or default_threads()
                session = GraphSession(graphs_dir() / DECISION_GRAPH, tensors, threads)
                self._loaded = (fast_tokenizer(base, MAX_LENGTH), session)
            return self._loaded

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """One row per (stored, candidate) pair: the probability of each label of :attr:`card`."""
        if not pairs:
            return np.zeros((0, len(self.card.labels)))
        tokenizer, session = self._load()
        logits = np.zeros((len(pairs), len(self.card.labels)), dtype=np.float32)
        for rows, feeds in batches(tokenizer, [model_input(a, b) for a, b in pairs], BATCH):
            out = session.run(feeds)
            if out.shape[1] != logits.shape[1]:
                raise ProviderError(
                    f"the decision weights in {self.directory} give {out.shape[1]} labels, "
                    f"their card {logits.shape[1]}"
                )
            logits[rows] = out
        exp = np.exp(logits - logits.max(axis=1, keepdims=True))
        return exp / exp.sum(axis=1, keepdims=True)


_SHARED: dict[tuple[Path, int | None], DecisionModel] = {}
_SHARED_LOCK = threading.Lock()


def shared_model(directory: Path | None = None, threads: int | None = None) -> DecisionModel:
    """One :class:`DecisionModel` per weights directory and thread count in a process (``threads``:
    ``MEMLANE_TORCH_THREADS``, as the embedder reads it)."""
    path = (directory or weights_dir()).resolve()
    with _SHARED_LOCK:
        return _SHARED.setdefault((path, threads), DecisionModel(path, threads))
