"""The bundled encoder and the decision model run on ONNX Runtime from the shipped weightless graphs: the
same vectors and probabilities as torch, without importing torch, and `memlane train graphs` exports the
same graphs again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memlane.model.errors import ProviderError, ValidationError
from memlane.providers.embed.local import LocalEmbedder
from memlane.providers.llm.learned.decision_model import (
    LABELS,
    MAX_LENGTH,
    DecisionModel,
    build_network,
    load_tokenizer,
    model_input,
    weights_dir,
)
from memlane.providers.onnx_graph import EMBEDDER_GRAPH, GraphSession, graphs_dir, read_tensors

TEXTS = [
    "I live in Lisbon and work as a nurse.",
    "",
    "x",
    "naïve café résumé in 東京 🐈",
    "where do I live?",
    "A long message that keeps going and going. " * 60,  # past 256 tokens
    "User's dentist appointment moved to Thursday 5 March at 2pm.",
]
PAIRS = [
    ("User's cat Miso is 5 years old.", "User's cat Miso turned 6."),
    ("User lives in Hackney.", "User's landlord moved to Spain."),
    ("User likes cilantro.", "User loves coriander."),
    ("User is a vegetarian. " * 30, "User eats steak again, " * 30),  # truncated, longest first
    ("User's flight to Lima leaves on 14/06.", "User's flight to Lima was cancelled."),
]


def _cosines(a: list[list[float]], b: list[list[float]]) -> np.ndarray:
    x, y = np.asarray(a), np.asarray(b)
    return (x * y).sum(axis=1) / np.linalg.norm(x, axis=1) / np.linalg.norm(y, axis=1)


def test_bundled_embedder_on_onnx_gives_the_sentence_transformers_vectors() -> None:
    onnx, torch = LocalEmbedder(batch_size=3), LocalEmbedder(runtime="torch", batch_size=3)
    assert onnx.runtime == "onnx"
    texts = TEXTS * 3  # several batches of mixed lengths: the order of the result is the order asked
    assert _cosines(onnx.embed(texts), torch.embed(texts)).min() > 1 - 1e-4


def test_decision_model_on_onnx_gives_the_torch_probabilities() -> None:
    from safetensors.torch import load_file

    from memlane.training.train_decisions import predict

    network = build_network(len(LABELS), pretrained=False)
    state = load_file(str(weights_dir() / "decision.safetensors"))
    network.load_state_dict({k: v.float() for k, v in state.items()}, strict=False)
    expected = predict(network.eval(), load_tokenizer(), PAIRS)
    got = DecisionModel().probabilities(PAIRS)
    assert np.abs(got - expected).max() < 1e-4
    assert (got.argmax(axis=1) == expected.argmax(axis=1)).all()


def test_pair_tokens_are_the_training_tokenizers() -> None:
    from memlane.providers.onnx_graph import encode

    tokenizer, _ = DecisionModel()._load()
    texts = [model_input(a, b) for a, b in PAIRS]
    ours = encode(tokenizer, texts)
    theirs = load_tokenizer()(
        [a for a, _ in texts],
        [b for _, b in texts],
        padding=True,
        truncation=True,
        max_length=MAX_LENGTH,
        return_tensors="np",
    )
    for name, value in ours.items():
        assert np.array_equal(value, theirs[name]), name


def test_a_command_loads_the_models_without_torch() -> None:
    code = (
        "import sys; from memlane.providers.embed.local import LocalEmbedder; "
        "from memlane.providers.llm.learned.decision_model import DecisionModel; "
        "LocalEmbedder().embed(['hello']); DecisionModel().probabilities([('a b', 'a c')]); "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'transformers', "
        "'sentence_transformers'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_weights_that_do_not_fit_the_graph_are_refused(tmp_path: Path) -> None:
    from safetensors.numpy import save_file

    tensors = read_tensors(weights_dir() / "decision.safetensors")
    del tensors["classifier.weight"]
    save_file(tensors, str(tmp_path / "decision.safetensors"))
    (tmp_path / "decision.json").write_text((weights_dir() / "decision.json").read_text())
    with pytest.raises(ProviderError, match="lack 'classifier.weight'"):
        DecisionModel(tmp_path).probabilities(PAIRS[:1])
    (tmp_path / "decision.safetensors").write_bytes(b"not weights")
    with pytest.raises(ProviderError, match="cannot read the weights"):
        DecisionModel(tmp_path).probabilities(PAIRS[:1])


def test_train_graphs_exports_graphs_that_give_the_same_vectors(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from memlane.cli.app import app
    from memlane.providers.embed.local import bundled_model_dir
    from memlane.providers.onnx_graph import encode, fast_tokenizer

    result = CliRunner().invoke(app, ["train", "graphs", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert {p.name for p in tmp_path.iterdir()} == {
        "minilm-l6.onnx",
        "minilm-l6.json",
        "decision.onnx",
        "decision.json",
    }
    weights = read_tensors(bundled_model_dir() / "model.safetensors")
    feeds = encode(fast_tokenizer(bundled_model_dir(), 256), TEXTS)
    shipped = GraphSession(graphs_dir() / EMBEDDER_GRAPH, weights).run(feeds)
    exported = GraphSession(tmp_path / EMBEDDER_GRAPH, weights).run(feeds)
    assert np.abs(shipped - exported).max() < 1e-5


def test_local_runtime_is_onnx_for_the_bundled_model_only() -> None:
    from memlane.providers.embed.local import bundled_model_dir

    assert LocalEmbedder().runtime == "onnx"
    assert LocalEmbedder(device="cuda").runtime == "torch"
    directory = str(bundled_model_dir())  # named by its path: a model directory like any other
    assert LocalEmbedder(model=directory).runtime == "torch"
    with pytest.raises(ValidationError, match="bundled all-MiniLM-L6-v2 on the CPU only"):
        LocalEmbedder(model=directory, runtime="onnx")
    with pytest.raises(ValidationError, match="runtime must be one of"):
        LocalEmbedder(runtime="tensorflow")  # type: ignore[arg-type]
