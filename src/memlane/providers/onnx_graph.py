"""Run a shipped encoder graph with ONNX Runtime, its weights read from safetensors files when it loads.

The graphs in ``providers/graphs/`` hold no weights (about 130 KB each): every weight of the graph is marked
as external data and named after the safetensors tensor it is (``key``, or ``key.T`` for its transpose). The
weights come from the bundled all-MiniLM-L6-v2 file (and the decision model's own file), so nothing ships
twice, and a command loads a model in a fraction of a second without importing torch (docs/benchmarks.md,
"Cold start"). ``memlane train graphs`` exports them again.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from memlane.model.errors import ProviderError

TRANSPOSED = ".T"  # a weight the exporter stored transposed (a MatMul operand)
EMBEDDER_GRAPH = "minilm-l6.onnx"  # the bundled all-MiniLM-L6-v2: tokens -> last hidden state
DECISION_GRAPH = "decision.onnx"  # the decision model: a token pair -> logits


def graphs_dir() -> Path:
    return Path(str(resources.files("memlane.providers").joinpath("graphs")))


def weight_names(graph: Path) -> list[str]:
    """The external weights ``graph`` needs, from the card written beside it at export."""
    card = graph.with_suffix(".json")
    try:
        names: list[str] = json.loads(card.read_text(encoding="utf-8"))["weights"]
    except (OSError, ValueError, KeyError) as exc:
        raise ProviderError(f"cannot read the graph card {card}: {exc}") from exc
    return names


def _weight(tensors: Mapping[str, np.ndarray], name: str) -> np.ndarray:
    key = name.removesuffix(TRANSPOSED)
    if key not in tensors:
        raise ProviderError(f"the weights lack {key!r}, which the graph needs: they do not fit the graph")
    value = tensors[key].T if name.endswith(TRANSPOSED) else tensors[key]
    return np.ascontiguousarray(value, dtype=np.float32)


class GraphSession:
    """An ONNX Runtime session on ``graph`` with ``tensors`` as its weights; :meth:`run` is thread-safe."""

    def __init__(self, graph: Path, tensors: Mapping[str, np.ndarray], threads: int = 1) -> None:
        import onnxruntime as ort

        self.threads = threads
        names = weight_names(graph)
        # ONNX Runtime reads these buffers in place: they must live as long as the session.
        self._values = [ort.OrtValue.ortvalue_from_numpy(_weight(tensors, n)) for n in names]
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only: no optimizer chatter on stderr
        options.add_external_initializers(names, self._values)
        try:
            self._session = ort.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own untyped errors: name the file and re-raise
            raise ProviderError(f"cannot load the graph {graph}: {exc}") from exc
        self.inputs = {i.name for i in self._session.get_inputs()}
        self._lock = threading.Lock()

    def run(self, feeds: Mapping[str, np.ndarray]) -> np.ndarray:
        """The graph's first output for ``feeds`` (only the inputs the graph has are passed)."""
        with self._lock:
            out: np.ndarray = self._session.run(None, {k: v for k, v in feeds.items() if k in self.inputs})[0]
        return out


def read_tensors(path: Path, prefix: str = "", only: str = "") -> dict[str, np.ndarray]:
    """The tensors of a safetensors file, their names given ``prefix``; with ``only``, just those whose
    prefixed name starts with it (the rest of the file is not read)."""
    from safetensors import SafetensorError, safe_open

    try:
        with safe_open(str(path), framework="np") as f:
            return {prefix + k: f.get_tensor(k) for k in f.keys() if (prefix + k).startswith(only)}  # noqa: SIM118 - safe_open is not iterable
    except (OSError, ValueError, SafetensorError) as exc:
        raise ProviderError(f"cannot read the weights in {path}: {exc}") from exc


def fast_tokenizer(model_dir: Path, max_length: int) -> Any:
    """The model directory's fast tokenizer (``tokenizer.json``), truncating to ``max_length`` tokens,
    longest text first for a pair, and padding a batch to its longest row."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.enable_truncation(max_length, strategy="longest_first")
    tokenizer.enable_padding(pad_id=tokenizer.token_to_id("[PAD]") or 0, pad_token="[PAD]")
    return tokenizer


def encode(tokenizer: Any, texts: Sequence[str] | Sequence[tuple[str, str]]) -> dict[str, np.ndarray]:
    """The graph inputs for a batch of texts or of text pairs."""
    rows = tokenizer.encode_batch(list(texts))
    return {
        "input_ids": np.array([r.ids for r in rows], dtype=np.int64),
        "attention_mask": np.array([r.attention_mask for r in rows], dtype=np.int64),
        "token_type_ids": np.array([r.type_ids for r in rows], dtype=np.int64),
    }


def batches(
    tokenizer: Any, texts: Sequence[str] | Sequence[tuple[str, str]], size: int
) -> Iterator[tuple[np.ndarray, dict[str, np.ndarray]]]:
    """The graph inputs for ``texts`` in batches of ``size``, longest first so that a batch holds texts of
    similar length (less padding, as sentence-transformers does), each with the positions of its rows."""
    lengths = [-(len(t) if isinstance(t, str) else len(t[0]) + len(t[1])) for t in texts]
    order = np.argsort(lengths, kind="stable")
    for start in range(0, len(texts), size):
        rows = order[start : start + size]
        yield rows, encode(tokenizer, [texts[i] for i in rows])
